import type { Kysely, Transaction } from 'kysely';
import { precompile } from '../../../db/precompiled.js';
import type { Database } from '../../../db/tables.js';

/** The comments table; its insert runs in the item write path's transaction. */
export function createCommentsRepository(db: Kysely<Database>) {
  // Compiled once (db/precompiled.ts): comments are the most frequent creating write.
  const insertComment = precompile(db, (db, p: { itemId: number; authorId: number; text: string; now: string }) =>
    db.insertInto('comments').values({ item_id: p.itemId, author_id: p.authorId, text: p.text, created_at: p.now }).returning('id'),
  );
  return {
    /** The statements of an item write, bound to its transaction (features/items/write-repositories.ts). */
    bind: (trx: Transaction<Database>) => ({
      async insert(comment: { itemId: number; authorId: number; text: string; now: string }): Promise<number> {
        const row = await insertComment.executeTakeFirst(comment, trx);
        if (!row) throw new Error('the comment insert returned no id');
        return row.id;
      },
    }),
  };
}

export type CommentsRepository = ReturnType<typeof createCommentsRepository>;
