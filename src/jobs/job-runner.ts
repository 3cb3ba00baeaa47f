import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../shared/clock.js';
import type { Database } from '../db/tables.js';
import type { JobStore } from './job-store.js';

/** What a run of a job is given. */
export interface JobRun {
  /** The job's cursor, held with its lease (a job with `lease`); 0 for a job that every node runs. */
  readonly cursor: number;
  /** Moves the cursor from `cursor` to `to` in `trx`, only while this node holds the lease: false once it was lost. */
  advance(trx: Kysely<Database>, to: number): Promise<boolean>;
  transaction: JobStore['transaction'];
  /** True once the job is stopping: a long run ends the batch in hand and returns. */
  stopping(): boolean;
}

/** What a run says: `more`, run again at once (a full batch); `backlog`, the work still waiting (the lag metric). */
export interface JobOutcome {
  more?: boolean;
  backlog?: number;
}

/** A handler and when to run it: the only thing a feature writes to have background work. */
export interface JobDefinition {
  /** Unique among the jobs; the row of its lease and cursor, and the `job` label of its metrics. */
  name: string;
  run(run: JobRun): Promise<JobOutcome | void>;
  /** How often it runs when nothing woke it (other nodes' work, retries that came due). */
  everyMs: number;
  /** The first run after start (default at once). */
  firstAfterMs?: number;
  /**
   * One node at a time: the lease of the job's row, taken and renewed before each run for `ms`; `startCursor`
   * gives the cursor when the row is made (the outbox's end: history tells nobody).
   */
  lease?: { ms: number; startCursor: () => Promise<number> };
  /** What asks for a run sooner (a commit on this node), `settleMs` later (default 200) so a busy moment is one run. */
  wakeOn?: (wake: () => void) => void;
  settleMs?: number;
  /** After failed runs, waits baseMs·2^(n−1) up to maxMs (default 1 s … 1 min) before running again. */
  retry?: { baseMs: number; maxMs: number };
  /** Whether the runner's start() starts it (default true): a node with NOTIFICATIONS=off leaves those off. */
  enabled?: boolean;
  /** After the last run, when stopping (deliveries still under way, the mailer). */
  onStop?: () => Promise<void> | void;
}

export interface JobStats {
  name: string;
  /** Runs that ended well, and runs that threw, on this node since it started. */
  runs: number;
  failures: number;
  /** Failures since the last run that ended well (what the backoff counts). */
  consecutiveFailures: number;
  /** When the last run ended (ms since the epoch), well or not; null before the first. */
  lastRunAt: number | null;
  /** The work waiting as of the last run that said (events, deliveries, emails, documents). */
  backlog: number;
}

/** The one shape of background work (STYLE.md 14). */
export interface Job {
  readonly name: string;
  readonly enabled: boolean;
  /** Runs it on its schedule and when woken; idempotent. */
  start(): void;
  /** Asks for a run now (one at a time: a wake-up during a run asks for one more after it). */
  wake(): void;
  /** Waits for the run under way, then runs until nothing is left, started or not; throws what a run threw (tests, the CLI). */
  drain(): Promise<void>;
  /** No new run; the one under way ends its batch; then `onStop` and the lease is given back. */
  stop(): Promise<void>;
  stats(): JobStats;
}

interface RunnerDeps {
  store: JobStore;
  /** The time of leases (a test's fixed clock moves them); timers and metrics use the real time. */
  clock: Clock;
  onError: (err: unknown, job: string) => void;
}

const DEFAULT_RETRY = { baseMs: 1000, maxMs: 60_000 };

export function retryDelay(retry: { baseMs: number; maxMs: number }, failures: number): number {
  return Math.min(retry.maxMs, retry.baseMs * 2 ** Math.max(0, failures - 1));
}

/** The job's own lease: who this node is, and whether its row exists yet. */
interface LeaseHolder {
  holder: string;
  ensured: boolean;
}

/** Runs until a run says there is no more (or the lease is another node's, or the job stops). */
async function untilIdle(def: JobDefinition, deps: RunnerDeps, lease: LeaseHolder, stopping: () => boolean): Promise<number | undefined> {
  const { store, clock } = deps;
  let backlog: number | undefined;
  while (!stopping()) {
    let cursor = 0;
    if (def.lease) {
      if (!lease.ensured) {
        await store.ensure(def.name, await def.lease.startCursor());
        lease.ensured = true;
      }
      const now = clock.now();
      const held = await store.lease(def.name, lease.holder, now.toISOString(), new Date(now.getTime() + def.lease.ms).toISOString());
      if (held === null) return backlog; // another node works
      cursor = held;
    }
    const outcome = await def.run({
      cursor,
      advance: (trx, to) => store.advance(trx, def.name, lease.holder, cursor, to),
      transaction: store.transaction,
      stopping,
    });
    if (outcome?.backlog !== undefined) backlog = outcome.backlog;
    if (!outcome?.more) return backlog;
  }
  return backlog;
}

