import type { Kysely } from 'kysely';

// Frozen: never edit after it has landed; add a new numbered migration instead.

/*
 * Retention of OAuth rows (features/retention): refresh tokens 30 days after their use, and clients that no
 * user allowed within 7 days of their registration. Each rule reads by its time column; a client's grants
 * are looked up by client_id.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('oauth_refresh_tokens_used').on('oauth_refresh_tokens').column('used_at').execute();
  await db.schema.createIndex('oauth_clients_created').on('oauth_clients').column('created_at').execute();
  await db.schema.createIndex('oauth_grants_client').on('oauth_grants').column('client_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('oauth_grants_client').execute();
  await db.schema.dropIndex('oauth_clients_created').execute();
  await db.schema.dropIndex('oauth_refresh_tokens_used').execute();
}
