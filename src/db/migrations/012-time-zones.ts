import type { Kysely } from 'kysely';

// Frozen: never edit after it has landed; add a new numbered migration instead.

/*
 * A user's time zone (docs/design.md §14): an IANA name such as `Europe/Berlin`, chosen in the Profile; null until
 * chosen (the web then uses the browser's, reported at sign-in, and UTC where it has none). The web shows every
 * time in it; the daily digest of notifications is sent at 07:00 in it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('time_zone', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('time_zone').execute();
}
