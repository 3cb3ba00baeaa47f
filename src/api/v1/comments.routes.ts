import { Type } from 'typebox';
import { setAuditEntity } from '../request-state.js';
import { Envelope } from '../envelope.js';
import { auditedWrite } from './audited-write.js';
import { BodyId, Comment } from './schemas.js';
import { Text } from './write-schemas.js';
import type { V1App } from './plugin.js';

export async function commentsRoutes(app: V1App) {
  const { comments } = app.ctx;

  app.post(
    '/comments/create.php',
    {
      config: { scope: 'comments:write' },
      schema: {
        summary: 'Add a text comment to an item',
        body: Type.Object({ item_id: BodyId, text: Text }),
        response: { 201: Envelope(Type.Object({ comment: Comment })) },
      },
    },
    async (request, reply) => {
      const { item_id, text } = request.body;
      setAuditEntity(request, 'item', item_id);
      return auditedWrite(request, reply, 201, (audit) => comments.addComment(request.principal!.user, item_id, { text }, audit));
    },
  );
}
