/** The closed sets of values of the domain, in one place. */
export const ITEM_STATUSES = ['pending', 'in_progress', 'done', 'blocked'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];

export const PRIORITIES = ['low', 'medium', 'high'] as const;
export type Priority = (typeof PRIORITIES)[number];

export const ANSWER_STATUSES = ['pending', 'approved', 'rejected'] as const;

export const VERDICTS = ['accepted', 'rejected'] as const;
export type Verdict = (typeof VERDICTS)[number];

export const USER_ROLES = ['admin', 'member'] as const;
export type UserRole = (typeof USER_ROLES)[number];

export const MEMBER_ROLES = ['manager', 'executor', 'observer'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

export const LINK_KINDS = ['document', 'spreadsheet', 'presentation', 'folder', 'image', 'video', 'link'] as const;
export type LinkKind = (typeof LINK_KINDS)[number];

/** What a search hit can be (docs/design.md §5, projects/search). */
export const SEARCH_ENTITY_TYPES = ['project', 'section', 'checklist', 'item', 'comment', 'answer', 'link'] as const;
export type SearchEntityType = (typeof SEARCH_ENTITY_TYPES)[number];

export const MAX_LINKS = 100;
export const MAX_TEXT_LENGTH = 20_000;
/** Names of projects, sections, checklists and tokens: 1 to 200 characters (code points). */
export const MAX_NAME_LENGTH = 200;
export const MAX_LINK_TITLE_LENGTH = 500;

/** A photo's stage (docs/design.md §22): the defect as found, or its fix; null for none. */
export const PHOTO_STAGES = ['defect', 'fix'] as const;
export type PhotoStage = (typeof PHOTO_STAGES)[number];
/** A photo's caption: plain text, at most 200 characters (code points). */
export const MAX_CAPTION_LENGTH = 200;

/** A real calendar date written as YYYY-MM-DD. */
export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

/** The kinds of change the event feed and webhooks report (docs/design.md §11). */
export const EVENT_TYPES = [
  'item.status_changed',
  'item.planning_changed',
  'item.links_replaced',
  'item.attachments_added',
  'comment.created',
  'answer.created',
  'answer.attachments_added',
  'answer.reviewed',
  'item.verdict_set',
  'item.returned_to_rework',
  'project.verdict_set',
  // The punch-list cycle (docs/design.md §14): structure edited from the web.
  'item.created',
  'item.updated',
  'structure.changed',
  // Plans and pins (docs/design.md §19): data is the plan.
  'plan.created',
  'plan.version_added',
  // Companies (docs/design.md §20): a dispute raised by the item's executor, and its resolution by a manager.
  'item.disputed',
  'item.dispute_resolved',
  // Photos (docs/design.md §22): a photo's stage or caption changed; data `{attachment, changes: {field: {from, to}}}`.
  'attachment.updated',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The longest a reader of the event feed may wait for a first event (long polling). */
export const MAX_EVENT_WAIT_SECONDS = 30;
