import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase, testDialect } from '../../test/helpers/database.js';
import { type Db, openDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { createMetrics } from '../metrics/prometheus.js';
import type { Clock } from '../shared/clock.js';
import { createJobRunner, type JobDefinition, type JobRunner, retryDelay } from './job-runner.js';
import { createJobStore } from './job-store.js';

/** Two nodes on one database: each its own connection, store and runner; the leases' time is `now`. */
let dir: string;
let database: TestDatabase;
let nodes: Db[];
let now: number;
const clock: Clock = { now: () => new Date(now) };
const errors: unknown[] = [];

function runnerOn(db: Db): JobRunner {
  return createJobRunner({ store: createJobStore(db.kysely), clock, onError: (err) => errors.push(err) });
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(condition: () => boolean, what: string): Promise<void> {
  for (const started = Date.now(); !condition(); await wait(5)) if (Date.now() - started > 10_000) throw new Error(`never: ${what}`);
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'punchlist-jobs-'));
  database = await createTestDatabase(dir, testDialect(), { migrated: true });
  nodes = [openDatabase(database.url), openDatabase(database.url)];
  await migrateToLatest(nodes[0]!.kysely);
  now = Date.parse('2026-03-01T12:00:00Z');
  errors.length = 0;
});

afterEach(async () => {
  await Promise.all(nodes.map((db) => db.close()));
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the job runner', () => {
  it('gives a leased job to one of two runners, moves its cursor only under the lease, and hands it over once released', async () => {
    const ran: string[] = [];
    /** A job that moves its cursor by one per run, in a transaction, as an outbox consumer does. */
    const counting = (node: string): JobDefinition => ({
      name: 'counting',
      everyMs: 60_000,
      lease: { ms: 30_000, startCursor: async () => 10 },
      run: async (run) => {
        ran.push(`${node}@${run.cursor}`);
        const moved = await run.transaction((trx) => run.advance(trx, run.cursor + 1));
        return { backlog: moved ? 0 : 1 };
      },
    });
    const [a, b] = nodes.map(runnerOn) as [JobRunner, JobRunner];
    const jobA = a.job(counting('a'));
    const jobB = b.job(counting('b'));
    await jobA.drain();
    await jobB.drain(); // a holds the lease for 30 s: b does not run
    await jobA.drain();
    expect(ran).toEqual(['a@10', 'a@11']);
    expect(await a.store.cursor('counting')).toBe(12);

    // a's lease ran out: b takes it, and a's cursor move under its old lease is refused.
    now += 31_000;
    await jobB.drain();
    const stale = await a.store.transaction((trx) => a.store.advance(trx, 'counting', 'not-the-holder', 13, 99));
    expect(stale).toBe(false);
    expect(ran.at(-1)).toBe('b@12');
    await jobA.drain();
    expect(ran.at(-1)).toBe('b@12'); // b's lease now

    // Stopping gives the lease back: a runs at once.
    await jobB.stop();
    await jobA.drain();
    expect(ran).toEqual(['a@10', 'a@11', 'b@12', 'a@13']);
    expect(await b.store.cursor('counting')).toBe(14);
    await Promise.all([a.stop(), b.stop()]);
    expect(errors).toEqual([]);
  });

  it('retries a failed run with backoff, then counts the runs, failures, lag and last run in the metrics', async () => {
    const attempts: number[] = [];
    const runner = runnerOn(nodes[0]!);
    const job = runner.job({
      name: 'flaky',
      // Far away: only the backoff's retries can run it again within the test.
      everyMs: 60_000,
      retry: { baseMs: 40, maxMs: 1000 },
      run: async () => {
        attempts.push(performance.now());
        if (attempts.length <= 3) throw new Error(`failure ${attempts.length}`);
        return { backlog: 7 };
      },
    });
    const metrics = createMetrics({ auditQueueDepth: () => 0, webhookDeliveriesPending: () => 0, jobs: () => runner.stats() });
    runner.start();
    await until(() => attempts.length === 4 && job.stats().runs === 1, 'four attempts');
    const gaps = attempts.slice(1).map((at, i) => at - attempts[i]!);
    // 40, 80, 160 ms (timers may fire a millisecond early; never much sooner).
    expect(gaps.map((gap, i) => gap >= retryDelay({ baseMs: 40, maxMs: 1000 }, i + 1) - 2)).toEqual([true, true, true]);
    expect(gaps[2]!).toBeGreaterThan(gaps[0]! + 60);
    expect(errors.map(String)).toEqual(['Error: failure 1', 'Error: failure 2', 'Error: failure 3']);
    expect(job.stats()).toMatchObject({ name: 'flaky', runs: 1, failures: 3, consecutiveFailures: 0, backlog: 7 });
    expect(retryDelay({ baseMs: 40, maxMs: 1000 }, 10)).toBe(1000);

    const { body } = await metrics.render();
    expect(body).toContain('punchlist_job_runs_total{job="flaky"} 1');
    expect(body).toContain('punchlist_job_failures_total{job="flaky"} 3');
    expect(body).toContain('punchlist_job_lag{job="flaky"} 7');
    const lastRun = /punchlist_job_last_run_timestamp_seconds\{job="flaky"\} (\S+)/.exec(body)?.[1];
    expect(Math.abs(Number(lastRun) - Date.now() / 1000)).toBeLessThan(10);
    await runner.stop();
  });

  it('on stop, lets the run under way end its batch, runs onStop after it, then gives the lease back', async () => {
    const runner = runnerOn(nodes[0]!);
    const events: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let batches = 0;
    runner.job({
      name: 'batches',
      everyMs: 60_000,
      lease: { ms: 30_000, startCursor: async () => 0 },
      run: async (run) => {
        batches++;
        events.push(`batch ${batches}`);
        if (batches === 2) await gate;
        await run.transaction((trx) => run.advance(trx, run.cursor + 1));
        // Always more: only stopping ends the loop.
        return { more: !run.stopping() };
      },
      onStop: () => void events.push('onStop'),
    });
    runner.start();
    await until(() => batches === 2, 'the second batch');
    let stopped = false;
    const stopping = runner.stop().then(() => (stopped = true));
    await wait(50);
    expect(stopped).toBe(false); // the batch in hand is not cut off
    release();
    await stopping;
    expect(events).toEqual(['batch 1', 'batch 2', 'onStop']);
    expect(await runner.store.cursor('batches')).toBe(2);
    const row = await nodes[0]!.kysely.selectFrom('outbox_consumers').selectAll().where('name', '=', 'batches').executeTakeFirstOrThrow();
    expect(row.holder).toBeNull();
    // Stopped: a wake-up runs nothing, but drain() still runs until idle (tests, the CLI) and throws what failed.
    runner.get('batches')!.wake();
    await wait(20);
    expect(batches).toBe(2);
    expect(errors).toEqual([]);
  });

  it('drains a job until no run says more, and throws a failed run to the caller', async () => {
    const runner = runnerOn(nodes[0]!);
    let left = 5;
    const job = runner.job({ name: 'queue', everyMs: 60_000, run: async () => ({ more: --left > 0, backlog: left }) });
    const broken = runner.job({
      name: 'broken',
      everyMs: 60_000,
      run: async () => {
        throw new Error('broken');
      },
    });
    await job.drain();
    expect(left).toBe(0);
    expect(job.stats().backlog).toBe(0);
    await expect(broken.drain()).rejects.toThrow('broken');
    expect(broken.stats().failures).toBe(1);
    expect(() => runner.job({ name: 'queue', everyMs: 1, run: async () => {} })).toThrow(/exists already/);
    await runner.stop();
  });
});
