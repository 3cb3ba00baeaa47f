import type { Kysely, Transaction } from 'kysely';
import type { TransactionRunner } from '../../db/group-commit.js';
import type { Clock } from '../../shared/clock.js';
import type { Database, NewAuditRecord } from '../../db/tables.js';
import type { Actor } from '../../domain/policy.js';
import type { EventType } from '../../domain/values.js';
import type { AuditService } from '../audit/audit.service.js';
import type { NewEvent } from '../events/events.repository.js';
import { notFound } from '../../shared/errors.js';
import { lockProject } from './write-path.repository.js';

/**
 * Builds the audit record of the request a write serves. The caller (an API handler) knows the
 * request; the write calls it inside its transaction so the record commits with the change.
 */
export type AuditEntryBuilder = () => NewAuditRecord;

/** Records an event of the change being written (docs/design.md §11); it commits with the change or not at all. */
export type EmitEvent = (type: EventType, data: unknown) => void;

/** Where in the project an event of a project-level write happened (what decides who sees it). */
export interface EventPlace {
  section_id?: number | null;
  checklist_id?: number | null;
  item_id?: number | null;
}

/** Records an event of a project-level write (structure): its place is known only once the write made it. */
export type EmitPlacedEvent = (type: EventType, data: unknown, place: EventPlace) => void;

/** Where a write's row lock puts its events: the project, and the section, checklist and item when the row is one. */
export type FullPlace = Required<EventPlace> & { project_id: number };

/** Where the events of writes go: appended in the write's transaction, announced once it committed. */
export interface EventOutbox {
  append(trx: Kysely<Database>, events: readonly NewEvent[]): Promise<void>;
  committed(): void;
}

/** Who writes, and the audit record of the request. */
export interface WriteRequest {
  actor: Actor;
  /** Builds the audit record: it commits with the change. */
  audit?: AuditEntryBuilder | undefined;
}

/** A project-level write (structure, plans, vocabulary): `authorize` runs under the project's lock, on the write's repositories. */
export interface ProjectWriteRequest<R> extends WriteRequest {
  projectId: number;
  authorize?: ((repos: R) => Promise<unknown>) | undefined;
}

/** The row a write locks first: `take` locks it (undefined: it does not exist, a 404 naming `missing`). */
export interface RowLock<Row> {
  take: (trx: Transaction<Database>) => Promise<Row | undefined>;
  missing: string;
  place: (row: Row) => FullPlace;
}

/**
 * The one write path (STYLE.md 13), for v1 and the web alike: a transaction that first takes a row lock (an
 * item's or its project's), then runs the access check (so that it sees what the write will change), the write,
 * the audit record (when given) and the events the write emitted; the events are announced once it committed.
 * The transaction comes from `transactions` (db/group-commit.ts): on SQLite concurrent writes share one COMMIT,
 * each in its own savepoint, and each answers only once that COMMIT is done. A lock is a self-assignment UPDATE,
 * portable across dialects: on PostgreSQL it serializes concurrent writers of the same row (so a read-then-write
 * cannot interleave); SQLite serializes every write transaction anyway.
 *
 * A write gets its module's repositories bound to the transaction (`bind`), never a database handle: on SQLite the
 * transaction holds the only connection, so a statement on the root database would wait for ever. Each module
 * builds its own write path over its own repositories (`R`), so no module needs another's insides to write; the
 * item aggregate's writer (features/items/item-writer.ts) adds the item's lock and access check.
 */
export function createWritePath<R>(deps: {
  transactions: TransactionRunner;
  /** The module's repositories bound to a transaction, once per transaction (writes of one group commit share it). */
  bind: (trx: Transaction<Database>) => R;
  audit: AuditService;
  events: EventOutbox;
  clock: Clock;
}) {
  const { transactions, audit, events, clock } = deps;
  const bound = new WeakMap<Transaction<Database>, R>();
  const repositories = (trx: Transaction<Database>) => {
    let repos = bound.get(trx);
    if (!repos) bound.set(trx, (repos = deps.bind(trx)));
    return repos;
  };

  async function locked<T, Row>(
    request: WriteRequest & { authorize?: ((repos: R) => Promise<unknown>) | undefined },
    lock: RowLock<Row>,
    write: (repos: R, emit: (type: EventType, data: unknown, place: EventPlace & { project_id?: number }) => void) => Promise<T>,
  ): Promise<T> {
    // The records of requests that finished before this write (queued reads) are written first, once per
    // request, by the request's entry (v1: operation-route.ts; the web: web-write.ts), not once per item written.
    let emitted = false;
    const result = await transactions.run(async (trx) => {
      const row = await lock.take(trx);
      if (!row) throw notFound(lock.missing);
      const repos = repositories(trx);
      await request.authorize?.(repos);
      const pending: NewEvent[] = [];
      const at = clock.now().toISOString();
      const actor_id = request.actor.id;
      const base = lock.place(row);
      const value = await write(
        repos,
        (type, data, place) => void pending.push({ type, data, at, actor_id, token_id: null, ...base, ...place }),
      );
      const record = request.audit?.();
      if (record) await audit.record(record, trx);
      await events.append(
        trx,
        pending.map((e) => ({ ...e, token_id: record?.token_id ?? null })),
      );
      emitted = pending.length > 0;
      return value;
    });
    if (emitted) events.committed();
    return result;
  }

  const nowhere = { section_id: null, checklist_id: null, item_id: null };

  return {
    /** A write under `lock` (the item writer's lock of an item). */
    locked,

    /** A write that creates what it is about (a project): no row to lock yet; each event names its project. */
    writeNew<T>(
      request: WriteRequest,
      write: (repos: R, emit: (type: EventType, data: unknown, place: EventPlace & { project_id: number }) => void) => Promise<T>,
    ): Promise<T> {
      const lock = { take: async () => true, missing: 'The row', place: () => ({ ...nowhere, project_id: 0 }) };
      return locked(request, lock, write);
    },

    /**
     * A project-level write (sections, checklists, new items, plans, vocabulary): the project's row lock, so that
     * concurrent structural edits of one project serialize (positions, names).
     */
    writeProject<T>(request: ProjectWriteRequest<R>, write: (repos: R, emit: EmitPlacedEvent) => Promise<T>): Promise<T> {
      const lock = {
        take: (trx: Transaction<Database>) => lockProject.executeTakeFirst({ projectId: request.projectId }, trx),
        missing: 'The project',
        place: () => ({ ...nowhere, project_id: request.projectId }),
      };
      return locked(request, lock, write);
    },
  };
}

export type WritePath<R> = ReturnType<typeof createWritePath<R>>;

/** Makes a module's write path over its own repositories (the composition root gives one to each module). */
export type WritePaths = <R>(bind: (trx: Transaction<Database>) => R) => WritePath<R>;
