import type { Insertable, Kysely, Transaction } from 'kysely';
import type { AttachmentsTable, Database } from '../../../db/tables.js';

/** The attachments table. */
export function createAttachmentsRepository(db: Kysely<Database>) {
  return {
    /** The statements of an item write, bound to its transaction (features/items/write-repositories.ts). */
    bind: (trx: Transaction<Database>) => ({
      /** Inserts the rows; returns them in no particular order (multi-row RETURNING). */
      insertMany(rows: readonly Insertable<AttachmentsTable>[]) {
        return trx
          .insertInto('attachments')
          .values([...rows])
          .returning(['id', 'answer_id', 'original_name', 'mime_type', 'path', 'size', 'width', 'height', 'created_at'])
          .returning(['annotates', 'stage', 'caption'])
          .execute();
      },

      /** A photo as the card shows it, read under the item's lock. */
      photo(attachmentId: number) {
        return trx.selectFrom('attachments').selectAll().where('id', '=', attachmentId).executeTakeFirstOrThrow();
      },

      /** A photo's new stage and caption (docs/design.md §22). */
      async describe(attachmentId: number, changes: { stage: string | null; caption: string | null }) {
        await trx.updateTable('attachments').set(changes).where('id', '=', attachmentId).execute();
      },
    }),

    /** The markup `uploadedBy` already saved under `key` (docs/design.md §22), if any. */
    findMarkup(uploadedBy: number, key: string) {
      return db
        .selectFrom('attachments')
        .select(['id', 'item_id', 'answer_id', 'original_name', 'mime_type', 'path', 'size', 'width', 'height', 'created_at'])
        .select(['annotates', 'stage', 'caption'])
        .where('uploaded_by', '=', uploadedBy)
        .where('markup_key', '=', key)
        .executeTakeFirst();
    },

    /** Whose photo it is and what it already says: for a markup or a change of its stage or caption. */
    findPhoto(attachmentId: number) {
      return db
        .selectFrom('attachments')
        .select(['id', 'item_id', 'answer_id', 'annotates', 'stage', 'caption', 'uploaded_by'])
        .where('id', '=', attachmentId)
        .executeTakeFirst();
    },

    findForDownload(attachmentId: number) {
      return db
        .selectFrom('attachments')
        .select(['id', 'item_id', 'answer_id', 'path', 'size'])
        .where('id', '=', attachmentId)
        .executeTakeFirst();
    },

    /** Which of these storage keys an attachment row refers to. */
    async referencedPaths(keys: readonly string[]): Promise<Set<string>> {
      return new Set(
        (
          await db
            .selectFrom('attachments')
            .select('path')
            .where('path', 'in', [...keys])
            .execute()
        ).map((row) => row.path),
      );
    },
  };
}

export type AttachmentsRepository = ReturnType<typeof createAttachmentsRepository>;
