import { Worker } from 'node:worker_threads';
import { ApiError, validationError } from '../../errors.js';
import type { TiledSheet } from '../../imaging/plan-sheets.js';
import type { Inspection, RenderMessage, RenderTask } from './plan-render-protocol.js';

const BOOTSTRAP = new URL('./render-thread.mjs', import.meta.url);
// .ts under tsx (tests, the CLI), .js when run from dist/ (scripts/build.mjs), as the module naming it.
const ENTRY = new URL(`./plan-render-worker${import.meta.url.slice(import.meta.url.lastIndexOf('.'))}`, import.meta.url);

export interface RenderLimits {
  /** The thread is terminated after this long, and the task refused. */
  timeoutMs: number;
  /** The thread's JavaScript heap (old generation), MB; a file that needs more is refused. */
  memoryMb: number;
  /** Stops the thread (the node shuts down). */
  signal?: AbortSignal;
}

/** Runs one task in a thread of its own (why not the shared pool: docs/decisions.md, "Plans and pins"). */
export interface PlanRenderer {
  inspect(path: string, maxPages: number, limits: RenderLimits): Promise<Inspection>;
  render(
    task: Omit<Extract<RenderTask, { kind: 'render' }>, 'kind'>,
    limits: RenderLimits,
    onPage: (page: number, sheet: TiledSheet) => void,
  ): Promise<TiledSheet[]>;
}

/**
 * Each task gets a new thread with `resourceLimits` and a deadline: a PDF that makes pdf.js loop is stopped
 * by `terminate()` at the deadline, one that makes it eat memory by V8's limit (the thread dies, not the
 * process); either way the task is refused with 422 and a reason. The thread holds nothing once it ends (pdf.js
 * caches, canvas memory): the process's RSS comes back after every upload.
 */
export function createPlanRenderer(): PlanRenderer {
  function run<T>(task: RenderTask, limits: RenderLimits, onProgress?: (message: Extract<RenderMessage, { type: 'progress' }>) => void) {
    return new Promise<T>((resolve, reject) => {
      const worker = new Worker(BOOTSTRAP, {
        workerData: { entry: ENTRY.href, task },
        resourceLimits: {
          maxOldGenerationSizeMb: limits.memoryMb,
          maxYoungGenerationSizeMb: Math.min(32, Math.max(4, limits.memoryMb / 8)),
        },
      });
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        limits.signal?.removeEventListener('abort', abort);
        outcome();
        // The thread ends with its task; terminate() only hurries one that does not.
        void worker.terminate();
      };
      const deadline = setTimeout(
        () =>
          settle(() =>
            reject(
              validationError('file', `The file took longer than ${Math.round(limits.timeoutMs / 1000)} s to process and was stopped`),
            ),
          ),
        limits.timeoutMs,
      );
      const abort = () => settle(() => reject(new ApiError(503, 'service_unavailable', 'The server is shutting down')));
      if (limits.signal?.aborted) abort();
      limits.signal?.addEventListener('abort', abort, { once: true });
      worker.on('message', (message: RenderMessage) => {
        if (message.type === 'progress') return onProgress?.(message);
        if (message.type === 'result') return settle(() => resolve(message.value as T));
        const { error } = message;
        settle(() =>
          reject(
            error.status === 422
              ? validationError(error.field ?? 'file', error.message)
              : error.status !== undefined && error.code !== undefined
                ? new ApiError(error.status, error.code, error.message)
                : new Error(`Rendering the plan failed: ${error.message}`),
          ),
        );
      });
      worker.on('error', (err: Error & { code?: string }) =>
        settle(() =>
          reject(
            err.code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? validationError('file', `The file needs more than ${limits.memoryMb} MB of memory to process and was stopped`)
              : err,
          ),
        ),
      );
      worker.on('exit', (code) => settle(() => reject(new Error(`The plan rendering thread stopped (exit code ${code})`))));
    });
  }

  return {
    inspect: (path, maxPages, limits) => run<Inspection>({ kind: 'inspect', path, maxPages }, limits),
    render: (task, limits, onPage) => run<TiledSheet[]>({ kind: 'render', ...task }, limits, (m) => onPage(m.page, m.sheet)),
  };
}
