import { Type } from 'typebox';
import { ItemIdArgument, NEVER_WORK_AROUND } from './tool-inputs.js';
import { defineOperation, jsonWriteErrors } from '../define-operation.js';
import { Answer } from '../schemas.js';
import { AnswerInput } from '../../../http/write-inputs.js';
import { answer } from './examples.js';
import { ADDITIVE, ItemIdField, strict } from './shared.js';

export const addAnswer = defineOperation({
  method: 'POST',
  path: '/answers/create.php',
  scope: 'answers:write',
  tag: 'answers',
  body: 'json',
  status: 201,
  summary: 'Add an answer (text and optional document links) to an item; it awaits review',
  description:
    'A substantive reply: text (1–20 000 characters) and optional `document_links` (each `{kind?, title, url}`, ' +
    'absolute http(s) URLs, at most 100). The new answer awaits review (`status: pending`).',
  fields: strict({ item_id: ItemIdField, ...AnswerInput }),
  data: Type.Object({ answer: Answer }),
  audit: { entity: 'item', field: 'item_id' },
  errors: jsonWriteErrors('forbidden', 'not_found', 'validation_error'),
  examples: {
    body: {
      item_id: 1000,
      text: 'All 24 extinguishers checked; the inspection act is linked.',
      document_links: [{ kind: 'document', title: 'Inspection act', url: 'https://example.com/docs/act-2026-05' }],
    },
    data: { answer },
  },
  handler: ({ user, fields: { item_id, text, document_links }, audit }, { answers }) =>
    answers.addAnswer(user, item_id, { text, document_links }, audit),
  client: { positional: ['item_id'], rest: 'answer' },
  mcp: {
    tool: 'add_answer',
    title: 'Add an answer',
    hints: ADDITIVE,
    description:
      'Adds an answer to an item: a substantive reply (text, optional document links) that a manager reviews; it starts ' +
      `as pending. Answers cannot be edited or deleted. ${NEVER_WORK_AROUND}`,
    rename: { item_id: ItemIdArgument },
  },
});
