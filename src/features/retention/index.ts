/**
 * Retention (docs/operations.md, "Retention") as one module: the expired rows deleted in the background on every
 * node, a job of the runner.
 */
import type { Db } from '../../db/database.js';
import type { JobRunner } from '../../jobs/job-runner.js';
import type { Clock } from '../../shared/clock.js';
import { createRetentionRepository } from './retention.repository.js';
import { createRetention, retentionJob, retentionRules } from './retention.service.js';

/** How often each node deletes expired rows. */
const RETENTION_INTERVAL_MS = 60 * 60 * 1000;

export interface RetentionModuleDeps {
  db: Db;
  clock: Clock;
  jobs: Pick<JobRunner, 'job'>;
  /** How long audit records, events and notifications are kept (the config's). */
  keep: Parameters<typeof retentionRules>[0];
}

export function createRetentionModule(deps: RetentionModuleDeps) {
  const retention = createRetention({ repo: createRetentionRepository(deps.db), clock: deps.clock, rules: retentionRules(deps.keep) });
  deps.jobs.job(
    retentionJob(retention, {
      everyMs: RETENTION_INTERVAL_MS,
      // The first pass a minute or two after start, staggered so that nodes started together spread out.
      firstAfterMs: 60_000 + Math.random() * 60_000,
      onRun: (deleted) => {
        if (Object.values(deleted).some((n) => n > 0))
          process.stdout.write(`${JSON.stringify({ level: 30, time: Date.now(), msg: 'retention: expired rows deleted', deleted })}\n`);
      },
    }),
  );
  return { retention };
}

export type RetentionModule = ReturnType<typeof createRetentionModule>;
