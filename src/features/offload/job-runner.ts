import { type FileHandle, open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { parentPort } from 'node:worker_threads';
import { ownsWholeBuffer } from '../../shared/bytes.js';
import { type CancelJob, type CloseRequest, type JobMessage, type JobRequest, serializeError } from './job-protocol.js';

/** What a handler may do while it runs. */
export interface JobContext {
  /** Passed on to the caller's `onProgress` (e.g. a report's pages done). */
  progress(value: unknown): void;
}

/** A job's answer: a value (plain data: it crosses threads), and for a file the stream of its bytes. */
export interface JobOutput {
  value: unknown;
  stream?: Readable;
}

export type JobHandler = (input: any, job: JobContext) => Promise<JobOutput>;

/** What a worker module's `createJobs(data)` gives the runner: its handlers by kind, and how to close its connections. */
export interface Jobs {
  handlers: Record<string, JobHandler>;
  close(): Promise<void>;
}

/** At most this much of a stream is gathered before it is written to the spool file. */
const WRITE_BYTES = 64 * 1024;

/**
 * The stream written to the spool file in batches: whatever the stream holds once it has nothing more to
 * give right now (so the first bytes reach the reader at once), at most WRITE_BYTES at a time. `written`
 * is told the file's length after every write: the reader on the main thread reads up to there.
 */
async function spool(stream: Readable, file: FileHandle, written: (bytes: number) => void) {
  let batch: Buffer[] = [];
  let size = 0;
  let total = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    batch.push(buffer);
    size += buffer.length;
    if (size < WRITE_BYTES && stream.readableLength > 0) continue;
    await file.write(batch.length === 1 ? batch[0]! : Buffer.concat(batch, size));
    total += size;
    batch = [];
    size = 0;
    written(total);
  }
}

/**
 * The bytes of a value (a tree's JSON, ~1 MB, and its deflated copy) that own their buffer move to the main thread
 * rather than being copied there: one megabyte less to allocate and free per tree on the main thread
 * (docs/performance.md, "Issue 31: server RSS"). A slice of a larger buffer (Node's pool) is copied as before. The
 * value itself, or the byte arrays among its properties and theirs.
 */
function transferable(value: unknown, depth = 0): ArrayBuffer[] {
  if (value instanceof Uint8Array) return value.buffer instanceof ArrayBuffer && ownsWholeBuffer(value) ? [value.buffer] : [];
  if (depth > 1 || typeof value !== 'object' || value === null) return [];
  return [...new Set(Object.values(value).flatMap((field) => transferable(field, depth + 1)))];
}

/**
 * The worker thread's side of features/offload: runs the jobs the pool sends, side by side (the pool bounds how
 * many of each lane), and answers on each job's port. A stream is written to the job's spool file as it comes (worker-pool.ts reads it as it
 * grows, and says why a file). Started by worker-bootstrap.mjs with the worker module's jobs.
 */
export function runJobs(jobs: Jobs): void {
  const parent = parentPort;
  if (!parent) throw new Error('runJobs() runs in a worker thread');
  /** The running jobs' cancels. */
  const cancels = new Set<() => void>();
  let closing = false;

  async function run({ kind, input, port, spool: path }: JobRequest) {
    const send = (message: JobMessage, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
    let cancelled = false;
    let stream: Readable | undefined;
    const cancel = () => {
      cancelled = true;
      stream?.destroy();
    };
    cancels.add(cancel);
    port.on('message', (message: CancelJob) => message.type === 'cancel' && cancel());
    try {
      const handler = jobs.handlers[kind];
      if (!handler) throw new Error(`this worker has no job "${kind}"`);
      const output = await handler(input, { progress: (value) => send({ type: 'progress', value }) });
      stream = output.stream;
      if (!stream) {
        send({ type: 'result', value: output.value, streaming: false }, transferable(output.value));
        return;
      }
      const file = await open(path, 'wx', 0o600);
      try {
        send({ type: 'result', value: output.value, streaming: true });
        if (cancelled) stream.destroy();
        await spool(stream, file, (bytes) => send({ type: 'written', bytes }));
      } finally {
        await file.close();
      }
      send({ type: 'end' });
    } catch (err) {
      // A stream cancelled by its reader ends with a premature-close error nobody waits for; one cut short by
      // the pool's close must not look complete.
      if (closing) send({ type: 'error', error: { message: 'The server is shutting down' } });
      else send(cancelled ? { type: 'end' } : { type: 'error', error: serializeError(err) });
    } finally {
      cancels.delete(cancel);
      port.close();
    }
  }

  parent.on('message', (message: JobRequest | CloseRequest) => {
    if (message.type === 'job') {
      void run(message);
      return;
    }
    closing = true;
    for (const cancel of cancels) cancel();
    // process.exit() in a worker ends this thread only; it also ends whatever the connections left behind.
    jobs.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
  parent.postMessage({ type: 'ready' });
}
