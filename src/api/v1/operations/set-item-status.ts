import { Type } from 'typebox';
import { ItemIdArgument, NEVER_WORK_AROUND } from './tool-inputs.js';
import { defineOperation, jsonWriteErrors } from '../define-operation.js';
import { ItemStatus } from '../schemas.js';
import { StatusChange } from '../../../http/write-inputs.js';
import { AT } from './examples.js';
import { ItemIdField, strict } from './shared.js';

export const setItemStatus = defineOperation({
  method: 'PATCH',
  path: '/items/status.php',
  scope: 'items:status.write',
  tag: 'items',
  body: 'json',
  status: 200,
  summary: 'Change the status of an item (same status again: changed false, no history entry)',
  description:
    '`status` is one of `pending`, `in_progress`, `done`, `blocked` (anything else: 422). Setting the current ' +
    'status again answers 200 with `changed: false` and adds no history entry.',
  fields: strict({ id: ItemIdField, ...StatusChange }),
  data: Type.Object({
    item: Type.Object({ id: Type.Integer(), status: ItemStatus, updated_at: Type.String({ format: 'date-time' }) }),
    changed: Type.Boolean(),
  }),
  audit: { entity: 'item', field: 'id' },
  errors: jsonWriteErrors('forbidden', 'not_found', 'validation_error'),
  examples: {
    body: { id: 1000, status: 'done' },
    data: { item: { id: 1000, status: 'done', updated_at: AT }, changed: true },
  },
  handler: ({ user, fields: { id, status }, audit }, { itemWrites }) => itemWrites.setStatus(user, id, status, audit),
  client: { positional: ['id', 'status'] },
  mcp: {
    tool: 'set_item_status',
    title: 'Set an item status',
    // Not destructive: every past status stays in the item's history.
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    description:
      'Sets the status of one item: pending, in_progress, done or blocked. Setting the current status again changes ' +
      `nothing (changed: false). ${NEVER_WORK_AROUND}`,
    rename: { id: ItemIdArgument },
  },
});
