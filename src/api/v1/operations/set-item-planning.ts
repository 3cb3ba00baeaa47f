import { Type } from 'typebox';
import { ItemIdArgument, NEVER_WORK_AROUND } from './tool-inputs.js';
import { defineOperation, jsonWriteErrors } from '../define-operation.js';
import { NullableString, Priority } from '../schemas.js';
import { PlanningChange } from '../../../http/write-inputs.js';
import { AT } from './examples.js';
import { ItemIdField, strict } from './shared.js';

export const setItemPlanning = defineOperation({
  method: 'PATCH',
  path: '/items/planning.php',
  scope: 'items:planning.write',
  tag: 'items',
  body: 'json',
  status: 200,
  summary: 'Change deadline, priority and/or requires_answer of an item',
  description:
    'Send `id` and at least one of `deadline` (`YYYY-MM-DD`; `null` or `""` clears it, `null` preferred), ' +
    '`priority` (`low`, `medium`, `high`) and `requires_answer` (boolean). Fields not sent stay unchanged.',
  fields: strict({ id: ItemIdField, ...PlanningChange }),
  data: Type.Object({
    item: Type.Object({
      id: Type.Integer(),
      deadline: NullableString({ format: 'date' }),
      priority: Priority,
      requires_answer: Type.Boolean(),
      updated_at: Type.String({ format: 'date-time' }),
    }),
  }),
  audit: { entity: 'item', field: 'id' },
  errors: jsonWriteErrors('forbidden', 'not_found', 'validation_error'),
  examples: {
    body: { id: 1000, deadline: '2026-06-30', priority: 'high' },
    data: { item: { id: 1000, deadline: '2026-06-30', priority: 'high', requires_answer: true, updated_at: AT } },
  },
  handler: ({ user, fields: { id, deadline, priority, requires_answer }, audit }, { itemWrites }) =>
    itemWrites.setPlanning(user, id, { deadline, priority, requires_answer }, audit),
  client: { positional: ['id'], rest: 'changes' },
  mcp: {
    tool: 'set_item_planning',
    title: 'Set item planning',
    // Destructive: the former deadline and priority are kept nowhere.
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    description:
      'Changes the planning fields of one item; give at least one: deadline (YYYY-MM-DD, or null to clear it), ' +
      `priority (low, medium, high), requires_answer (boolean). Fields not given stay as they are. ${NEVER_WORK_AROUND}`,
    rename: { id: ItemIdArgument },
  },
});
