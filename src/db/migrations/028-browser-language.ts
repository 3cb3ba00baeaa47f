import type { Kysely } from 'kysely';

// Frozen: never edit after it has landed; add a new numbered migration instead.

/**
 * The language the user's browser asked for at their last sign-in (`Accept-Language`, resolved to one we speak;
 * docs/decisions.md "Languages: a user with no stored language"): what their emails, notifications and reports
 * are written in while they have chosen none in the Profile (`language` null). Null: never signed in with a browser
 * that asked.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('browser_language', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('browser_language').execute();
}
