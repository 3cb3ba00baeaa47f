/** How item materials are presented: one place, used by the item card and by the writes that return them. */
export interface LinkRow {
  id: number;
  kind: string;
  title: string;
  url: string;
}

export interface AttachmentRow {
  id: number;
  answer_id: number | null;
  original_name: string;
  mime_type: string;
  path: string;
  size: number;
  width: number;
  height: number;
  created_at: string;
}

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
