import { type Kysely, PostgresAdapter } from 'kysely';

// Frozen: never edit after it has landed; add a new numbered migration instead.

/**
 * The change feed's outbox (docs/design.md §11): one row per committed change, written in the change's own
 * transaction. Where the change happened (project, section, checklist, item) is kept on the row, so who may
 * see it is decided when the feed is read, without the item.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('events')
    .addColumn('id', postgres ? 'bigserial' : 'integer', (c) => (postgres ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('project_id', 'bigint', (c) => c.notNull())
    .addColumn('section_id', 'bigint')
    .addColumn('checklist_id', 'bigint')
    .addColumn('item_id', 'bigint')
    .addColumn('actor_id', 'bigint')
    .addColumn('token_id', 'bigint')
    .addColumn('data', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_project').on('events').columns(['project_id', 'id']).execute();
  await db.schema.createIndex('events_item').on('events').columns(['item_id', 'id']).execute();
  await db.schema.createIndex('events_at').on('events').column('at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('events').execute();
}
