import type { Clock } from '../../../shared/clock.js';
import { normalizeText } from '../../../domain/inputs.js';
import type { Actor } from '../../../domain/policy.js';
import type { ItemWriter } from '../item-writer.js';
import type { AuditEntryBuilder } from '../../write-path/write-path.js';

/** The acting user, named in what the write returns. */
export type Author = Actor & { name: string };

/** Comments are only written: through the item's write path, with the repositories of its transaction. */
export function createCommentsService(writer: ItemWriter, clock: Clock) {
  return {
    /** Adds a text-only comment to an item; returns it shaped like the item card's comments. */
    async addComment(actor: Author, itemId: number, input: { text: string }, buildAudit?: AuditEntryBuilder) {
      const text = normalizeText(input.text);
      return writer.write({ itemId, actor, action: 'comment.add', audit: buildAudit }, async (repos, emit) => {
        const now = clock.now().toISOString();
        const id = await repos.comments.insert({ itemId, authorId: actor.id, text, now });
        await repos.items.touch(itemId, now);
        const comment = { id, text, author: { id: actor.id, name: actor.name }, created_at: now };
        emit('comment.created', { comment });
        return { comment };
      });
    },
  };
}

export type CommentsService = ReturnType<typeof createCommentsService>;
