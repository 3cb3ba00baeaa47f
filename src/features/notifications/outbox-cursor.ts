import { type Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';

// The outbox consumer's cursor and lease.

/** Creates the consumer at `cursor` (the outbox's end when it first runs: history tells nobody) unless it exists. */
export async function ensureConsumer(db: Kysely<Database>, name: string, cursor: number): Promise<void> {
  await db
    .insertInto('outbox_consumers')
    .values({ name, cursor, holder: null, lease_until: null })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

/** Takes or renews the lease for `holder` until `until`: the cursor when held, else null. */
export async function leaseConsumer(
  db: Kysely<Database>,
  name: string,
  holder: string,
  now: string,
  until: string,
): Promise<number | null> {
  const result = await db
    .updateTable('outbox_consumers')
    .set({ holder, lease_until: until })
    .where('name', '=', name)
    .where((eb) => eb.or([eb('holder', '=', holder), eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .returning('cursor')
    .executeTakeFirst();
  return result ? Number(result.cursor) : null;
}

/** Moves the cursor in the caller's transaction, only while `holder` holds the lease: false when it was lost. */
export async function advanceConsumer(trx: Kysely<Database>, name: string, holder: string, from: number, to: number): Promise<boolean> {
  const result = await trx
    .updateTable('outbox_consumers')
    .set({ cursor: to })
    .where('name', '=', name)
    .where('holder', '=', holder)
    .where('cursor', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function releaseConsumer(db: Kysely<Database>, name: string, holder: string): Promise<void> {
  await db
    .updateTable('outbox_consumers')
    .set({ holder: null, lease_until: null })
    .where('name', '=', name)
    .where('holder', '=', holder)
    .execute();
}

export function consumerCursor(db: Kysely<Database>, name: string) {
  return db.selectFrom('outbox_consumers').select(['cursor']).where('name', '=', name).executeTakeFirst();
}
