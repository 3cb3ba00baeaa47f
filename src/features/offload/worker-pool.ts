import { mkdtempSync, rmSync } from 'node:fs';
import { type FileHandle, open, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import { ApiError } from '../../errors.js';
import { type CancelJob, type CloseRequest, type JobMessage, type JobRequest, type Ready, reviveError } from './job-protocol.js';

const BOOTSTRAP = new URL('./worker-bootstrap.mjs', import.meta.url);
/**
 * The old generation of a worker's heap (MB). A job holds one page of work at a time, but V8 lets an
 * uncapped heap grow with garbage: the benchmark's PDF left the process 40–50 MB larger after every report.
 * Capped, the worker collects instead (its pauses are its own, not the requests'); a job that truly needed
 * more would crash its worker, which fails that job only.
 */
const WORKER_HEAP_MB = 128;
/** Its young generation (MB): left to V8, it held 32 MB of short-lived garbage, idle or not. */
const WORKER_YOUNG_MB = 16;
/** A worker that has not exited this long after `close` is terminated. */
const CLOSE_GRACE_MS = 5000;

export interface WorkerPoolOptions {
  /** The worker module (TypeScript): exports `createJobs(data): Promise<Jobs>` (job-runner.ts). */
  entry: URL;
  /** Worker threads (WORKER_THREADS). */
  size: number;
  /** Jobs that may wait beyond those running (WORKER_QUEUE_LIMIT); one more is refused with 503. */
  queueLimit: number;
  /** Given to the worker module's createJobs (plain data: it is copied into each thread). */
  data?: unknown;
  /** The cap of each worker's old generation, MB (default 128). */
  heapMb?: number;
  /** The Retry-After of the 503 (default 10 s: about what a large report takes). */
  retryAfterSeconds?: number;
  /** What the pool's jobs are, for the 503's message (default "reports"). */
  jobsName?: string;
  /** A worker that crashed or could not start (it is replaced at the next job). */
  onError?: (message: string) => void;
}

export interface JobResult<T> {
  value: T;
  /** The bytes of a job that produces a file, as the worker writes them; null for a job that gives a value only. */
  stream: Readable | null;
}

export interface WorkerPool {
  /** Starts the workers now rather than at the first job (the server: its first report then waits for no start-up). */
  start(): void;
  /**
   * Runs a job on the first free worker, or queues it; refused at once with 503 `service_unavailable` and
   * Retry-After when the queue is full. Resolves with the job's value; its stream may still be growing.
   */
  run<T>(kind: string, input: unknown, options?: { onProgress?: (value: any) => void }): Promise<JobResult<T>>;
  /** Workers alive, jobs running (their stream included) and waiting. */
  stats(): { workers: number; running: number; queued: number };
  /** Refuses new jobs, fails the waiting ones, stops the workers (the running jobs are cancelled) and removes the spool folder. */
  close(): Promise<void>;
}

interface Job {
  kind: string;
  input: unknown;
  onProgress?: (value: any) => void;
  resolve(result: JobResult<any>): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  exited: Promise<void>;
  running: { job: Job; port: MessagePort; spool: string; reader: SpoolReader | null; settled: boolean } | null;
}

/**
 * A file the worker is still writing, read as it grows: the stream of a job. Why a file rather than chunks
 * posted over the port (docs/decisions.md, "Work off the event loop"): the worker finishes at its own pace
 * whatever the reader's, so a slow or stalled client never holds one of the few workers, and the bytes wait
 * on disk rather than in memory. The file is unlinked as soon as it is open: nothing is left behind.
 */
class SpoolReader extends Readable {
  #file: Promise<FileHandle>;
  #position = 0;
  #written = 0;
  #ended = false;
  #waiting = false;

  constructor(
    path: string,
    private readonly cancel: () => void,
  ) {
    super({ highWaterMark: 64 * 1024 });
    this.#file = open(path, 'r').then(async (file) => {
      await unlink(path);
      return file;
    });
    this.#file.catch(() => undefined); // reported by the first read
  }

  /** The worker has written this many bytes. */
  grow(bytes: number) {
    this.#written = bytes;
    this.#wake();
  }

  /** The worker has written everything. */
  finish() {
    this.#ended = true;
    this.#wake();
  }

  /** The job failed: the reader gets the error (a response already started is cut short). */
  fail(error: Error) {
    this.#ended = true;
    this.destroy(error);
  }

  #wake() {
    if (!this.#waiting) return;
    this.#waiting = false;
    this._read(this.readableHighWaterMark);
  }

  override _read(size: number) {
    if (this.destroyed) return;
    if (this.#position >= this.#written) {
      if (this.#ended) this.push(null);
      else this.#waiting = true;
      return;
    }
    const length = Math.min(size, this.#written - this.#position);
    this.#file
      .then((file) => file.read(Buffer.allocUnsafe(length), 0, length, this.#position))
      .then(({ bytesRead, buffer }) => {
        if (this.destroyed) return;
        this.#position += bytesRead;
        this.push(buffer.subarray(0, bytesRead));
      })
      .catch((err: Error) => this.destroy(err));
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void) {
    // Destroyed before the worker finished: the client went away; the worker stops writing.
    if (!this.#ended) this.cancel();
    this.#file
      .then((file) => file.close())
      .then(
        () => callback(error),
        () => callback(error),
      );
  }
}

/**
 * A fixed number of worker threads that run heavy reads off the event loop (STYLE.md habit 14, DESIGN.md
 * §10), with a bounded queue in front. Each worker opens its own connections (the worker module's
 * createJobs) and runs one job at a time. A worker that crashes fails its job with a clear error and is
 * replaced; one that cannot start fails the jobs waiting for it, and the next job tries again.
 */
export function createWorkerPool(options: WorkerPoolOptions): WorkerPool {
  const { size, queueLimit } = options;
  const slots = new Set<Slot>();
  const queue: Job[] = [];
  let spoolDir: string | null = null;
  let jobNumber = 0;
  let closed = false;

  const retryAfter = options.retryAfterSeconds ?? 10;
  const busy = () =>
    new ApiError(
      503,
      'service_unavailable',
      `The server is busy with other long requests (${options.jobsName ?? 'reports'}); retry in ${retryAfter} s`,
      undefined,
      {
        'retry-after': String(retryAfter),
      },
    );

  function spawn() {
    // The spool folder is made with the first worker: a context built for a CLI command that runs no job makes none.
    spoolDir ??= mkdtempSync(join(tmpdir(), 'punchlist-spool-'));
    const worker = new Worker(BOOTSTRAP, {
      workerData: { entry: options.entry.href, data: options.data },
      resourceLimits: { maxOldGenerationSizeMb: options.heapMb ?? WORKER_HEAP_MB, maxYoungGenerationSizeMb: WORKER_YOUNG_MB },
    });
    const slot: Slot = { worker, ready: false, running: null, exited: new Promise((resolve) => worker.once('exit', () => resolve())) };
    slots.add(slot);
    let failure = '';
    worker.on('message', (message: Ready) => {
      if (message.type !== 'ready') return;
      slot.ready = true;
      pump();
    });
    worker.on('error', (err) => (failure = err.message));
    worker.once('exit', (code) => {
      slots.delete(slot);
      if (closed) return;
      const reason = failure || `exit code ${code}`;
      if (slot.running) {
        options.onError?.(`a worker thread crashed running a "${slot.running.job.kind}" job: ${reason}; it is replaced`);
        settle(slot, { type: 'error', error: { message: `The worker thread running this ${slot.running.job.kind} crashed (${reason})` } });
      } else if (!slot.ready) {
        // It never started (a module or the database would not open): another would fail alike. The jobs
        // fail unless a worker is ready for them; the next job tries again.
        options.onError?.(`a worker thread could not start: ${reason}`);
        if (![...slots].some((s) => s.ready))
          for (const job of queue.splice(0)) job.reject(new Error(`No worker thread could start: ${reason}`));
        return;
      }
      ensureWorkers();
    });
  }

  function ensureWorkers() {
    while (!closed && slots.size < size) spawn();
  }

  /** Free workers take the waiting jobs; a worker left idle no longer keeps the process alive (a CLI command ends with its work). */
  function pump() {
    for (const slot of slots) {
      if (!slot.ready || slot.running) continue;
      if (queue.length > 0) dispatch(slot, queue.shift()!);
      else slot.worker.unref();
    }
  }

  function dispatch(slot: Slot, job: Job) {
    slot.worker.ref();
    const { port1, port2 } = new MessageChannel();
    const spool = join(spoolDir!, String(++jobNumber));
    slot.running = { job, port: port1, spool, reader: null, settled: false };
    port1.on('message', (message: JobMessage) => settle(slot, message));
    const request: JobRequest = { type: 'job', kind: job.kind, input: job.input, port: port2, spool };
    slot.worker.postMessage(request, [port2]);
  }

  /** A message of the running job: its result, its file growing, its progress, its end or its failure. */
  function settle(slot: Slot, message: JobMessage) {
    const running = slot.running;
    if (!running) return;
    const { job } = running;
    switch (message.type) {
      case 'result': {
        running.settled = true;
        const cancel = () => running.port.postMessage({ type: 'cancel' } satisfies CancelJob);
        running.reader = message.streaming ? new SpoolReader(running.spool, cancel) : null;
        job.resolve({ value: message.value, stream: running.reader });
        if (message.streaming) return;
        break;
      }
      case 'written':
        running.reader?.grow(message.bytes);
        return;
      case 'progress':
        job.onProgress?.(message.value);
        return;
      case 'end':
        running.reader?.finish();
        break;
      case 'error': {
        const error = reviveError(message.error);
        if (running.settled) running.reader?.fail(error);
        else job.reject(error);
        break;
      }
    }
    // The job is over: its file is gone with the reader (or never made), the worker takes the next one.
    if (!running.reader) void rm(running.spool, { force: true });
    running.port.close();
    slot.running = null;
    pump();
  }

  return {
    start: ensureWorkers,

    run(kind, input, runOptions = {}) {
      if (closed) return Promise.reject(new Error('The worker pool is closed'));
      const running = [...slots].filter((s) => s.running).length;
      if (running + queue.length >= size + queueLimit) return Promise.reject(busy());
      return new Promise((resolve, reject) => {
        queue.push({ kind, input, onProgress: runOptions.onProgress, resolve, reject });
        ensureWorkers();
        pump();
      });
    },

    stats: () => ({ workers: slots.size, running: [...slots].filter((s) => s.running).length, queued: queue.length }),

    async close() {
      if (closed) return;
      closed = true;
      for (const job of queue.splice(0)) job.reject(busy());
      const stopping = [...slots].map(async (slot) => {
        // Referenced again while it stops: the process must not exit before the worker has closed its connections.
        slot.worker.ref();
        // One still starting has no job and would only hear `close` once its modules are loaded.
        if (slot.ready) slot.worker.postMessage({ type: 'close' } satisfies CloseRequest);
        else void slot.worker.terminate();
        const late = setTimeout(() => void slot.worker.terminate(), CLOSE_GRACE_MS);
        await slot.exited;
        clearTimeout(late);
        if (slot.running) settle(slot, { type: 'error', error: { message: 'The server is shutting down' } });
      });
      await Promise.all(stopping);
      if (spoolDir) rmSync(spoolDir, { recursive: true, force: true });
    },
  };
}
