import type { Kysely } from 'kysely';
import type { Database } from './tables.js';

/**
 * Runs `work` in the caller's transaction when `executor` is one (OAuth creates a token with its grant), else in
 * a new transaction of `executor`. Everything inside must use the `trx` it is given: on SQLite the transaction
 * holds the one connection, so a statement on the root database would wait for ever.
 */
export function inTransaction<T>(executor: Kysely<Database>, work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return executor.isTransaction ? work(executor) : executor.transaction().execute(work);
}
