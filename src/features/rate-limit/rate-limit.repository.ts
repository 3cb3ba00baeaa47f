import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/tables.js';

/** The rate_limit_counters table: one count per key and clock-aligned window. */
export function createRateLimitRepository(db: Kysely<Database>) {
  return {
    /** Counts one request of `key` in the window; returns the window's count, this one included. */
    async increment(key: string, windowStart: number): Promise<number> {
      const row = await db
        .insertInto('rate_limit_counters')
        .values({ key, window_start: windowStart, count: 1 })
        .onConflict((oc) => oc.columns(['key', 'window_start']).doUpdateSet((eb) => ({ count: eb('rate_limit_counters.count', '+', 1) })))
        .returning('count')
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    /** Drops the counters of the windows that started before `windowStart`. */
    async deleteBefore(windowStart: number): Promise<void> {
      await db.deleteFrom('rate_limit_counters').where('window_start', '<', windowStart).execute();
    },
  };
}

export type RateLimitRepository = ReturnType<typeof createRateLimitRepository>;

/**
 * The counters the nodes of a deployment share: on PostgreSQL, where several nodes share one database, they
 * live in it; a SQLite file is one node's, so there is nothing to share (null: memory is enough).
 */
export function sharedRateLimitCounters(db: Db): RateLimitRepository | null {
  return db.dialect === 'postgres' ? createRateLimitRepository(db.kysely) : null;
}
