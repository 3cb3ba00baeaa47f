import type { Config } from '../../shared/config.js';
import type { JobLane } from './worker-pool.js';

/**
 * Reports per thread at once. A report holds a page of details, its thumbnails and PDFKit's buffers (tens of
 * MB) for up to a minute: more at once would grow the thread's heap rather than finish sooner.
 */
const REPORTS_PER_THREAD = 1;
/**
 * Trees and searches per thread at once, beside a report: each is a few to tens of ms, between the report's
 * awaits. Four is the worker's PostgreSQL pool (src/composition/offload-worker.ts); SQLite reads run one after another anyway.
 */
const READS_PER_THREAD = 4;

/** The lanes of the server's worker pool (docs/decisions.md, "Work off the event loop"): the first is the default. */
export function offloadLanes(config: Pick<Config, 'workerQueueLimit' | 'readQueueLimit'>) {
  return {
    reports: {
      perWorker: REPORTS_PER_THREAD,
      queueLimit: config.workerQueueLimit,
      retryAfterSeconds: 10,
      jobsName: 'reports',
    },
    reads: {
      perWorker: READS_PER_THREAD,
      queueLimit: config.readQueueLimit,
      retryAfterSeconds: 1,
      jobsName: 'project trees and searches',
    },
  } satisfies Record<string, JobLane>;
}

export type OffloadLane = keyof ReturnType<typeof offloadLanes>;
