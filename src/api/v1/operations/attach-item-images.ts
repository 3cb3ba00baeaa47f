import { Type } from 'typebox';
import { ItemIdArgument, NEVER_WORK_AROUND } from './tool-inputs.js';
import { defineOperation, uploadErrors } from '../define-operation.js';
import { Attachment, QueryId } from '../schemas.js';
import { attachment } from './examples.js';
import { ADDITIVE, strict } from './shared.js';

export const attachItemImages = defineOperation({
  method: 'POST',
  path: '/items/attachments.php',
  scope: 'items:materials.write',
  tag: 'items',
  body: 'multipart',
  status: 201,
  summary: 'Attach images to an item (multipart: item_id, attachments[]); stored as WebP',
  description:
    '`multipart/form-data` with `item_id` and 1–10 files in `attachments[]` (each ≤ 20 MiB, ≤ 50 megapixels, at ' +
    'least 16×16). PNG, JPEG, GIF and WebP are accepted, recognised from the bytes; each is stored as WebP. One ' +
    'refused file refuses the whole request (422, nothing stored).',
  fields: strict({ item_id: QueryId('The item id (decimal)') }),
  data: Type.Object({ attachments: Type.Array(Attachment) }),
  audit: { entity: 'item', field: 'item_id' },
  errors: uploadErrors('forbidden', 'not_found', 'validation_error'),
  examples: {
    form: { item_id: '1000' },
    data: { attachments: [attachment(902, 'items', 1000)] },
  },
  handler: ({ user, fields, files, audit }, { attachments }) => attachments.attachToItem(user, Number(fields.item_id), files, audit),
  client: { positional: ['item_id', 'files'] },
  mcp: {
    tool: 'attach_item_images',
    title: 'Attach images to an item',
    hints: ADDITIVE,
    description:
      'Attaches images to an item. Give the bytes as base64 with a file name; URLs are never fetched. One refused ' +
      `image refuses the whole call and nothing is stored. ${NEVER_WORK_AROUND}`,
    rename: { item_id: ItemIdArgument },
  },
});
