import type { Clock } from '../../../shared/clock.js';
import { type DocumentLinkInput, normalizeDocumentLinks, normalizeText } from '../../../domain/inputs.js';
import type { PreparedImages } from '../attachments/attachments.service.js';
import type { Actor } from '../../../domain/policy.js';
import { notFound } from '../../../shared/errors.js';
import type { Author } from '../comments/comments.service.js';
import type { ItemWriter } from '../item-writer.js';
import type { AuditEntryBuilder } from '../../write-path/write-path.js';
import type { ItemsService } from '../items.service.js';
import type { AnswersRepository } from './answers.repository.js';

export function createAnswersService(repo: AnswersRepository, items: ItemsService, writer: ItemWriter, clock: Clock) {
  return {
    /** The item an answer belongs to, for whoever can see it; 404 otherwise. */
    async itemOfAnswer(actor: Actor, answerId: number): Promise<number> {
      const answer = await repo.findOwner(answerId);
      if (!answer) throw notFound('The answer');
      await items.access(actor, answer.item_id).catch(() => {
        throw notFound('The answer');
      });
      return answer.item_id;
    },

    /**
     * Adds an answer (text, optional links, optional images) awaiting review; returns it shaped like the
     * item card's answers. Images (web form) are checked and converted once the right is known
     * (`attachments.prepare`) and stored in the same write: the answer exists with all of them or not at all.
     */
    async addAnswer(
      actor: Author,
      itemId: number,
      input: { text: string; document_links?: readonly DocumentLinkInput[]; prepareImages?: () => Promise<PreparedImages> },
      buildAudit?: AuditEntryBuilder,
    ) {
      const text = normalizeText(input.text);
      const links = normalizeDocumentLinks(input.document_links ?? []);
      await items.authorize(actor, itemId, 'answer.add');
      // Image content is checked after the right (the check order of uploads), before anything is written.
      const images = await input.prepareImages?.();
      const write = writer.write({ itemId, actor, audit: buildAudit }, async (repos, emit) => {
        const now = clock.now().toISOString();
        const id = await repos.answers.insert({
          item_id: itemId,
          author_id: actor.id,
          text,
          status: 'pending',
          created_at: now,
          updated_at: now,
        });
        const document_links = await repos.items.insertDocumentLinks(itemId, id, links, now);
        const attachments = images ? await images.insert(repos, { itemId, answerId: id, actorId: actor.id }, now) : [];
        await repos.items.touch(itemId, now);
        const answer = {
          id,
          text,
          status: 'pending',
          author: { id: actor.id, name: actor.name },
          document_links,
          attachments,
          created_at: now,
          updated_at: now,
        };
        emit('answer.created', { answer });
        return { answer };
      });
      return write.catch(async (err: unknown) => {
        await images?.discard();
        throw err;
      });
    },
  };
}

export type AnswersService = ReturnType<typeof createAnswersService>;
