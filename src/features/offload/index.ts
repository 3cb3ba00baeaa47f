/**
 * The worker pool (STYLE.md 14: CPU-heavy reads off the event loop) as one module. The serving process makes the
 * pool (`createOffloadPool`) and reads through it (`createOffloadModule`); each worker thread composes the same
 * modules on its own read-only connections (src/composition/offload-worker.ts) and runs them as `readJobs`.
 */
import type { Clock } from '../../shared/clock.js';
import { type Config, workerConfig } from '../../shared/config.js';
import { offloadLanes } from './lanes.js';
import { createOffloadedReads } from './offloaded-reads.js';
import { createWorkerPool, type WorkerPool } from './worker-pool.js';

/** The server's pool: `entry` is the worker threads' composition root, given the worker's part of the config. */
export function createOffloadPool(deps: { config: Config; entry: URL; onError: (message: string) => void }) {
  return createWorkerPool({
    entry: deps.entry,
    size: deps.config.workerThreads,
    lanes: offloadLanes(deps.config),
    data: workerConfig(deps.config),
    onError: deps.onError,
  });
}

export function createOffloadModule(deps: { pool: WorkerPool; clock: Clock }) {
  return { offloadedReads: createOffloadedReads(deps.pool, deps.clock) };
}

export type OffloadModule = ReturnType<typeof createOffloadModule>;

export { readJobs } from './offloaded-reads.js';
export type { JobHandler, Jobs } from './job-runner.js';
export type { WorkerPool };
