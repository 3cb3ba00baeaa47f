import type { Transaction } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { EventType } from '../../domain/values.js';
import type { JobDefinition, JobRun } from '../../jobs/job-runner.js';
import type { EventsRepository } from './events.repository.js';

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

/**
 * What a consumer does with a batch: reads what it needs first (outside any transaction: on SQLite a
 * transaction holds the only connection), then returns the writes, run in the transaction that moves the cursor.
 */
type BatchHandler = (events: readonly ConsumedEvent[]) => Promise<(trx: Transaction<Database>) => Promise<void>>;

interface OutboxConsumerOptions {
  /** The job's name: its row of cursor and lease (src/jobs/job-store.ts). */
  name: string;
  /** Only these event types are read (the cursor passes the others); null: every type. */
  types: readonly EventType[] | null;
  batchSize?: number;
  pollMs?: number;
  leaseMs?: number;
  /** Called after a batch committed (the email sender's wake-up). */
  onBatch?: () => void;
  /** Commits on this node (they wake the consumer). */
  onCommitted?: (listener: () => void) => void;
  /**
   * A commit wakes the consumer this long after it (default 200 ms), so that the events of a busy moment are
   * read as one batch: the cost of a look (lease, reads, the cursor's transaction) is shared by all of them.
   */
  settleMs?: number;
  enabled?: boolean;
}

/**
 * A consumer of the event outbox as a job (STYLE.md 14) that one node runs at a time: the job's stored cursor
 * (it resumes where it stopped after a restart) and lease (the cursor only moves while it is held, in the
 * transaction of the batch's writes); the runner retries a failed batch with backoff. Woken by commits on this
 * node and by a poll for the others'.
 */
export function outboxConsumerJob(
  events: Pick<EventsRepository, 'list' | 'lastId'>,
  handle: BatchHandler,
  options: OutboxConsumerOptions,
): JobDefinition {
  const batchSize = options.batchSize ?? 500;

  /** One batch from the cursor; `more` while batches are full. */
  async function batch(run: JobRun) {
    const upTo = await events.lastId();
    if (upTo <= run.cursor) return { more: false, backlog: 0 };
    const rows = await events.list(
      'all',
      { after: run.cursor, limit: batchSize, projectId: null, itemId: null, types: options.types },
      upTo,
    );
    const consumed: ConsumedEvent[] = rows.map((r) => ({
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
    const to = consumed.length < batchSize ? upTo : consumed.at(-1)!.id;
    const write = await handle(consumed);
    const moved = await run.transaction(async (trx) => {
      if (!(await run.advance(trx, to))) return false;
      await write(trx);
      return true;
    });
    if (!moved) return { more: false };
    if (consumed.length) options.onBatch?.();
    // Caught up with `upTo`: what commits meanwhile is read at the next run (a commit asks for one within
    // `settleMs`), not at once, so that a steady stream of writes is read in batches rather than one by one.
    return { more: rows.length >= batchSize, backlog: upTo - to };
  }

  return {
    name: options.name,
    run: batch,
    everyMs: options.pollMs ?? 1000,
    lease: { ms: options.leaseMs ?? 30_000, startCursor: () => events.lastId() },
    ...(options.onCommitted ? { wakeOn: options.onCommitted } : {}),
    settleMs: options.settleMs ?? 200,
    ...(options.enabled !== undefined ? { enabled: options.enabled } : {}),
  };
}
