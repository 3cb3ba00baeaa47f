import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ApiError, validationError } from '../../shared/errors.js';
import { invalidField } from '../../i18n/reasons.js';
import type { TiledSheet } from '../../imaging/plan-sheets.js';
import type { Inspection, RenderMessage, RenderTask } from './plan-render-protocol.js';

const BOOTSTRAP = fileURLToPath(new URL('./render-process.mjs', import.meta.url));
// .ts under tsx (tests, the CLI), .js when run from dist/ (scripts/build.mjs), as the module naming it.
const ENTRY = new URL(`./plan-render-process${import.meta.url.slice(import.meta.url.lastIndexOf('.'))}`, import.meta.url);
/** What a dying V8 writes when the heap limit is reached (`FATAL ERROR: Reached heap limit …`). */
const OUT_OF_MEMORY = /heap limit|heap out of memory/i;
/** The end of the process's stderr is kept: what a crash said, for the error. */
const STDERR_KEPT = 4096;

/** How often the deadline is checked. */
const DEADLINE_CHECK_MS = 250;
/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux's architectures). */
const CLOCK_TICKS = 100;

/** The CPU time (user + system, ms) a process has used, from /proc/PID/stat; null where there is none. */
function cpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (in parentheses, may hold spaces): utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

export interface RenderLimits {
  /** The process is killed once it has used this much CPU time (elsewhere than Linux: this long), and the task refused. */
  timeoutMs: number;
  /** The process's JavaScript heap (old generation), MB; a file that needs more is refused. */
  memoryMb: number;
  /** The process's priority (nice, 0–19): it takes the cores the server leaves, not the server's. */
  nice: number;
  /** Stops the process (the node shuts down). */
  signal?: AbortSignal;
}

/** Runs one task in a process of its own (why: docs/decisions.md, "Plans and pins" and "Plans: rendering"). */
export interface PlanRenderer {
  inspect(path: string, maxPages: number, limits: RenderLimits): Promise<Inspection>;
  render(
    task: Omit<Extract<RenderTask, { kind: 'render' }>, 'kind'>,
    limits: RenderLimits,
    onPage: (page: number, sheet: TiledSheet) => void,
  ): Promise<TiledSheet[]>;
}

/**
 * Each task gets a new child process, at a low priority, with a heap limit and a deadline: a PDF that makes pdf.js
 * loop is killed at the deadline, one that makes it eat memory by V8's limit (the child dies, not the server);
 * either way the task is refused with 422 and a reason. The child holds nothing once it ends (pdf.js caches,
 * canvas memory). Its low priority is why it is a process and not a thread: on a machine of two cores the server's
 * event loop keeps its core while a PDF renders (docs/performance.md, "Plans").
 */
export function createPlanRenderer(): PlanRenderer {
  function run<T>(task: RenderTask, limits: RenderLimits, onProgress?: (message: Extract<RenderMessage, { type: 'progress' }>) => void) {
    return new Promise<T>((resolve, reject) => {
      const child = fork(BOOTSTRAP, [ENTRY.href, String(limits.nice)], {
        execArgv: [`--max-old-space-size=${limits.memoryMb}`],
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      });
      let stderr = '';
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-STDERR_KEPT)));
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearInterval(deadline);
        limits.signal?.removeEventListener('abort', abort);
        outcome();
        // The process ends with its task; the kill only hurries one that does not.
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      };
      // The deadline counts the process's CPU time where /proc tells it: a PDF that makes pdf.js loop spends it,
      // while a rendering that waits for a core (its low priority, a busy server) is not refused for waiting.
      const started = Date.now();
      const deadline = setInterval(() => {
        const used = (child.pid === undefined ? null : cpuMs(child.pid)) ?? Date.now() - started;
        if (used < limits.timeoutMs) return;
        settle(() => reject(invalidField('file', 'reason.plan.timeout', { seconds: Math.round(limits.timeoutMs / 1000) })));
      }, DEADLINE_CHECK_MS);
      const abort = () => settle(() => reject(new ApiError(503, 'service_unavailable', 'The server is shutting down')));
      if (limits.signal?.aborted) abort();
      limits.signal?.addEventListener('abort', abort, { once: true });
      child.on('message', (message: RenderMessage) => {
        if (message.type === 'progress') return onProgress?.(message);
        if (message.type === 'result') return settle(() => resolve(message.value as T));
        const { error } = message;
        settle(() =>
          reject(
            error.status === 422
              ? validationError(error.field ?? 'file', error.message, error.reason)
              : error.status !== undefined && error.code !== undefined
                ? new ApiError(error.status, error.code, error.message)
                : new Error(`Rendering the plan failed: ${error.message}`),
          ),
        );
      });
      child.on('error', (err) => settle(() => reject(err)));
      // 'close': the process has ended and its stderr and messages are all read.
      child.on('close', (code, signal) =>
        settle(() =>
          reject(
            OUT_OF_MEMORY.test(stderr)
              ? invalidField('file', 'reason.plan.memory', { mb: limits.memoryMb })
              : new Error(
                  `The plan rendering process stopped (${signal ?? `exit code ${code}`}): ${stderr.trim().split('\n').at(-1) ?? ''}`,
                ),
          ),
        ),
      );
      child.send(task);
    });
  }

  return {
    inspect: (path, maxPages, limits) => run<Inspection>({ kind: 'inspect', path, maxPages }, limits),
    render: (task, limits, onPage) => run<TiledSheet[]>({ kind: 'render', ...task }, limits, (m) => onPage(m.page, m.sheet)),
  };
}
