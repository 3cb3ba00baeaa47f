import type { Kysely } from 'kysely';

// Frozen: never edit after it has landed; add a new numbered migration instead.

/*
 * Photos that show the defect (docs/design.md §22, docs/decisions.md "Photos: markup, stages, captions"):
 *
 * - `attachments.annotates`: the photo a marked-up picture was drawn on (an attachment of the same item or
 *   answer), null for a photo as taken. No REFERENCES, as migration 019 does for `items.plan_id` (SQLite cannot
 *   drop a column a foreign key uses in down()); the service sets it only to an attachment it has read.
 * - `attachments.stage`: `defect`, `fix` or null (none), chosen at upload, changeable later.
 * - `attachments.caption`: plain text, at most 200 characters, null for none.
 * - `attachments.markup_key`: the key the markup view gave a "Save markup" (one per drawing), unique per
 *   uploader, so that the same drawing sent twice (a double tap, the outbox resending days later, after the
 *   24 h of idempotency keys) is stored once.
 *
 * An UPDATE of an attachment (stage, caption) already bumps its item's card (migration 015's triggers).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('attachments').addColumn('annotates', 'bigint').execute();
  await db.schema.alterTable('attachments').addColumn('stage', 'text').execute();
  await db.schema.alterTable('attachments').addColumn('caption', 'text').execute();
  await db.schema.alterTable('attachments').addColumn('markup_key', 'text').execute();
  await db.schema.createIndex('attachments_annotates').on('attachments').column('annotates').execute();
  await db.schema.createIndex('attachments_markup_key').on('attachments').columns(['uploaded_by', 'markup_key']).unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('attachments_markup_key').execute();
  await db.schema.dropIndex('attachments_annotates').execute();
  await db.schema.alterTable('attachments').dropColumn('markup_key').execute();
  await db.schema.alterTable('attachments').dropColumn('caption').execute();
  await db.schema.alterTable('attachments').dropColumn('stage').execute();
  await db.schema.alterTable('attachments').dropColumn('annotates').execute();
}
