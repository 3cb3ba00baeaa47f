import { CompiledQuery, type Kysely, type Selectable } from 'kysely';
import type { AuditLogTable, Database, NewAuditRecord } from '../../db/tables.js';
import { type AuditBatcherOptions, createAuditBatcher } from './audit-batcher.js';

/** One call record, as `bin/punchlist audit --json` and the web audit page show it. */
export type AuditRecord = Omit<Selectable<AuditLogTable>, 'id'>;

export interface AuditFilter {
  tokenId?: number;
  userId?: number;
  since?: string;
  status?: number;
  /** Inclusive bounds of the HTTP status (e.g. 400–499), for the web audit page's filter. */
  statusRange?: { min: number; max: number };
  /** Records strictly before this time. */
  until?: string;
  limit?: number;
}

/**
 * Rows per INSERT of a batch: powers of two up to 256, so that a batch of any size runs a handful of
 * distinct statements (prepared once each) and stays under every dialect's bound-parameter limit.
 */
function chunkSizes(total: number): number[] {
  const sizes: number[] = [];
  for (let left = total; left > 0; ) {
    const size = left >= 256 ? 256 : 2 ** Math.floor(Math.log2(left));
    sizes.push(size);
    left -= size;
  }
  return sizes;
}

const COLUMNS = [
  'request_id', 'at', 'token_id', 'user_id', 'method', 'path', 'query', 'status', 'error_code', 'ip', 'user_agent',
  'duration_ms', 'entity_type', 'entity_id', 'client_request_id',
] as const satisfies readonly (keyof NewAuditRecord)[];

/**
 * INSERT of `rows` records, compiled by Kysely once per size; its parameters are the records' columns,
 * row after row, so a batch binds a flat array instead of going through the query builder (whose cost
 * grows with every value: 15 per record).
 */
function insertRecords(db: Kysely<Database>, rows: number) {
  const compiled = db
    .insertInto('audit_log')
    .values(Array.from({ length: rows }, () => Object.fromEntries(COLUMNS.map((c) => [c, null])) as unknown as NewAuditRecord))
    .compile();
  if (compiled.parameters.length !== rows * COLUMNS.length) throw new Error(`audit insert of ${rows} rows binds ${compiled.parameters.length} values`);
  return (records: readonly NewAuditRecord[], executor: Kysely<Database>) => {
    const values: unknown[] = [];
    for (const record of records) for (const c of COLUMNS) values.push(record[c] ?? null);
    return executor.executeQuery(CompiledQuery.raw(compiled.sql, values));
  };
}

export function createAuditService(db: Kysely<Database>, options: { batch?: AuditBatcherOptions } = {}) {
  const inserts = new Map<number, ReturnType<typeof insertRecords>>();
  const insertOf = (rows: number) => {
    let insert = inserts.get(rows);
    if (!insert) inserts.set(rows, (insert = insertRecords(db, rows)));
    return insert;
  };
  const batcher = createAuditBatcher<NewAuditRecord>(
    (records) =>
      db.transaction().execute(async (trx) => {
        let offset = 0;
        for (const size of chunkSizes(records.length)) {
          await insertOf(size)(records.slice(offset, offset + size), trx);
          offset += size;
        }
      }),
    options.batch,
  );
  // Every successful write inserts one inside its transaction.
  const insertOne = insertOf(1);

  /** The records matching the filter, every public column selected; order and limit are the caller's. */
  function filtered(filter: AuditFilter) {
    let query = db
      .selectFrom('audit_log')
      .select([
        'request_id',
        'at',
        'token_id',
        'user_id',
        'method',
        'path',
        'query',
        'status',
        'error_code',
        'ip',
        'user_agent',
        'duration_ms',
        'entity_type',
        'entity_id',
        'client_request_id',
      ]);
    if (filter.tokenId !== undefined) query = query.where('token_id', '=', filter.tokenId);
    if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
    if (filter.since !== undefined) query = query.where('at', '>=', filter.since);
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    if (filter.statusRange !== undefined) {
      query = query.where('status', '>=', filter.statusRange.min).where('status', '<=', filter.statusRange.max);
    }
    if (filter.until !== undefined) query = query.where('at', '<', filter.until);
    return query;
  }
  return {
    /** Writes one record now; pass the transaction of a write so the record commits with it. */
    async record(entry: NewAuditRecord, trx: Kysely<Database> = db): Promise<void> {
      await insertOne([entry], trx);
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
      return filtered(filter)
        .orderBy('id', 'desc')
        .limit(filter.limit ?? 100)
        .execute();
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
        let query = filtered(filter).select('id').orderBy('id', 'desc').limit(Math.min(pageSize, left));
        if (before !== undefined) query = query.where('id', '<', before);
        const rows = await query.execute();
        if (rows.length === 0) return;
        before = rows.at(-1)!.id;
        left -= rows.length;
        yield rows.map(({ id: _id, ...record }) => record);
      }
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
