import type { Selectable } from 'kysely';
import type { AttachmentsTable } from '../../db/tables.js';
export { fieldsView } from '../../domain/vocabulary.js';
import type { BallInCourt } from '../../domain/ball-in-court.js';
import type { ItemLocation } from '../plans/plan-views.js';

/** How item materials are presented: one place, used by the item card and by the writes that return them. */
interface LinkRow {
  id: number;
  kind: string;
  title: string;
  url: string;
}

type AttachmentRow = Omit<Selectable<AttachmentsTable>, 'item_id' | 'uploaded_by' | 'annotates' | 'stage' | 'caption' | 'markup_key'> &
  Partial<Pick<Selectable<AttachmentsTable>, 'annotates' | 'stage' | 'caption'>>;

export interface LinkView {
  id: number;
  kind: string;
  title: string;
  url: string;
}

export interface AttachmentView {
  id: number;
  original_name: string;
  mime_type: string;
  path: string;
  /** Where the image is served (the old API's file.php path, kept for integrators). */
  url: string;
  size: number;
  width: number;
  height: number;
  created_at: string;
  /** The photo this marked-up picture was drawn on (docs/design.md §22); null for a photo as taken. */
  annotates: number | null;
  /** `defect`, `fix`, or null for none. */
  stage: string | null;
  caption: string | null;
  /** Who uploaded it (the item page offers its stage and caption to them): the card only, not in v1's schema. */
  uploaded_by?: number | null;
}

export interface UserRef {
  id: number;
  name: string;
}

export interface CommentView {
  id: number;
  text: string;
  author: UserRef;
  created_at: string;
}

export interface AnswerView {
  id: number;
  text: string;
  status: string;
  author: UserRef;
  document_links: LinkView[];
  attachments: AttachmentView[];
  created_at: string;
  updated_at: string;
}

/** An entry of the item's status history; `from`/`to` are statuses (null where none applies). */
export interface HistoryEntryView {
  kind: string;
  from: string | null;
  to: string | null;
  at: string;
  user: UserRef | null;
  note: string | null;
}

/** The item's place as its row holds it, with its plan's name; null when it is on no plan. */
export function locationView(row: { plan_id: number | null; plan_x: number | null; plan_y: number | null }, planName: string | null) {
  if (row.plan_id === null || row.plan_x === null || row.plan_y === null || planName === null) return null;
  return { plan_id: row.plan_id, plan_name: planName, x: row.plan_x, y: row.plan_y } satisfies ItemLocation;
}

/** An open dispute (docs/design.md §20): why, who raised it, when. */
export interface DisputeView {
  reason: string;
  by: UserRef | null;
  at: string;
}

/** The item card: the item with its participants, comments, answers, materials and history (v1 items/get, the item page). */
export interface ItemCard {
  id: number;
  project_id: number;
  section_id: number;
  checklist_id: number;
  text: string;
  description: string;
  status: string;
  priority: string;
  deadline: string | null;
  requires_answer: boolean;
  verdict: string | null;
  rework_reason: string | null;
  rework_deadline: string | null;
  participants: (UserRef & { role: string | null })[];
  comments: CommentView[];
  answers: AnswerView[];
  attachments: AttachmentView[];
  document_links: LinkView[];
  status_history: HistoryEntryView[];
  location: ItemLocation | null;
  /** The item's category's name (docs/design.md §21), null: none. */
  category: string | null;
  /** Its custom field values by field name, as strings in v1's formats (retired fields' values too). */
  fields: Record<string, string>;
  /** docs/design.md §20: the company that holds the item, whose move it is, and an open dispute. */
  responsible_company: { id: number; name: string } | null;
  ball_in_court: BallInCourt;
  disputed: DisputeView | null;
  can_verdict: boolean;
  can_return_to_rework: boolean;
  created_at: string;
  updated_at: string;
}

export function linkView(row: LinkRow): LinkView {
  return { id: row.id, kind: row.kind, title: row.title, url: row.url };
}

export function attachmentView(baseUrl: string, row: AttachmentRow): AttachmentView {
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
    annotates: row.annotates ?? null,
    stage: row.stage ?? null,
    caption: row.caption ?? null,
  };
}

/**
 * Photos in the order they are shown (docs/design.md §22): each photo as taken, preceded by its marked-up
 * pictures, newest first; otherwise in upload order.
 */
export function inShowingOrder<T extends { id: number; annotates: number | null }>(photos: readonly T[]): T[] {
  const ids = new Set(photos.map((p) => p.id));
  const markups = (id: number) => photos.filter((p) => p.annotates === id).sort((a, b) => b.id - a.id);
  return photos.filter((p) => p.annotates === null || !ids.has(p.annotates)).flatMap((p) => [...markups(p.id), p]);
}

/**
 * The defect and fix photos shown side by side (the item page, the PDF report; docs/design.md §22): of each photo as
 * taken, its newest marked-up picture (or itself), by that picture's stage, in upload order.
 */
export function beforeAndAfter<T extends { id: number; annotates: number | null; stage: string | null }>(
  photos: readonly T[],
): { defect: T[]; fix: T[] } {
  const ids = new Set(photos.map((p) => p.id));
  const leads = photos
    .filter((p) => p.annotates === null || !ids.has(p.annotates))
    .sort((a, b) => a.id - b.id)
    .map((original) => photos.filter((p) => p.annotates === original.id).sort((a, b) => b.id - a.id)[0] ?? original);
  return { defect: leads.filter((p) => p.stage === 'defect'), fix: leads.filter((p) => p.stage === 'fix') };
}
