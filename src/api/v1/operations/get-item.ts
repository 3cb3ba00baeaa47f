import { Type } from 'typebox';
import { ItemIdArgument } from './tool-inputs.js';
import { defineOperation, readErrors } from '../define-operation.js';
import { Item, QueryId } from '../schemas.js';
import { answer, AT, attachment, CREATED, executor, link, manager } from './examples.js';
import { READ, strict } from './shared.js';

/**
 * The spec's status_history has two kinds, `created` and `status_changed`. A return to rework (web) is a
 * status change, so it is one here, its reason in `note`; a verdict is not, so it stays out (the web
 * item page shows the whole history).
 */
function v1StatusHistory<T extends { kind: string; to: string | null }>(history: T[]) {
  return history.flatMap((h) =>
    h.kind !== 'created' && h.to === null
      ? []
      : [{ ...h, kind: h.kind === 'created' ? ('created' as const) : ('status_changed' as const) }],
  );
}

export const getItem = defineOperation({
  method: 'GET',
  path: '/items/get.php',
  scope: 'items:read',
  tag: 'items',
  body: 'none',
  status: 200,
  summary: 'The item card',
  description:
    'The item card: text, read-only description, status, planning fields, participants, comments, answers (with ' +
    'their links and images), images, document links, status history, and the informational verdict fields.',
  query: strict({ id: QueryId('The item id') }),
  data: Type.Object({ item: Item }),
  audit: { entity: 'item', field: 'id' },
  errors: readErrors('not_found', 'validation_error'),
  examples: {
    query: { id: '1000' },
    data: {
      item: {
        id: 1000,
        project_id: 1,
        section_id: 10,
        checklist_id: 100,
        text: 'Extinguishers checked and tagged',
        description: 'Every extinguisher has a valid inspection tag and is within reach.',
        status: 'in_progress',
        priority: 'high',
        deadline: '2026-05-15',
        requires_answer: true,
        verdict: null,
        rework_reason: null,
        rework_deadline: null,
        participants: [{ id: 3, name: 'Egor Executor', role: 'executor' }],
        comments: [{ id: 5000, text: 'Please attach the inspection act.', author: manager, created_at: CREATED }],
        answers: [{ ...answer, id: 7000, status: 'approved', attachments: [attachment(901, 'answers', 7000)] }],
        attachments: [attachment(900, 'items', 1000)],
        document_links: [link],
        status_history: [
          { kind: 'created', from: null, to: 'pending', at: CREATED, user: null, note: null },
          { kind: 'status_changed', from: 'pending', to: 'in_progress', at: AT, user: executor, note: null },
        ],
        location: { plan_id: 1, plan_name: 'Ground floor', x: 0.42, y: 0.31 },
        category: 'Electrical',
        fields: { Severity: 'high', 'Cost estimate': '1250' },
        responsible_company: { id: 1, name: 'Sparks Ltd' },
        ball_in_court: 'review',
        disputed: null,
        can_verdict: true,
        can_return_to_rework: true,
        created_at: CREATED,
        updated_at: AT,
      },
    },
  },
  handler: async ({ user, query }, { items }) => {
    const { item } = await items.getItemCard(user, Number(query.id));
    return { item: { ...item, status_history: v1StatusHistory(item.status_history) } };
  },
  cache: { version: ({ query }, { cacheVersions }) => cacheVersions.card(Number(query.id)) },
  client: { positional: ['id'] },
  mcp: {
    tool: 'get_item',
    title: 'Get an item card',
    hints: READ,
    description:
      'Returns the full item card: text, description (read-only), status, deadline, priority, requires_answer, ' +
      'participants, comments, answers with their review status, images, document links and status history. Read it ' +
      'before changing an item.',
    rename: { id: ItemIdArgument },
  },
});
