import type { Kysely } from 'kysely';
import type { Database, NewAuditRecord } from '../../db/tables.js';
import { type AuditBatcherOptions, createAuditBatcher } from './audit-batcher.js';
import type { AuditFilter, AuditRecord, AuditRepository } from './audit.repository.js';

export type { AuditFilter, AuditRecord } from './audit.repository.js';

/**
 * Writes the audit record of the request a write serves, inside that write's transaction `trx`, so that the
 * record commits with the change or not at all (docs/design.md §7). A write that creates what it acts on names it
 * (`entity`: the new token, user or webhook). The web's form path (web/web-write.ts) gives one to the services
 * whose writes have no item transaction (item writes take an AuditEntryBuilder: features/items/item-writer.ts).
 */
export type RecordAudit = (trx: Kysely<Database>, entity?: { type: string; id: number }) => Promise<void>;

export function createAuditService(repo: AuditRepository, options: { batch?: AuditBatcherOptions } = {}) {
  const batcher = createAuditBatcher<NewAuditRecord>((records) => repo.insertBatch(records), options.batch);
  return {
    /** Writes one record now; pass the transaction of a write so the record commits with it. */
    async record(entry: NewAuditRecord, trx?: Kysely<Database>): Promise<void> {
      await repo.insert(entry, trx);
    },

    /**
     * Queues the record of a request that wrote nothing (a read, a refusal, a failure): written with
     * others within 100 ms (audit-batcher.ts). A successful write must use record(entry, trx) instead.
     */
    recordLater(entry: NewAuditRecord): void {
      batcher.add(entry);
    },

    /** Records queued for the next batch (the audit queue depth of /metrics). */
    get pending() {
      return batcher.pending;
    },

    /** Writes the queued records now. */
    flush: () => batcher.flush(),

    /** Writes the queued records; the context calls it before closing the database. */
    close: () => batcher.close(),

    /** Newest first; queued records are written first, so a reader on this node sees every request. */
    async list(filter: AuditFilter = {}): Promise<AuditRecord[]> {
      await batcher.flush();
      return repo.newest(filter, filter.limit ?? 100);
    },

    /**
     * The same records as list(), newest first, read page by page (keyset on the id), so that a caller
     * writing them out never holds more than one page; without `limit`, every matching record.
     */
    async *stream(filter: AuditFilter = {}, pageSize = 1000): AsyncGenerator<AuditRecord[]> {
      await batcher.flush();
      let left = filter.limit ?? Infinity;
      let before: number | undefined;
      while (left > 0) {
        const rows = await repo.page(filter, Math.min(pageSize, left), before);
        if (rows.length === 0) return;
        before = rows.at(-1)!.id;
        left -= rows.length;
        yield rows.map(({ id: _id, ...record }) => record);
      }
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
