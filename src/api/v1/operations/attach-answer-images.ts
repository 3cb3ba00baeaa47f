import { Type } from 'typebox';
import { NEVER_WORK_AROUND } from './tool-inputs.js';
import { defineOperation, uploadErrors } from '../define-operation.js';
import { AnswerStatus, Attachment, QueryId } from '../schemas.js';
import { attachment } from './examples.js';
import { ADDITIVE, strict } from './shared.js';

export const attachAnswerImages = defineOperation({
  method: 'POST',
  path: '/answers/attachments.php',
  scope: 'items:materials.write',
  tag: 'answers',
  body: 'multipart',
  status: 201,
  summary: 'Attach images to an answer (multipart: answer_id, attachments[]); an approved or rejected answer returns to pending',
  description:
    '`multipart/form-data` with `answer_id` and 1–10 files in `attachments[]` (same rules as item images). An ' +
    'approved or rejected answer returns to review: `status_reset: true` and `answer_status: pending`.',
  fields: strict({ answer_id: QueryId('The answer id (decimal)') }),
  data: Type.Object({ attachments: Type.Array(Attachment), status_reset: Type.Boolean(), answer_status: AnswerStatus }),
  audit: { entity: 'answer', field: 'answer_id' },
  errors: uploadErrors('forbidden', 'not_found', 'validation_error'),
  examples: {
    form: { answer_id: '7000' },
    data: { attachments: [attachment(903, 'answers', 7000)], status_reset: true, answer_status: 'pending' },
  },
  handler: ({ user, fields, files, audit }, { attachments }) => attachments.attachToAnswer(user, Number(fields.answer_id), files, audit),
  client: { positional: ['answer_id', 'files'] },
  mcp: {
    tool: 'attach_answer_images',
    title: 'Attach images to an answer',
    hints: ADDITIVE,
    description:
      'Attaches images to an answer (answer ids are in get_item). An approved or rejected answer goes back to review ' +
      `(status_reset: true). Base64 bytes with a file name; URLs are never fetched. ${NEVER_WORK_AROUND}`,
    rename: { answer_id: { name: 'answer_id', description: 'The answer id (from get_item)' } },
  },
});
