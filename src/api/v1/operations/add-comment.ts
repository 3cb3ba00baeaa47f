import { Type } from 'typebox';
import { ItemIdArgument, NEVER_WORK_AROUND } from './tool-inputs.js';
import { defineOperation, jsonWriteErrors } from '../define-operation.js';
import { Comment } from '../schemas.js';
import { CommentInput } from '../../../http/write-inputs.js';
import { AT, executor } from './examples.js';
import { ADDITIVE, ItemIdField, strict } from './shared.js';

export const addComment = defineOperation({
  method: 'POST',
  path: '/comments/create.php',
  scope: 'comments:write',
  tag: 'comments',
  body: 'json',
  status: 201,
  summary: 'Add a text comment to an item',
  description: 'Text only (1–20 000 characters, stored trimmed); files and links belong in answers.',
  fields: strict({ item_id: ItemIdField, ...CommentInput }),
  data: Type.Object({ comment: Comment }),
  audit: { entity: 'item', field: 'item_id' },
  errors: jsonWriteErrors('forbidden', 'not_found', 'validation_error'),
  examples: {
    body: { item_id: 1000, text: 'The tags of the second floor are checked too.' },
    data: { comment: { id: 5002, text: 'The tags of the second floor are checked too.', author: executor, created_at: AT } },
  },
  handler: ({ user, fields: { item_id, text }, audit }, { comments }) => comments.addComment(user, item_id, { text }, audit),
  client: { positional: ['item_id', 'text'] },
  mcp: {
    tool: 'add_comment',
    title: 'Add a comment',
    hints: ADDITIVE,
    description:
      'Adds a text comment to an item (plain text, 1–20 000 characters; no files or links: those go in answers). ' +
      `Comments cannot be edited or deleted. ${NEVER_WORK_AROUND}`,
    rename: { item_id: ItemIdArgument },
  },
});
