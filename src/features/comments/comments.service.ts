import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/tables.js';
import { normalizeText } from '../../domain/inputs.js';
import type { Actor } from '../../domain/policy.js';
import type { AuditEntryBuilder, ItemWriter } from '../items/item-writer.js';
import { touchItem } from '../items/items.repository.js';
import type { CommentsRepository } from './comments.repository.js';
import type { ItemsService } from '../items/items.service.js';

/** The acting user, named in what the write returns. */
export type Author = Actor & { name: string };

export function createCommentsService(repo: CommentsRepository, items: ItemsService, writer: ItemWriter, clock: Clock) {
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
          const id = await repo.insert(trx, { itemId, authorId: actor.id, text, now });
          await touchItem(trx, itemId, now);
          const comment = { id, text, author: { id: actor.id, name: actor.name }, created_at: now };
          emit('comment.created', { comment });
          return { comment };
        },
        authorize,
      );
    },
  };
}

export type CommentsService = ReturnType<typeof createCommentsService>;
