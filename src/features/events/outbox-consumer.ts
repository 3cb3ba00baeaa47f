import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { Clock } from '../../shared/clock.js';
import type { Database } from '../../db/tables.js';
import type { EventType } from '../../domain/values.js';
import type { EventsRepository } from './events.repository.js';
import { oneLookAtATime } from './one-look-at-a-time.js';

/** An event as a consumer of the outbox reads it: every event, whoever may see it (the consumer checks). */
export interface ConsumedEvent {
  id: number;
  type: EventType;
  at: string;
  project_id: number;
  item_id: number | null;
  actor_id: number | null;
  actor_name: string | null;
  token_id: number | null;
  data: unknown;
}

/** Where a consumer keeps its cursor and lease (a row of `outbox_consumers`). */
interface ConsumerStore {
  ensureConsumer(name: string, cursor: number): Promise<void>;
  leaseConsumer(name: string, holder: string, now: string, until: string): Promise<number | null>;
  advanceConsumer(trx: Transaction<Database>, name: string, holder: string, from: number, to: number): Promise<boolean>;
  releaseConsumer(name: string, holder: string): Promise<void>;
  transaction<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T>;
}

/**
 * What a consumer does with a batch: reads what it needs first (outside any transaction: on SQLite a
 * transaction holds the only connection), then returns the writes, run in the transaction that moves the cursor.
 */
type BatchHandler = (events: readonly ConsumedEvent[]) => Promise<(trx: Transaction<Database>) => Promise<void>>;

interface OutboxConsumerOptions {
  /** The consumer's row in `outbox_consumers`. */
  name: string;
  /** Only these event types are read (the cursor passes the others); null: every type. */
  types: readonly EventType[] | null;
  batchSize?: number;
  pollMs?: number;
  leaseMs?: number;
  onError?: (err: unknown) => void;
  /** Called after a batch committed (the email sender's wake-up). */
  onBatch?: () => void;
  /**
   * A commit wakes the consumer this long after it (default 200 ms), so that the events of a busy moment are
   * read as one batch: the cost of a look (lease, reads, the cursor's transaction) is shared by all of them.
   */
  settleMs?: number;
}

/** Waits after a failed batch: 1 s, 2 s, 4 s, … up to a minute. */
function consumerBackoff(failures: number): number {
  return Math.min(60_000, 1000 * 2 ** Math.max(0, failures - 1));
}

/**
 * The loop of a consumer of the event outbox that one node runs at a time (STYLE.md 14): a stored cursor
 * (it resumes where it stopped after a restart), a lease row so that one node works on a shared database
 * (the cursor only moves while the lease is held, in the transaction of the batch's writes), and retries
 * with backoff when a batch fails. Woken by commits on this node and by a poll for the others'.
 * The webhook worker keeps its own loop: it has one cursor and lease per endpoint, and retries per endpoint.
 */
export function createOutboxConsumer(
  deps: { store: ConsumerStore; events: Pick<EventsRepository, 'list' | 'lastId'>; clock: Clock },
  handle: BatchHandler,
  options: OutboxConsumerOptions,
) {
  const { store, events, clock } = deps;
  const holder = randomUUID();
  const batchSize = options.batchSize ?? 500;
  const leaseMs = options.leaseMs ?? 30_000;
  let stopped = true;
  let timer: NodeJS.Timeout | null = null;
  let failures = 0;
  let retryAt = 0;
  let ensured = false;

  /** One look: batches until the outbox is drained (or the lease is lost). */
  async function drain(): Promise<void> {
    if (!ensured) {
      await store.ensureConsumer(options.name, await events.lastId());
      ensured = true;
    }
    while (!stopped) {
      const now = clock.now();
      const cursor = await store.leaseConsumer(options.name, holder, now.toISOString(), new Date(now.getTime() + leaseMs).toISOString());
      if (cursor === null) return; // another node works
      const upTo = await events.lastId();
      if (upTo <= cursor) return;
      const rows = await events.list('all', { after: cursor, limit: batchSize, projectId: null, itemId: null, types: options.types }, upTo);
      const batch: ConsumedEvent[] = rows.map((r) => ({
        id: r.id,
        type: r.type as EventType,
        at: r.at,
        project_id: r.project_id,
        item_id: r.item_id,
        actor_id: r.actor_id,
        actor_name: r.actor_name,
        token_id: r.token_id,
        data: JSON.parse(r.data) as unknown,
      }));
      // A short batch reached `upTo`: what lies between is of other types.
      const to = batch.length < batchSize ? upTo : batch.at(-1)!.id;
      const write = await handle(batch);
      const moved = await store.transaction(async (trx) => {
        if (!(await store.advanceConsumer(trx, options.name, holder, cursor, to))) return false;
        await write(trx);
        return true;
      });
      if (!moved) return;
      if (batch.length) options.onBatch?.();
      // Caught up with `upTo`: what commits meanwhile is read at the next look (a commit asks for one within
      // `settleMs`), not at once, so that a steady stream of writes is read in batches rather than one by one.
      if (rows.length < batchSize) return;
    }
  }

  let settling: NodeJS.Timeout | null = null;
  /** A commit on this node: a look soon, one for all the commits of the next `settleMs`. */
  function soon() {
    if (stopped || settling) return;
    settling = setTimeout(() => {
      settling = null;
      wake();
    }, options.settleMs ?? 200);
    settling.unref();
  }

  // One look at a time (a wake-up during one asks for another); after a failed batch none before `retryAt`.
  const looks = oneLookAtATime(
    () =>
      drain().then(
        () => {
          failures = 0;
        },
        (err: unknown) => {
          failures++;
          retryAt = Date.now() + consumerBackoff(failures);
          throw err;
        },
      ),
    { active: () => !stopped && Date.now() >= retryAt, onError: options.onError },
  );
  const wake = looks.wake;

  return {
    start(onCommitted?: (listener: () => void) => void) {
      if (!stopped) return;
      stopped = false;
      onCommitted?.(soon);
      // The poll is for the commits of other nodes: while a commit here has a look coming, it adds none.
      timer = setInterval(() => {
        if (!settling) wake();
      }, options.pollMs ?? 1000);
      timer.unref();
      wake();
    },
    /** Reads the outbox now and resolves once it is drained (tests, benchmarks). */
    drainNow: () => looks.drainNow(drain, { get: () => stopped, set: (value) => (stopped = value) }),
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      if (settling) clearTimeout(settling);
      timer = null;
      settling = null;
      await looks.running();
      await store.releaseConsumer(options.name, holder).catch(() => {});
    },
  };
}
