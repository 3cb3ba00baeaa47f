import { CompiledQuery, type Kysely, type Selectable } from 'kysely';
import { AUDIT_RECORD_COLUMNS, type AuditLogTable, type Database, type NewAuditRecord } from '../../db/tables.js';

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
  for (let left = total; left > 0;) {
    const size = left >= 256 ? 256 : 2 ** Math.floor(Math.log2(left));
    sizes.push(size);
    left -= size;
  }
  return sizes;
}

/**
 * INSERT of `rows` records, compiled by Kysely once per size; its parameters are the records' columns,
 * row after row, so a batch binds a flat array instead of going through the query builder (whose cost
 * grows with every value: 15 per record).
 */
function insertRecords(db: Kysely<Database>, rows: number) {
  const compiled = db
    .insertInto('audit_log')
    .values(Array.from({ length: rows }, () => Object.fromEntries(AUDIT_RECORD_COLUMNS.map((c) => [c, null])) as unknown as NewAuditRecord))
    .compile();
  if (compiled.parameters.length !== rows * AUDIT_RECORD_COLUMNS.length)
    throw new Error(`audit insert of ${rows} rows binds ${compiled.parameters.length} values`);
  return (records: readonly NewAuditRecord[], executor: Kysely<Database>) => {
    const values: unknown[] = [];
    for (const record of records) for (const c of AUDIT_RECORD_COLUMNS) values.push(record[c] ?? null);
    return executor.executeQuery(CompiledQuery.raw(compiled.sql, values));
  };
}

/** The audit_log table. */
export function createAuditRepository(db: Kysely<Database>) {
  const inserts = new Map<number, ReturnType<typeof insertRecords>>();
  const insertOf = (rows: number) => {
    let insert = inserts.get(rows);
    if (!insert) inserts.set(rows, (insert = insertRecords(db, rows)));
    return insert;
  };
  // Every successful write inserts one inside its transaction.
  const insertOne = insertOf(1);

  /** The records matching the filter, every public column selected; order and limit are the caller's. */
  function filtered(filter: AuditFilter) {
    let query = db.selectFrom('audit_log').select(AUDIT_RECORD_COLUMNS);
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
    /** Inserts one record; on `executor` (a write's transaction) it commits with the write. */
    async insert(record: NewAuditRecord, executor: Kysely<Database> = db): Promise<void> {
      await insertOne([record], executor);
    },

    /** Inserts the records in one transaction, in their order. */
    insertBatch(records: readonly NewAuditRecord[]): Promise<void> {
      return db.transaction().execute(async (trx) => {
        let offset = 0;
        for (const size of chunkSizes(records.length)) {
          await insertOf(size)(records.slice(offset, offset + size), trx);
          offset += size;
        }
      });
    },

    /** The newest `limit` matching records, newest first. */
    newest(filter: AuditFilter, limit: number): Promise<AuditRecord[]> {
      return filtered(filter).orderBy('id', 'desc').limit(limit).execute();
    },

    /** A page of matching records, newest first, with their ids: those before the id `before` when given. */
    page(filter: AuditFilter, limit: number, before: number | undefined) {
      let query = filtered(filter).select('id').orderBy('id', 'desc').limit(limit);
      if (before !== undefined) query = query.where('id', '<', before);
      return query.execute();
    },
  };
}

export type AuditRepository = ReturnType<typeof createAuditRepository>;
