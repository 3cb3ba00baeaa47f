import type { Kysely, Transaction } from 'kysely';
import type { TransactionRunner } from '../../db/group-commit.js';
import type { Clock } from '../../clock.js';
import type { Database, NewAuditRecord } from '../../db/tables.js';
import type { EventType } from '../../domain/values.js';
import type { AuditService } from '../audit/audit.service.js';
import type { NewEvent } from '../events/events.repository.js';
import { notFound } from '../../errors.js';
import { lockItem } from './items.repository.js';

/**
 * Builds the audit record of the request a write serves. The caller (an API handler) knows the
 * request; the write calls it inside its transaction so the record commits with the change.
 */
export type AuditEntryBuilder = () => NewAuditRecord;

/** Records an event of the change being written (DESIGN.md §11); it commits with the change or not at all. */
export type EmitEvent = (type: EventType, data: unknown) => void;

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
  return {
    async write<T>(
      itemId: number,
      actor: { id: number },
      buildAudit: AuditEntryBuilder | undefined,
      write: (trx: Transaction<Database>, emit: EmitEvent) => Promise<T>,
      /** The access check, run under the lock inside the transaction (ItemsService.authorize with `trx`). */
      authorize?: (trx: Transaction<Database>) => Promise<unknown>,
    ): Promise<T> {
      // The records of requests that finished before this write (queued reads) are written first, so
      // that the audit log's order (by id) stays the order in which requests finished.
      if (buildAudit) await audit.flush();
      let emitted = false;
      const result = await transactions.run(async (trx) => {
        const item = await lockItem.executeTakeFirst({ itemId }, trx);
        if (!item) throw notFound('The item');
        await authorize?.(trx);
        const pending: { type: EventType; data: unknown }[] = [];
        const value = await write(trx, (type, data) => void pending.push({ type, data }));
        const record = buildAudit?.();
        if (record) await audit.record(record, trx);
        const at = clock.now().toISOString();
        const where = { project_id: item.project_id, section_id: item.section_id, checklist_id: item.checklist_id, item_id: itemId };
        await events.append(
          trx,
          pending.map((e) => ({ ...e, ...where, at, actor_id: actor.id, token_id: record?.token_id ?? null })),
        );
        emitted = pending.length > 0;
        return value;
      });
      if (emitted) events.committed();
      return result;
    },
  };
}

export type ItemWriter = ReturnType<typeof createItemWriter>;
