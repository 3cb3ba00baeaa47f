import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/tables.js';

/** The rows of `table` whose `column` (an ISO time) is at or before a cutoff; `key`: the primary key's columns. */
export interface ExpiringRows {
  table: keyof Database;
  key: readonly string[];
  column: string;
  /** Rows still referenced from this table's column (by their single-column key) stay, however old. */
  keptIfReferencedBy?: { table: keyof Database; column: string };
}

/**
 * Batched deletes of expired rows. Several nodes may run them at once: on PostgreSQL each batch takes its
 * rows with `FOR UPDATE SKIP LOCKED`, so two nodes never wait for each other or delete the same row;
 * SQLite has one writer, and a second process simply finds the rows gone.
 */
export function createRetentionRepository(database: Db) {
  const db = database.kysely as unknown as Kysely<any>;
  const skipLocked = database.dialect === 'postgres';
  return {
    /** Deletes at most `limit` of the rows expired at `cutoff`; returns how many went. */
    async deleteExpired(rows: ExpiringRows, cutoff: string, limit: number): Promise<number> {
      const result = await db
        .deleteFrom(rows.table)
        // Checked again on the row itself: on PostgreSQL a row renewed meanwhile (an idempotency key taken
        // over by a new request) no longer matches and stays.
        .where(rows.column, '<=', cutoff)
        .where((eb) => {
          let batch = eb
            .selectFrom(rows.table)
            .select([...rows.key])
            .where(rows.column, '<=', cutoff)
            .limit(limit);
          const referrer = rows.keptIfReferencedBy;
          if (referrer) {
            batch = batch.where((inner) =>
              inner.not(
                inner.exists(
                  inner
                    .selectFrom(`${referrer.table} as r`)
                    .select(`r.${referrer.column}`)
                    .whereRef(`r.${referrer.column}`, '=', `${rows.table}.${rows.key[0]}`),
                ),
              ),
            );
          }
          if (skipLocked) batch = batch.forUpdate().skipLocked();
          const [first, ...others] = rows.key;
          return eb(others.length ? eb.refTuple(first!, ...(others as [string])) : eb.ref(first!), 'in', batch);
        })
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type RetentionRepository = ReturnType<typeof createRetentionRepository>;
