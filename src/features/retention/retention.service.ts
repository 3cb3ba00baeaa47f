import type { Clock } from '../../shared/clock.js';
import type { JobDefinition } from '../../jobs/job-runner.js';
import type { ExpiringRows, RetentionRepository } from './retention.repository.js';

/**
 * Retention: rows past their keeping time are deleted in the background on every node, in bounded
 * batches: one statement deletes at most `batchSize` rows (a few milliseconds of the database), then the
 * job pauses so that requests go first. Several nodes may run it at once (retention.repository.ts).
 */

/** One kind of row that expires: the rows of `table` whose `column` (an ISO time) is at or before the cutoff. */
interface RetentionRule extends ExpiringRows {
  name: string;
  /** Rows whose `column` is older than this are deleted; 0: as soon as `column` is past. */
  maxAgeMs: number;
}

const DAY_MS = 86_400_000;

/**
 * What expires. Each table's `column` is indexed (migrations 001, 003, 007, 009 and 011).
 */
export function retentionRules(options: {
  auditRetentionDays: number;
  eventRetentionDays: number;
  notificationRetentionDays?: number;
}): RetentionRule[] {
  const rules: RetentionRule[] = [
    // expires_at is 24 h after the key's first use (idempotency.service.ts); reserve() already ignores expired rows.
    { name: 'idempotency_keys', table: 'idempotency_keys', key: ['token_id', 'key', 'method', 'path'], column: 'expires_at', maxAgeMs: 0 },
    { name: 'web_sessions', table: 'web_sessions', key: ['id'], column: 'expires_at', maxAgeMs: 0 },
    // The change feed (docs/design.md §11): a reader whose cursor is older than this misses what was dropped.
    { name: 'events', table: 'events', key: ['id'], column: 'at', maxAgeMs: options.eventRetentionDays * DAY_MS },
    // OAuth codes live 60 s; kept a day after that so that a late second use still ends its grant (009).
    { name: 'oauth_codes', table: 'oauth_codes', key: ['id'], column: 'expires_at', maxAgeMs: DAY_MS },
    // A used refresh token only serves to notice its replay (which ends the grant); after 30 days a replay
    // is refused as an unknown token instead. Each refresh leaves one, so they would grow without end.
    { name: 'oauth_refresh_tokens', table: 'oauth_refresh_tokens', key: ['id'], column: 'used_at', maxAgeMs: 30 * DAY_MS },
    // Registration is open (RFC 7591): a client that no user allowed within 7 days is dropped; once allowed,
    // it stays with its grants, revoked ones included (migration 011).
    {
      name: 'oauth_clients',
      table: 'oauth_clients',
      key: ['id'],
      column: 'created_at',
      maxAgeMs: 7 * DAY_MS,
      keptIfReferencedBy: { table: 'oauth_grants', column: 'client_id' },
    },
  ];
  // Read notifications (docs/design.md §15) after NOTIFICATION_RETENTION_DAYS; unread ones stay. Emails that reached an
  // end go after the same time (migration 014).
  const notificationDays = options.notificationRetentionDays ?? 90;
  rules.push(
    { name: 'notifications', table: 'notifications', key: ['id'], column: 'read_at', maxAgeMs: notificationDays * DAY_MS },
    { name: 'notification_emails', table: 'notification_emails', key: ['id'], column: 'finished_at', maxAgeMs: notificationDays * DAY_MS },
  );
  if (options.auditRetentionDays > 0) {
    rules.unshift({ name: 'audit_log', table: 'audit_log', key: ['id'], column: 'at', maxAgeMs: options.auditRetentionDays * DAY_MS });
  }
  return rules;
}

export interface RetentionOptions {
  /** Rows per DELETE statement. */
  batchSize?: number;
  /** Pause between two batches of one rule. */
  pauseMs?: number;
  /** Called after each batch (logs, tests). */
  onBatch?: (rule: string, deleted: number, ms: number) => void;
}

type RetentionResult = Record<string, number>;

export function createRetention(deps: { repo: RetentionRepository; clock: Clock; rules: RetentionRule[] }, options: RetentionOptions = {}) {
  const batchSize = options.batchSize ?? 500;
  const pauseMs = options.pauseMs ?? 50;
  let running: Promise<RetentionResult> | null = null;

  /** Deletes one batch of the rule's expired rows; returns how many went. */
  async function deleteBatch(rule: RetentionRule, cutoff: string): Promise<number> {
    const started = performance.now();
    const deleted = await deps.repo.deleteExpired(rule, cutoff, batchSize);
    options.onBatch?.(rule.name, deleted, performance.now() - started);
    return deleted;
  }

  async function runAll(stopping: () => boolean): Promise<RetentionResult> {
    const now = deps.clock.now().getTime();
    const result: RetentionResult = {};
    for (const rule of deps.rules) {
      const cutoff = new Date(now - rule.maxAgeMs).toISOString();
      result[rule.name] = 0;
      for (;;) {
        const deleted = await deleteBatch(rule, cutoff);
        result[rule.name]! += deleted;
        if (deleted < batchSize || stopping()) break;
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
      }
    }
    return result;
  }

  return {
    /** One pass over every rule, until no expired row is left (or `stopping()`: the batch under way ends it). */
    runOnce(stopping: () => boolean = () => false): Promise<RetentionResult> {
      running ??= runAll(stopping).finally(() => (running = null));
      return running;
    },
  };
}

export type Retention = ReturnType<typeof createRetention>;

/**
 * Retention as a job of the runner (src/jobs), on every node: a pass every `everyMs`, the first after
 * `firstAfterMs`; a failed pass is retried with the runner's backoff. `onRun` hears what each pass deleted.
 */
export function retentionJob(
  retention: Retention,
  schedule: { everyMs: number; firstAfterMs: number; onRun?: (result: RetentionResult) => void },
): JobDefinition {
  return {
    name: 'retention',
    run: async (run) => {
      const result = await retention.runOnce(run.stopping);
      schedule.onRun?.(result);
    },
    everyMs: schedule.everyMs,
    firstAfterMs: schedule.firstAfterMs,
  };
}
