import type { Static } from 'typebox';
import type { OperationData } from '../api/v1/operations.js';
import type {
  Answer as AnswerSchema,
  Attachment as AttachmentSchema,
  Comment as CommentSchema,
  DocumentLink as DocumentLinkSchema,
  Item as ItemSchema,
  ItemSummary as ItemSummarySchema,
  ProjectCard as ProjectCardSchema,
  SearchHit as SearchHitSchema,
} from '../api/v1/schemas.js';
import type { Scope } from '../domain/scopes.js';
import type { EventType, ItemStatus, LinkKind, Priority, SearchEntityType } from '../domain/values.js';

/**
 * Result types of the v1 operations (the envelope's `data`): `Static<>` of the schemas of each
 * operation's definition (src/api/v1/operations/), so they cannot drift from what the server
 * declares. Servers may add fields (spec §9): these types list what v1 guarantees.
 */
export type ProjectCard = Static<typeof ProjectCardSchema>;
export type ItemCard = Static<typeof ItemSchema>;
export type ItemSummary = Static<typeof ItemSummarySchema>;
export type DocumentLink = Static<typeof DocumentLinkSchema>;
export type Attachment = Static<typeof AttachmentSchema>;
export type Comment = Static<typeof CommentSchema>;
export type Answer = Static<typeof AnswerSchema>;
export type SearchHit = Static<typeof SearchHitSchema>;
export type { EventType, ItemStatus, LinkKind, Priority, Scope, SearchEntityType };

export type Identity = OperationData<'me'>;
export type ProjectList = OperationData<'listProjects'>;
export type ProjectTree = OperationData<'getProjectTree'>;
export type SearchResult = OperationData<'searchProject'>;
export type StatusResult = OperationData<'setItemStatus'>;
export type PlanningResult = OperationData<'setItemPlanning'>;
export type AnswerAttachmentsResult = OperationData<'attachAnswerImages'>;
export type EventPage = OperationData<'listEvents'>;
export type Event = EventPage['events'][number];

// Inputs: named argument types of the client's methods (a definition may also declare its own in its file).

export interface ListProjectsQuery {
  limit?: number;
  offset?: number;
  /** false (default): active projects; true: archived ones; 'all': both. */
  archived?: boolean | 'all';
}

export interface SearchQuery {
  /** Case-insensitive substring; may be omitted when `itemId` is given. */
  q?: string;
  entityType?: SearchEntityType;
  itemId?: number;
  limit?: number;
  offset?: number;
}

export interface EventsQuery {
  /** Events after this id (the previous page's `next_after`); 0 by default. */
  after?: number;
  /** 1–500, default 100. */
  limit?: number;
  projectId?: number;
  itemId?: number;
  types?: EventType[];
  /** Seconds to wait for a first event (long polling), 0–30. */
  wait?: number;
}

export interface PlanningChanges {
  /** YYYY-MM-DD, or null to clear. */
  deadline?: string | null;
  priority?: Priority;
  requires_answer?: boolean;
}

export interface DocumentLinkInput {
  kind?: LinkKind;
  title: string;
  url: string;
}

export interface NewAnswer {
  text: string;
  document_links?: DocumentLinkInput[];
}

/** An image to upload: its file name and bytes (PNG, JPEG, GIF or WebP; the server reads the format from the bytes). */
export interface ImageFile {
  name: string;
  bytes: Uint8Array | ArrayBuffer | Blob;
  /** Declared MIME type; default application/octet-stream. */
  type?: string;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface WriteOptions extends CallOptions {
  /** Default: a random UUID per call, reused by the client's own retries of that call. */
  idempotencyKey?: string;
}
