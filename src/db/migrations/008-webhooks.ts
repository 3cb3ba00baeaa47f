import { type Kysely, PostgresAdapter } from 'kysely';

// Frozen: never edit after it has landed; add a new numbered migration instead.

/**
 * Webhook endpoints and their delivery log (docs/design.md §11). An endpoint reads the event outbox in order
 * from its own cursor (`cursor`: the last event it is done with); `lease_until` lets one node at a time
 * deliver to it. A delivery row is one attempt, kept for the log and for "Redeliver".
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const id = postgres ? ('bigserial' as const) : ('integer' as const);
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', id, (c) => (postgres ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('event_types', 'text')
    .addColumn('project_id', 'bigint')
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('cursor', 'bigint', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failing_since', 'text')
    .addColumn('next_attempt_at', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_endpoints_user').on('webhook_endpoints').columns(['user_id', 'id']).execute();
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', id, (c) => (postgres ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('endpoint_id', 'bigint', (c) => c.notNull().references('webhook_endpoints.id'))
    .addColumn('event_id', 'bigint', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('redelivery', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('response_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_deliveries_endpoint').on('webhook_deliveries').columns(['endpoint_id', 'id']).execute();
  await db.schema.createIndex('webhook_deliveries_at').on('webhook_deliveries').column('at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhook_endpoints').execute();
}
