import type { Kysely } from 'kysely';

// Frozen: never edit after it has landed; add a new numbered migration instead.

/**
 * The language a user chose in the Profile (docs/design.md §23): `en`, `ru`, `de`; null: none chosen, the browser's
 * `Accept-Language` decides (src/i18n).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('language', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('language').execute();
}
