import { Type } from 'typebox';
import { setAuditEntity } from '../request-state.js';
import { Envelope, ok } from '../envelope.js';
import { Item, QueryId } from './schemas.js';
import type { V1App } from './plugin.js';

export async function itemsRoutes(app: V1App) {
  const { items } = app.ctx;

  app.get(
    '/items/get.php',
    {
      config: { scope: 'items:read' },
      schema: {
        summary: 'The item card',
        querystring: Type.Object({ id: QueryId }),
        response: { 200: Envelope(Type.Object({ item: Item })) },
      },
    },
    async (request) => {
      setAuditEntity(request, 'item', Number(request.query.id));
      return ok(request, await items.getItemCard(request.principal!.user, Number(request.query.id)));
    },
  );
}
