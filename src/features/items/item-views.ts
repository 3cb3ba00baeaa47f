import type { Selectable } from 'kysely';
import type { AttachmentsTable } from '../../db/tables.js';

/** How item materials are presented: one place, used by the item card and by the writes that return them. */
interface LinkRow {
  id: number;
  kind: string;
  title: string;
  url: string;
}

type AttachmentRow = Omit<Selectable<AttachmentsTable>, 'item_id' | 'uploaded_by'>;

export function linkView(row: LinkRow) {
  return { id: row.id, kind: row.kind, title: row.title, url: row.url };
}

export function attachmentView(baseUrl: string, row: AttachmentRow) {
  const owner = row.answer_id === null ? 'items' : 'answers';
  return {
    id: row.id,
    original_name: row.original_name,
    mime_type: row.mime_type,
    path: row.path,
    url: `${baseUrl}/api/${owner}/file.php?id=${row.id}`,
    size: row.size,
    width: row.width,
    height: row.height,
    created_at: row.created_at,
  };
}

export type LinkView = ReturnType<typeof linkView>;
export type AttachmentView = ReturnType<typeof attachmentView>;