/** When a job runs by itself: its first run, its poll, the settled wake-ups, the retry after a failure. */
function createSchedule(def: JobDefinition, wake: () => void) {
  const timers = { first: null as NodeJS.Timeout | null, poll: null as NodeJS.Timeout | null, settle: null as NodeJS.Timeout | null };
  let retry: NodeJS.Timeout | null = null;
  const later = (ms: number, then: () => void) => {
    const timer = setTimeout(then, ms);
    timer.unref();
    return timer;
  };
  const poll = () => {
    // The poll is for what this node is not told of: while a wake-up has a run coming, it adds none.
    timers.poll = setInterval(() => {
      if (!timers.settle) wake();
    }, def.everyMs);
    timers.poll.unref();
    wake();
  };
  return {
    begin(): void {
      if (!def.firstAfterMs) return poll();
      timers.first = later(def.firstAfterMs, () => {
        timers.first = null;
        poll();
      });
    },
    /** A wake-up from `wakeOn`: one run `settleMs` later for all the wake-ups of that time. */
    soon(): void {
      timers.settle ??= later(def.settleMs ?? 200, () => {
        timers.settle = null;
        wake();
      });
    },
    /** The retry comes at its time even when the job's own schedule is hours away (retention). */
    retryIn(ms: number): void {
      if (retry) clearTimeout(retry);
      retry = later(ms, () => {
        retry = null;
        wake();
      });
    },
    clear(): void {
      for (const timer of [timers.first, timers.poll, timers.settle, retry]) if (timer) clearTimeout(timer);
      timers.first = timers.poll = timers.settle = retry = null;
    },
  };
}

/** A job's readings on this node (the metrics). */
function createStats(name: string) {
  const stats: JobStats = { name, runs: 0, failures: 0, consecutiveFailures: 0, lastRunAt: null, backlog: 0 };
  return {
    succeeded(backlog: number | undefined): void {
      if (backlog !== undefined) stats.backlog = backlog;
      stats.runs++;
      stats.consecutiveFailures = 0;
      stats.lastRunAt = Date.now();
    },
    /** Counts a failed run; answers the failures in a row (what the backoff counts). */
    failed(): number {
      stats.failures++;
      stats.lastRunAt = Date.now();
      return ++stats.consecutiveFailures;
    },
    read: (): JobStats => ({ ...stats }),
  };
}

function createJob(def: JobDefinition, deps: RunnerDeps): Job {
  const retry = def.retry ?? DEFAULT_RETRY;
  const lease: LeaseHolder = { holder: randomUUID(), ensured: false };
  let stopped = true;
  let listening = false;
  let running: Promise<void> | null = null;
  let again = false;
  let retryAt = 0;
  const stats = createStats(def.name);
  const schedule = createSchedule(def, wake);

  async function measured(draining: boolean): Promise<void> {
    try {
      stats.succeeded(await untilIdle(def, deps, lease, () => stopped && !draining));
      retryAt = 0;
    } catch (err) {
      const wait = retryDelay(retry, stats.failed());
      retryAt = Date.now() + wait;
      schedule.retryIn(wait);
      throw err;
    }
  }

  /** One run at a time: `running` is the one under way, drain()'s included. */
  function begin(draining: boolean): Promise<void> {
    const run = measured(draining);
    running = run
      .catch((err: unknown) => {
        if (!draining) deps.onError(err, def.name);
      })
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          wake();
        }
      });
    return run;
  }

  function wake(): void {
    if (stopped || Date.now() < retryAt) return;
    if (running) {
      again = true;
      return;
    }
    void begin(false).catch(() => {});
  }

  return {
    name: def.name,
    enabled: def.enabled ?? true,
    start() {
      if (!stopped) return;
      stopped = false;
      if (def.wakeOn && !listening) {
        def.wakeOn(() => {
          if (!stopped) schedule.soon();
        });
        listening = true;
      }
      schedule.begin();
    },
    wake,
    async drain() {
      while (running) await running;
      await begin(true);
    },
    async stop() {
      stopped = true;
      schedule.clear();
      while (running) await running;
      await def.onStop?.();
      if (def.lease && lease.ensured) await deps.store.release(def.name, lease.holder).catch(() => {});
    },
    stats: stats.read,
  };
}

/**
 * The background jobs of a process: each feature gives its handlers (`job(definition)`), the composition root
 * starts them in one loop once the server listens and stops them in one loop on close. Every job gets the same
 * loop, lease, retries and metrics.
 */
export function createJobRunner(deps: RunnerDeps) {
  const jobs: Job[] = [];
  return {
    /** The leases and cursors, for a job that claims the rows of its queue one by one. */
    store: deps.store,
    job(def: JobDefinition): Job {
      if (jobs.some((j) => j.name === def.name)) throw new Error(`a job named ${def.name} exists already`);
      const job = createJob(def, deps);
      jobs.push(job);
      return job;
    },
    get(name: string): Job | undefined {
      return jobs.find((j) => j.name === name);
    },
    list: (): readonly Job[] => jobs,
    /** Starts the enabled jobs. */
    start(): void {
      for (const job of jobs) if (job.enabled) job.start();
    },
    /** Runs every enabled job until idle, in the order they were given (tests, benchmarks). */
    async drain(): Promise<void> {
      for (const job of jobs) if (job.enabled) await job.drain();
    },
    /** Stops every job (started or not): each ends the run under way, then gives its lease back. */
    async stop(): Promise<void> {
      await Promise.all(jobs.map((job) => job.stop()));
    },
    stats: (): JobStats[] => jobs.map((job) => job.stats()),
  };
}

export type JobRunner = ReturnType<typeof createJobRunner>;
