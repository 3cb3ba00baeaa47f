import { mkdtempSync, rmSync } from 'node:fs';
import { type FileHandle, open, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import { ApiError } from '../../shared/errors.js';
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

/** A kind of work in the pool, with its own limits and queue (docs/decisions.md, "Work off the event loop"). */
export interface JobLane {
  /**
   * Jobs of this lane one thread runs at once. A thread runs jobs of every lane side by side: a job is mostly
   * awaits (the database, sharp in libuv's threads, the spool file), and the others run between them.
   */
  perWorker: number;
  /** Jobs of this lane that may wait beyond those running; one more is refused with 503. */
  queueLimit: number;
  /** The Retry-After of the 503, s (about what a job of the lane takes). */
  retryAfterSeconds: number;
  /** What the lane's jobs are, for the 503's message. */
  jobsName: string;
}

interface WorkerPoolOptions {
  /** The worker module (TypeScript): exports `createJobs(data): Promise<Jobs>` (job-runner.ts). */
  entry: URL;
  /** Worker threads (WORKER_THREADS). */
  size: number;
  /** The lanes by name; a job names its lane (`run`'s `lane`), the first by default. */
  lanes: Record<string, JobLane>;
  /** Given to the worker module's createJobs (plain data: it is copied into each thread). */
  data?: unknown;
  /** The cap of each worker's old generation, MB (default 128). */
  heapMb?: number;
  /** A worker that crashed or could not start (it is replaced at the next job). */
  onError?: (message: string) => void;
}

export interface JobResult<T> {
  value: T;
  /** The bytes of a job that produces a file, as the worker writes them; null for a job that gives a value only. */
  stream: Readable | null;
}

export interface RunOptions {
  /** The job's lane (default: the pool's first). */
  lane?: string;
  onProgress?: (value: any) => void;
}

export interface WorkerPool {
  /** Starts the workers now rather than at the first job (the server: its first report then waits for no start-up). */
  start(): void;
  /**
   * Runs a job on the least busy worker with room in the job's lane, or queues it; refused at once with 503
   * `service_unavailable` and the lane's Retry-After when the lane's queue is full. Resolves with the job's
   * value; its stream may still be growing.
   */
  run<T>(kind: string, input: unknown, options?: RunOptions): Promise<JobResult<T>>;
  /** Workers alive, jobs running (their stream included) and waiting: in all lanes, or in one. */
  stats(lane?: string): { workers: number; running: number; queued: number };
  /** Refuses new jobs, fails the waiting ones, stops the workers (the running jobs are cancelled) and removes the spool folder. */
  close(): Promise<void>;
}

interface Job {
  lane: string;
  kind: string;
  input: unknown;
  onProgress?: (value: any) => void;
  resolve(result: JobResult<any>): void;
  reject(error: Error): void;
}

interface Running {
  job: Job;
  port: MessagePort;
  spool: string;
  reader: SpoolReader | null;
  settled: boolean;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  exited: Promise<void>;
  running: Set<Running>;
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
 * A fixed number of worker threads (one by default) that run heavy reads off the event loop (STYLE.md habit
 * 14, docs/design.md §10), with a bounded queue per lane in front. Each worker opens its own connections (the
 * worker module's createJobs) and runs several jobs at once, at most `perWorker` of each lane. A worker that
 * crashes fails its jobs with a clear error and is replaced; one that cannot start fails the jobs waiting for
 * it, and the next job tries again.
 */
export function createWorkerPool(options: WorkerPoolOptions): WorkerPool {
  const { size, lanes } = options;
  const laneNames = Object.keys(lanes);
  if (laneNames.length === 0) throw new Error('A worker pool needs at least one lane');
  const slots = new Set<Slot>();
  const queues = new Map<string, Job[]>(laneNames.map((name) => [name, []]));
  let spoolDir: string | null = null;
  let jobNumber = 0;
  let closed = false;

  const busy = (lane: JobLane) =>
    new ApiError(
      503,
      'service_unavailable',
      `The server is busy with other long requests (${lane.jobsName}); retry in ${lane.retryAfterSeconds} s`,
      undefined,
      {
        'retry-after': String(lane.retryAfterSeconds),
      },
    );
  const runningIn = (slot: Slot, lane: string) => [...slot.running].filter((r) => r.job.lane === lane).length;
  const running = (lane?: string) =>
    [...slots].reduce((n, slot) => n + (lane === undefined ? slot.running.size : runningIn(slot, lane)), 0);
  const queued = (lane?: string) =>
    lane === undefined ? [...queues.values()].reduce((n, q) => n + q.length, 0) : (queues.get(lane)?.length ?? 0);

  function spawn() {
    // The spool folder is made with the first worker: a context built for a CLI command that runs no job makes none.
    spoolDir ??= mkdtempSync(join(tmpdir(), 'punchlist-spool-'));
    const worker = new Worker(BOOTSTRAP, {
      workerData: { entry: options.entry.href, data: options.data },
      resourceLimits: { maxOldGenerationSizeMb: options.heapMb ?? WORKER_HEAP_MB, maxYoungGenerationSizeMb: WORKER_YOUNG_MB },
    });
    const slot: Slot = { worker, ready: false, running: new Set(), exited: new Promise((resolve) => worker.once('exit', () => resolve())) };
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
      if (slot.running.size > 0) {
        // Its jobs shared the thread: all of them fail, each with the reason.
        const kinds = [...new Set([...slot.running].map((r) => `"${r.job.kind}"`))].join(', ');
        options.onError?.(`a worker thread crashed running ${kinds} jobs: ${reason}; it is replaced`);
        for (const r of [...slot.running])
          settle(slot, r, { type: 'error', error: { message: `The worker thread running this ${r.job.kind} crashed (${reason})` } });
      } else if (!slot.ready) {
        // It never started (a module or the database would not open): another would fail alike. The jobs
        // fail unless a worker is ready for them; the next job tries again.
        options.onError?.(`a worker thread could not start: ${reason}`);
        if (![...slots].some((s) => s.ready))
          for (const queue of queues.values())
            for (const job of queue.splice(0)) job.reject(new Error(`No worker thread could start: ${reason}`));
        return;
      }
      ensureWorkers();
    });
  }

  function ensureWorkers() {
    while (!closed && slots.size < size) spawn();
  }

  /** The ready worker with room in the lane that runs the fewest jobs. */
  function freeSlot(lane: string): Slot | null {
    let best: Slot | null = null;
    for (const slot of slots) {
      if (!slot.ready || runningIn(slot, lane) >= lanes[lane]!.perWorker) continue;
      if (!best || slot.running.size < best.running.size) best = slot;
    }
    return best;
  }

  /** Workers with room take the waiting jobs; a worker left idle no longer keeps the process alive (a CLI command ends with its work). */
  function pump() {
    for (const [lane, queue] of queues) {
      for (let slot = freeSlot(lane); slot && queue.length > 0; slot = freeSlot(lane)) dispatch(slot, queue.shift()!);
    }
    for (const slot of slots) if (slot.ready && slot.running.size === 0) slot.worker.unref();
  }

  function dispatch(slot: Slot, job: Job) {
    slot.worker.ref();
    const { port1, port2 } = new MessageChannel();
    const spool = join(spoolDir!, String(++jobNumber));
    const running: Running = { job, port: port1, spool, reader: null, settled: false };
    slot.running.add(running);
    port1.on('message', (message: JobMessage) => settle(slot, running, message));
    const request: JobRequest = { type: 'job', kind: job.kind, input: job.input, port: port2, spool };
    slot.worker.postMessage(request, [port2]);
  }

  /** A message of a running job: its result, its file growing, its progress, its end or its failure. */
  function settle(slot: Slot, running: Running, message: JobMessage) {
    if (!slot.running.has(running)) return;
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
    // The job is over: its file is gone with the reader (or never made), the worker has room for the next one.
    if (!running.reader) void rm(running.spool, { force: true });
    running.port.close();
    slot.running.delete(running);
    pump();
  }

  return {
    start: ensureWorkers,

    run(kind, input, runOptions = {}) {
      if (closed) return Promise.reject(new Error('The worker pool is closed'));
      const laneName = runOptions.lane ?? laneNames[0]!;
      const lane = lanes[laneName];
      if (!lane) return Promise.reject(new Error(`This worker pool has no lane "${laneName}"`));
      if (running(laneName) + queued(laneName) >= size * lane.perWorker + lane.queueLimit) return Promise.reject(busy(lane));
      return new Promise((resolve, reject) => {
        queues.get(laneName)!.push({ lane: laneName, kind, input, onProgress: runOptions.onProgress, resolve, reject });
        ensureWorkers();
        pump();
      });
    },

    stats: (lane) => ({ workers: slots.size, running: running(lane), queued: queued(lane) }),

    async close() {
      if (closed) return;
      closed = true;
      for (const [lane, queue] of queues) for (const job of queue.splice(0)) job.reject(busy(lanes[lane]!));
      const stopping = [...slots].map(async (slot) => {
        // Referenced again while it stops: the process must not exit before the worker has closed its connections.
        slot.worker.ref();
        // One still starting has no job and would only hear `close` once its modules are loaded.
        if (slot.ready) slot.worker.postMessage({ type: 'close' } satisfies CloseRequest);
        else void slot.worker.terminate();
        const late = setTimeout(() => void slot.worker.terminate(), CLOSE_GRACE_MS);
        await slot.exited;
        clearTimeout(late);
        for (const r of [...slot.running]) settle(slot, r, { type: 'error', error: { message: 'The server is shutting down' } });
      });
      await Promise.all(stopping);
      if (spoolDir) rmSync(spoolDir, { recursive: true, force: true });
    },
  };
}
