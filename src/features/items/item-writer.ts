import type { Kysely, Transaction } from 'kysely';
import type { TransactionRunner } from '../../db/group-commit.js';
import type { Clock } from '../../clock.js';
import type { Database, NewAuditRecord } from '../../db/tables.js';
import type { EventType } from '../../domain/values.js';
import type { AuditService } from '../audit/audit.service.js';
import type { NewEvent } from '../events/events.repository.js';
import { notFound } from '../../errors.js';
import { lockItem, lockProject } from './items.repository.js';

/**
 * Builds the audit record of the request a write serves. The caller (an API handler) knows the
 * request; the write calls it inside its transaction so the record commits with the change.
 */
export type AuditEntryBuilder = () => NewAuditRecord;

/** Records an event of the change being written (DESIGN.md §11); it commits with the change or not at all. */
export type EmitEvent = (type: EventType, data: unknown) => void;

/** Where in the project an event of a project-level write happened (what decides who sees it). */
export interface EventPlace {
  section_id?: number | null;
  checklist_id?: number | null;
  item_id?: number | null;
}

/** Records an event of a project-level write (structure): its place is known only once the write made it. */
export type EmitPlacedEvent = (type: EventType, data: unknown, place: EventPlace) => void;

type FullPlace = Required<EventPlace> & { project_id: number };

/** Where the events of item writes go: appended in the write's transaction, announced once it committed. */
export interface EventOutbox {
  append(trx: Kysely<Database>, events: readonly NewEvent[]): Promise<void>;
  committed(): void;
}

/**
 * The one write path of an item (STYLE.md 13), for v1 and the web alike: a transaction that first takes the
 * item's row lock, then runs the write, then inserts the audit record (when given) and the events the write
 * emitted, the access check (when given) right after the lock, so that it sees what the write will change.
 * The transaction comes from `transactions` (db/group-commit.ts): on SQLite concurrent writes share
 * one COMMIT, each in its own savepoint, and each answers only once that COMMIT is done. The lock is a self-assignment UPDATE, portable across dialects: on PostgreSQL it serializes
 * concurrent writers of the same item (so a read-then-write such as a status change or a links replacement
 * cannot interleave); SQLite serializes every write transaction anyway.
 *
 * Never call a service that uses the root `db` inside `write`: on SQLite the transaction holds the only
 * connection, so such a call would wait for ever. Use `trx` only.
 */
export function createItemWriter(transactions: TransactionRunner, audit: AuditService, events: EventOutbox, clock: Clock) {
  /**
   * One transaction: `lock` takes the row lock (undefined: the row does not exist, 404), then the access
   * check, the write, its audit record and its events; the events are announced once it committed.
   */
  async function locked<T, R>(
    lock: (trx: Transaction<Database>) => Promise<R | undefined>,
    missing: string,
    actor: { id: number },
    buildAudit: AuditEntryBuilder | undefined,
    write: (trx: Transaction<Database>, emit: (type: EventType, data: unknown, place: FullPlace) => void, row: R) => Promise<T>,
    authorize?: (trx: Transaction<Database>) => Promise<unknown>,
  ): Promise<T> {
    // The records of requests that finished before this write (queued reads) are written first, so
    // that the audit log's order (by id) stays the order in which requests finished.
    if (buildAudit) await audit.flush();
    let emitted = false;
    const result = await transactions.run(async (trx) => {
      const row = await lock(trx);
      if (!row) throw notFound(missing);
      await authorize?.(trx);
      const pending: NewEvent[] = [];
      const at = clock.now().toISOString();
      const value = await write(
        trx,
        (type, data, place) => void pending.push({ type, data, at, actor_id: actor.id, token_id: null, ...place }),
        row,
      );
      const record = buildAudit?.();
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

  return {
    /** A write that creates what it is about (a project): no row to lock yet; each event names its project. */
    async writeNew<T>(
      actor: { id: number },
      buildAudit: AuditEntryBuilder | undefined,
      write: (
        trx: Transaction<Database>,
        emit: (type: EventType, data: unknown, place: EventPlace & { project_id: number }) => void,
      ) => Promise<T>,
    ): Promise<T> {
      return locked(
        async () => true,
        'The row',
        actor,
        buildAudit,
        (trx, emit) =>
          write(trx, (type, data, place) => emit(type, data, { section_id: null, checklist_id: null, item_id: null, ...place })),
      );
    },

    async write<T>(
      itemId: number,
      actor: { id: number },
      buildAudit: AuditEntryBuilder | undefined,
      write: (trx: Transaction<Database>, emit: EmitEvent) => Promise<T>,
      /** The access check, run under the lock inside the transaction (ItemsService.authorize with `trx`). */
      authorize?: (trx: Transaction<Database>) => Promise<unknown>,
    ): Promise<T> {
      return locked(
        (trx) => lockItem.executeTakeFirst({ itemId }, trx),
        'The item',
        actor,
        buildAudit,
        (trx, emit, item) => write(trx, (type, data) => emit(type, data, { ...item, item_id: itemId })),
        authorize,
      );
    },

    /**
     * The project-level counterpart (structure: sections, checklists, new items): the project's row lock
     * instead of the item's, so that concurrent structural edits of one project serialize (positions, names).
     */
    async writeProject<T>(
      projectId: number,
      actor: { id: number },
      buildAudit: AuditEntryBuilder | undefined,
      write: (trx: Transaction<Database>, emit: EmitPlacedEvent) => Promise<T>,
      authorize?: (trx: Transaction<Database>) => Promise<unknown>,
    ): Promise<T> {
      return locked(
        (trx) => lockProject.executeTakeFirst({ projectId }, trx),
        'The project',
        actor,
        buildAudit,
        (trx, emit) =>
          write(trx, (type, data, place) =>
            emit(type, data, { section_id: null, checklist_id: null, item_id: null, ...place, project_id: projectId }),
          ),
        authorize,
      );
    },
  };
}

export type ItemWriter = ReturnType<typeof createItemWriter>;
