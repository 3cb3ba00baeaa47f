import { Type } from 'typebox';
import { ItemIdArgument, NEVER_WORK_AROUND } from './tool-inputs.js';
import { defineOperation, jsonWriteErrors } from '../define-operation.js';
import { DocumentLink } from '../schemas.js';
import { LinksReplacement } from '../../../http/write-inputs.js';
import { link } from './examples.js';
import { ItemIdField, strict } from './shared.js';

export const replaceItemLinks = defineOperation({
  method: 'PUT',
  path: '/items/links.php',
  scope: 'items:materials.write',
  tag: 'items',
  body: 'json',
  status: 200,
  summary: 'Replace the whole list of document links of an item ([] clears it)',
  description:
    'Replaces the whole `document_links` list of the item (not an append); `[]` clears it. Each link: `kind` ' +
    '(`document`, `spreadsheet`, `presentation`, `folder`, `image`, `video`, `link`; default `document`), `title` ' +
    '(1–500 characters), `url` (absolute http or https). At most 100 links.',
  fields: strict({ id: ItemIdField, ...LinksReplacement }),
  data: Type.Object({ document_links: Type.Array(DocumentLink) }),
  audit: { entity: 'item', field: 'id' },
  errors: jsonWriteErrors('forbidden', 'not_found', 'validation_error'),
  examples: {
    body: { id: 1000, document_links: [{ kind: 'document', title: 'Fire safety plan', url: 'https://example.com/docs/fire-safety-plan' }] },
    data: { document_links: [link] },
  },
  handler: ({ user, fields: { id, document_links }, audit }, { itemWrites }) =>
    itemWrites.replaceItemLinks(user, id, document_links, audit),
  client: { positional: ['id', 'document_links'] },
  mcp: {
    tool: 'replace_item_links',
    title: 'Replace item links',
    // Destructive: the links replaced are kept nowhere.
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    description:
      'Replaces the WHOLE list of document links of an item (not an append: read the item first and send every link ' +
      'to keep); an empty list removes all links. Each link: title, absolute http(s) url, optional kind (document, ' +
      `spreadsheet, presentation, folder, image, video, link). ${NEVER_WORK_AROUND}`,
    rename: { id: ItemIdArgument },
  },
});
