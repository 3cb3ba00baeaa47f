import type { Kysely } from 'kysely';
import { precompile } from '../../db/precompiled.js';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/tables.js';
import { normalizeText } from '../../domain/inputs.js';
import type { Actor } from '../../domain/policy.js';
import { type AuditEntryBuilder, type ItemWriter, touchItem } from '../items/item-transaction.js';
import type { ItemsService } from '../items/items.service.js';

/** The acting user, named in what the write returns. */
export type Author = Actor & { name: string };

export function createCommentsService(db: Kysely<Database>, items: ItemsService, writer: ItemWriter, clock: Clock) {
  // Compiled once (db/precompiled.ts): comments are the most frequent creating write.
  const insertComment = precompile(db, (db, p: { itemId: number; authorId: number; text: string; now: string }) =>
    db.insertInto('comments').values({ item_id: p.itemId, author_id: p.authorId, text: p.text, created_at: p.now }).returning('id'),
  );
  return {
    /** Adds a text-only comment to an item; returns it shaped like the item card's comments. */
    async addComment(actor: Author, itemId: number, input: { text: string }, buildAudit?: AuditEntryBuilder) {
      const text = normalizeText(input.text);
      const authorize = (trx: Kysely<Database>) => items.authorize(actor, itemId, 'comment.add', {}, trx);
      return writer.write(
        itemId,
        actor,
        buildAudit,
        async (trx, emit) => {
          const now = clock.now().toISOString();
          const row = await insertComment.executeTakeFirst({ itemId, authorId: actor.id, text, now }, trx);
          if (!row) throw new Error('the comment insert returned no id');
          await touchItem(trx, itemId, now);
          const comment = { id: row.id, text, author: { id: actor.id, name: actor.name }, created_at: now };
          emit('comment.created', { comment });
          return { comment };
        },
        authorize,
      );
    },
  };
}

export type CommentsService = ReturnType<typeof createCommentsService>;
