import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/tables.js';

/** The tables whose rows a job claims one by one (a webhook endpoint, a queued email): each has `state` and `lease_until`. */
type ClaimableTable = 'webhook_endpoints' | 'notification_emails';

/**
 * The one store of the background jobs' cursors and leases (STYLE.md 14). Two kinds of lease, one way of taking
 * them (a conditional UPDATE that succeeds for one node: the lease is free, expired, or already this holder's):
 * - a job's own row in `outbox_consumers` (migration 014; the table is every job's, whatever its name says): the
 *   lease of a job that one node runs at a time, and its cursor, which moves only while the lease is held, in
 *   the transaction of the work it covers;
 * - a row of a queue that every node works on (a webhook endpoint, an email): claimed before it is worked on, so
 *   that one node handles it.
 */
export function createJobStore(db: Kysely<Database>) {
  return {
    /** Creates the job's row at `cursor` unless it exists (where it starts when it first runs). */
    async ensure(name: string, cursor: number): Promise<void> {
      await db
        .insertInto('outbox_consumers')
        .values({ name, cursor, holder: null, lease_until: null })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
    },

    /** Takes or renews the job's lease for `holder` until `until`: the cursor when held, else null. */
    async lease(name: string, holder: string, now: string, until: string): Promise<number | null> {
      const result = await db
        .updateTable('outbox_consumers')
        .set({ holder, lease_until: until })
        .where('name', '=', name)
        .where((eb) => eb.or([eb('holder', '=', holder), eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .returning('cursor')
        .executeTakeFirst();
      return result ? Number(result.cursor) : null;
    },

    /** Moves the cursor in the caller's transaction, only while `holder` holds the lease: false when it was lost. */
    async advance(trx: Kysely<Database>, name: string, holder: string, from: number, to: number): Promise<boolean> {
      const result = await trx
        .updateTable('outbox_consumers')
        .set({ cursor: to })
        .where('name', '=', name)
        .where('holder', '=', holder)
        .where('cursor', '=', from)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async release(name: string, holder: string): Promise<void> {
      await db
        .updateTable('outbox_consumers')
        .set({ holder: null, lease_until: null })
        .where('name', '=', name)
        .where('holder', '=', holder)
        .execute();
    },

    /** The job's cursor, undefined before it first ran. */
    async cursor(name: string): Promise<number | undefined> {
      const row = await db.selectFrom('outbox_consumers').select(['cursor']).where('name', '=', name).executeTakeFirst();
      return row ? Number(row.cursor) : undefined;
    },

    /** Claims a queue row in `state` until `until`, unless another node holds it: true when claimed. */
    async claim(table: ClaimableTable, id: number, state: string, now: string, until: string): Promise<boolean> {
      const result = await (db as unknown as Kysely<Record<ClaimableTable, { id: number; state: string; lease_until: string | null }>>)
        .updateTable(table)
        .set({ lease_until: until })
        .where('id', '=', id)
        .where('state', '=', state)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** Gives a claimed queue row back before its lease ends. */
    async unclaim(table: ClaimableTable, id: number): Promise<void> {
      await (db as unknown as Kysely<Record<ClaimableTable, { id: number; lease_until: string | null }>>)
        .updateTable(table)
        .set({ lease_until: null })
        .where('id', '=', id)
        .execute();
    },

    transaction<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
      return db.transaction().execute(work);
    },
  };
}

export type JobStore = ReturnType<typeof createJobStore>;
