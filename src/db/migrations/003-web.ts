import { type Kysely, PostgresAdapter } from 'kysely';

// Frozen: never edit after it has landed; add a new numbered migration instead.

/*
 * The web interface: failed sign-in attempts, kept in the database so that the throttle holds across
 * restarts and across the nodes of one deployment. One row per failure and per key (`account:<email>`,
 * `ip:<address>`); rows older than the throttle window are deleted as new failures arrive.
 * Plus the indexes the session store needs (by user on deactivation, by expiry for clean-up).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const table = db.schema.createTable('web_sign_in_failures');
  await (
    db.getExecutor().adapter instanceof PostgresAdapter
      ? table.addColumn('id', 'bigserial', (c) => c.primaryKey())
      : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
  )
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('web_sign_in_failures_key').on('web_sign_in_failures').columns(['key', 'at']).execute();
  await db.schema.createIndex('web_sign_in_failures_at').on('web_sign_in_failures').column('at').execute();
  await db.schema.createIndex('web_sessions_user').on('web_sessions').column('user_id').execute();
  await db.schema.createIndex('web_sessions_expiry').on('web_sessions').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('web_sessions_expiry').execute();
  await db.schema.dropIndex('web_sessions_user').execute();
  await db.schema.dropTable('web_sign_in_failures').execute();
}
