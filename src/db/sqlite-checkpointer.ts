import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * WAL checkpoints of a SQLite file, run by a second connection on a worker thread. A checkpoint
 * copies the WAL back into the database file and fsyncs both; left to SQLite's automatic checkpoint,
 * it runs inside whichever commit crosses the threshold, on the event loop: every ~100 item writes one
 * request waited for two fsyncs (a comment transaction cost 215 µs with automatic checkpoints, 90 µs
 * without the fsyncs; docs/performance.md). PASSIVE checkpoints never block the writer or the readers.
 *
 * The main connection keeps a high automatic threshold as a safety net should this thread fall behind.
 * Durability is unchanged: with `synchronous = NORMAL` commits were never fsynced, checkpoints are.
 */
interface Checkpointer {
  close(): Promise<void>;
}

// Plain CommonJS for the worker: it must not depend on the TypeScript loader of the main thread.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 100');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
let busy = false;
const timer = setInterval(() => {
  if (busy) return;
  busy = true;
  try { checkpoint.get(); } catch (err) { parentPort.postMessage(String(err && err.message || err)); }
  busy = false;
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export function startCheckpointer(file: string, options: { intervalMs?: number; onError?: (message: string) => void } = {}): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER, { eval: true, workerData: { file, driver, intervalMs: options.intervalMs ?? 200 } });
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('message', (message: string) => options.onError?.(message));
  // A worker that cannot start (or dies) leaves checkpoints to SQLite's automatic ones: slower, still correct.
  worker.on('error', (err) => options.onError?.(err.message));
  return {
    async close() {
      // Referenced again while it stops: otherwise a process with nothing else to do would exit before
      // the worker does, and never come back to whoever awaits close().
      worker.ref();
      worker.postMessage('close');
      await exited;
    },
  };
}
