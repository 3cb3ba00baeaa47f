import { Type } from 'typebox';
import { setAuditEntity } from '../request-state.js';
import { Envelope } from '../envelope.js';
import { auditedWrite } from './audited-write.js';
import { Answer, BodyId } from './schemas.js';
import { DocumentLinksInput, Text } from './write-schemas.js';
import type { V1App } from './plugin.js';

export async function answersRoutes(app: V1App) {
  const { answers } = app.ctx;

  app.post(
    '/answers/create.php',
    {
      config: { scope: 'answers:write' },
      schema: {
        summary: 'Add an answer (text and optional document links) to an item; it awaits review',
        body: Type.Object({ item_id: BodyId, text: Text, document_links: Type.Optional(DocumentLinksInput) }),
        response: { 201: Envelope(Type.Object({ answer: Answer })) },
      },
    },
    async (request, reply) => {
      const { item_id, text, document_links } = request.body;
      setAuditEntity(request, 'item', item_id);
      return auditedWrite(request, reply, 201, (audit) =>
        answers.addAnswer(request.principal!.user, item_id, { text, document_links }, audit),
      );
    },
  );
}
