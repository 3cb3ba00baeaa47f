import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/tables.js';
import { type DocumentLinkInput, normalizeDocumentLinks, normalizeText } from '../../domain/inputs.js';
import type { AuditService } from '../audit/audit.service.js';
import type { Author } from '../comments/comments.service.js';
import { type AuditEntryBuilder, insertDocumentLinks, itemWriteTransaction, touchItem } from '../items/item-transaction.js';
import type { ItemsService } from '../items/items.service.js';

export function createAnswersService(db: Kysely<Database>, items: ItemsService, audit: AuditService, clock: Clock) {
  return {
    /** Adds an answer (text and optional links) awaiting review; returns it shaped like the item card's answers. */
    async addAnswer(
      actor: Author,
      itemId: number,
      input: { text: string; document_links?: readonly DocumentLinkInput[] },
      buildAudit?: AuditEntryBuilder,
    ) {
      const text = normalizeText(input.text);
      const links = normalizeDocumentLinks(input.document_links ?? []);
      await items.authorize(actor, itemId, 'answer.add');
      return itemWriteTransaction(db, audit, itemId, buildAudit, async (trx) => {
        const now = clock.now().toISOString();
        const row = await trx
          .insertInto('answers')
          .values({ item_id: itemId, author_id: actor.id, text, status: 'pending', created_at: now, updated_at: now })
          .returning('id')
          .executeTakeFirstOrThrow();
        const document_links = await insertDocumentLinks(trx, itemId, row.id, links, now);
        await touchItem(trx, itemId, now);
        return {
          answer: {
            id: row.id,
            text,
            status: 'pending',
            author: { id: actor.id, name: actor.name },
            document_links,
            attachments: [],
            created_at: now,
            updated_at: now,
          },
        };
      });
    },
  };
}

export type AnswersService = ReturnType<typeof createAnswersService>;
