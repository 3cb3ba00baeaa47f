import { type Kysely, PostgresAdapter } from 'kysely';

// Frozen: never edit after it has landed; add a new numbered migration instead.

/**
 * OAuth 2.1 (docs/design.md §12): clients registered dynamically (RFC 7591), grants (a user's consent to one
 * client, with its scopes and expiry; `token_id` is the ordinary API token that carries its access),
 * authorization codes and refresh tokens, both stored as SHA-256 only.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const id = postgres ? ('bigserial' as const) : ('integer' as const);
  await db.schema
    .createTable('oauth_clients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_name', 'text', (c) => c.notNull())
    .addColumn('redirect_uris', 'text', (c) => c.notNull())
    .addColumn('scope', 'text')
    .addColumn('client_uri', 'text')
    .addColumn('software_id', 'text')
    .addColumn('software_version', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('oauth_grants')
    .addColumn('id', id, (c) => (postgres ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('client_id', 'text', (c) => c.notNull().references('oauth_clients.id'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('token_id', 'bigint', (c) => c.references('api_tokens.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('revoked_at', 'text')
    .addColumn('revoked_reason', 'text')
    .execute();
  await db.schema.createIndex('oauth_grants_user').on('oauth_grants').columns(['user_id', 'id']).execute();
  await db.schema.createIndex('oauth_grants_token').on('oauth_grants').column('token_id').execute();
  await db.schema
    .createTable('oauth_codes')
    .addColumn('id', id, (c) => (postgres ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('code_hash', 'text', (c) => c.notNull().unique())
    .addColumn('grant_id', 'bigint', (c) => c.notNull().references('oauth_grants.id'))
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('resource', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('oauth_codes_expires').on('oauth_codes').column('expires_at').execute();
  await db.schema
    .createTable('oauth_refresh_tokens')
    .addColumn('id', id, (c) => (postgres ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('grant_id', 'bigint', (c) => c.notNull().references('oauth_grants.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('oauth_refresh_tokens_grant').on('oauth_refresh_tokens').column('grant_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oauth_refresh_tokens').execute();
  await db.schema.dropTable('oauth_codes').execute();
  await db.schema.dropTable('oauth_grants').execute();
  await db.schema.dropTable('oauth_clients').execute();
}
