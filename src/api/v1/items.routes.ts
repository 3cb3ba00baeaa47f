import { Type } from 'typebox';
import { setAuditEntity } from '../request-state.js';
import { Envelope, ok } from '../envelope.js';
import { auditedWrite } from './audited-write.js';
import { BodyId, DocumentLink, Item, ItemStatus, Nullable, Priority, QueryId } from './schemas.js';
import { DocumentLinksInput } from './write-schemas.js';
import type { V1App } from './plugin.js';

const StatusBody = Type.Object({ id: BodyId, status: ItemStatus });

const PlanningBody = Type.Object({
  id: BodyId,
  deadline: Type.Optional(Type.Union([Type.String({ errorMessage: 'must be a date YYYY-MM-DD, "" or null' }), Type.Null()])),
  priority: Type.Optional(Priority),
  requires_answer: Type.Optional(Type.Boolean({ errorMessage: 'must be true or false' })),
});

const LinksBody = Type.Object({ id: BodyId, document_links: DocumentLinksInput });

const StatusResult = Type.Object({
  item: Type.Object({ id: Type.Integer(), status: Type.String(), updated_at: Type.String({ format: 'date-time' }) }),
  changed: Type.Boolean(),
});

const PlanningResult = Type.Object({
  item: Type.Object({
    id: Type.Integer(),
    deadline: Nullable(Type.String({ format: 'date' })),
    priority: Type.String(),
    requires_answer: Type.Boolean(),
    updated_at: Type.String({ format: 'date-time' }),
  }),
});

/**
 * The spec's status_history has two kinds, `created` and `status_changed`. A return to rework (web) is a
 * status change, so it is one here, its reason in `note`; a verdict is not, so it stays out (the web
 * item page shows the whole history).
 */
function v1StatusHistory<T extends { kind: string; to: string | null }>(history: T[]) {
  return history.flatMap((h) => (h.kind !== 'created' && h.to === null ? [] : [{ ...h, kind: h.kind === 'created' ? ('created' as const) : ('status_changed' as const) }]));
}

export async function itemsRoutes(app: V1App) {
  const { items, itemWrites } = app.ctx;

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
      const { item } = await items.getItemCard(request.principal!.user, Number(request.query.id));
      return ok(request, { item: { ...item, status_history: v1StatusHistory(item.status_history) } });
    },
  );

  app.patch(
    '/items/status.php',
    {
      config: { scope: 'items:status.write' },
      schema: {
        summary: 'Change the status of an item (same status again: changed false, no history entry)',
        body: StatusBody,
        response: { 200: Envelope(StatusResult) },
      },
    },
    async (request, reply) => {
      const { id, status } = request.body;
      setAuditEntity(request, 'item', id);
      return auditedWrite(request, reply, 200, (audit) => itemWrites.setStatus(request.principal!.user, id, status, audit));
    },
  );

  app.patch(
    '/items/planning.php',
    {
      config: { scope: 'items:planning.write' },
      schema: {
        summary: 'Change deadline, priority and/or requires_answer of an item',
        body: PlanningBody,
        response: { 200: Envelope(PlanningResult) },
      },
    },
    async (request, reply) => {
      const { id, deadline, priority, requires_answer } = request.body;
      setAuditEntity(request, 'item', id);
      return auditedWrite(request, reply, 200, (audit) =>
        itemWrites.setPlanning(request.principal!.user, id, { deadline, priority, requires_answer }, audit),
      );
    },
  );

  app.put(
    '/items/links.php',
    {
      config: { scope: 'items:materials.write' },
      schema: {
        summary: 'Replace the whole list of document links of an item ([] clears it)',
        body: LinksBody,
        response: { 200: Envelope(Type.Object({ document_links: Type.Array(DocumentLink) })) },
      },
    },
    async (request, reply) => {
      const { id, document_links } = request.body;
      setAuditEntity(request, 'item', id);
      return auditedWrite(request, reply, 200, (audit) => itemWrites.replaceItemLinks(request.principal!.user, id, document_links, audit));
    },
  );
}
