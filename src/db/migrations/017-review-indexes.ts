import { type Kysely, sql } from 'kysely';

// Frozen: never edit after it has landed; add a new numbered migration instead.

/**
 * Partial indexes of what waits for review (the web's "To review" and its count on every page): the pending
 * answers, and the done items without a verdict with where they sit. Without them both were a scan of their
 * whole table; in the benchmark's 100 000-item workspace an admin's count took 110–130 ms of the event loop
 * per page (docs/performance.md, "The web's pages"). SQLite and PostgreSQL both take `WHERE` on an index.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('answers_pending')
    .on('answers')
    .column('item_id')
    .where(sql<boolean>`status = 'pending'`)
    .execute();
  await db.schema
    .createIndex('items_awaiting_verdict')
    .on('items')
    .columns(['project_id', 'section_id', 'checklist_id'])
    .where(sql<boolean>`status = 'done' and verdict is null`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('items_awaiting_verdict').execute();
  await db.schema.dropIndex('answers_pending').execute();
}
