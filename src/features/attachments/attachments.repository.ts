import type { Insertable, Kysely, Transaction } from 'kysely';
import type { AttachmentsTable, Database } from '../../db/tables.js';

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
          .execute();
      },
    }),

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
