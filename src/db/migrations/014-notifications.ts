import { type Kysely, PostgresAdapter } from 'kysely';

// Frozen: never edit after it has landed; add a new numbered migration instead.

/**
 * Notifications (docs/design.md §15).
 *
 * - `notifications`: one row per person and reason; `key` names the reason (`event:<id>` for what an event
 *   caused, `deadline_tomorrow:<item>:<date>`, `token_7d:<token>`, …): unique per user, so nobody is told twice,
 *   whichever node computed it. `delivery` is how it goes out (email, digest, web), decided when it is made;
 *   `email_id` the email that carries it (one of its own, or a digest).
 * - `notification_emails`: the durable queue of emails; a node claims a row with `lease_until` (a conditional
 *   UPDATE) before sending; `key` unique (`n:<notification>` or `digest:<user>:<local date>`).
 * - `notification_preferences`: per user and kind, `email` / `digest` / `web` (no row: `email`).
 * - `outbox_consumers`: the cursor in the event outbox and the lease of a consumer that one node runs at a time.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const id = postgres ? ('bigserial' as const) : ('integer' as const);
  await db.schema
    .createTable('notifications')
    .addColumn('id', id, (c) => (postgres ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('user_id', 'bigint', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('event_id', 'bigint')
    .addColumn('project_id', 'bigint')
    .addColumn('item_id', 'bigint')
    .addColumn('token_id', 'bigint')
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('delivery', 'text', (c) => c.notNull())
    .addColumn('email_id', 'bigint')
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('read_at', 'text')
    .addColumn('emailed_at', 'text')
    .addUniqueConstraint('notifications_user_key', ['user_id', 'key'])
    .execute();
  await db.schema.createIndex('notifications_user_id').on('notifications').columns(['user_id', 'id']).execute();
  await db.schema.createIndex('notifications_email').on('notifications').column('email_id').execute();
  await db.schema.createIndex('notifications_read_at').on('notifications').column('read_at').execute();
  await db.schema
    .createTable('notification_emails')
    .addColumn('id', id, (c) => (postgres ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('user_id', 'bigint', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull().unique())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('to_address', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('lease_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('notification_emails_due').on('notification_emails').columns(['state', 'next_attempt_at']).execute();
  await db.schema.createIndex('notification_emails_user').on('notification_emails').columns(['user_id', 'id']).execute();
  await db.schema.createIndex('notification_emails_finished').on('notification_emails').column('finished_at').execute();
  await db.schema
    .createTable('notification_preferences')
    .addColumn('user_id', 'bigint', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('notification_preferences_pk', ['user_id', 'kind'])
    .execute();
  await db.schema
    .createTable('outbox_consumers')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('cursor', 'bigint', (c) => c.notNull())
    .addColumn('holder', 'text')
    .addColumn('lease_until', 'text')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('outbox_consumers').execute();
  await db.schema.dropTable('notification_preferences').execute();
  await db.schema.dropTable('notification_emails').execute();
  await db.schema.dropTable('notifications').execute();
}
