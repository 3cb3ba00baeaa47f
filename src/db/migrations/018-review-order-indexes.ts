import { type Kysely, sql } from 'kysely';

// Frozen: never edit after it has landed; add a new numbered migration instead.

/**
 * What waits for review, in the order "To review" lists it (oldest first, then by item): the pending answers by
 * (created_at, item_id, id) and the done items without a verdict by (updated_at, id). The page's query merges the
 * two in that order and stops after its page, instead of sorting an admin's whole queue (58 658 rows in the
 * benchmark's 100 000-item workspace) for every page (docs/performance.md, "To review").
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('answers_pending_in_order')
    .on('answers')
    .columns(['created_at', 'item_id', 'id'])
    .where(sql<boolean>`status = 'pending'`)
    .execute();
  await db.schema
    .createIndex('items_awaiting_verdict_in_order')
    .on('items')
    .columns(['updated_at', 'id'])
    .where(sql<boolean>`status = 'done' and verdict is null`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('items_awaiting_verdict_in_order').execute();
  await db.schema.dropIndex('answers_pending_in_order').execute();
}
