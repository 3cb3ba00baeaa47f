import type { Static } from 'typebox';
import type {
  Answer as AnswerSchema,
  Attachment as AttachmentSchema,
  Comment as CommentSchema,
  DocumentLink as DocumentLinkSchema,
  Item as ItemSchema,
  ItemSummary as ItemSummarySchema,
  ProjectCard as ProjectCardSchema,
} from '../api/v1/schemas.js';
import type { Scope } from '../domain/scopes.js';
import type { ItemStatus, LinkKind, Priority } from '../domain/values.js';
import type { SearchEntityType, SearchHit } from '../features/search/search.service.js';

/**
 * Result types of the v1 operations (the envelope's `data`). The entity shapes are `Static<>` of the
 * route schemas in src/api/v1/schemas.ts, so they cannot drift from what the server declares. The
 * few wrappers below mirror schemas that the route files keep private. Servers may add fields (spec §9):
 * these types list what v1 guarantees.
 */
export type ProjectCard = Static<typeof ProjectCardSchema>;
export type ItemCard = Static<typeof ItemSchema>;
export type ItemSummary = Static<typeof ItemSummarySchema>;
export type DocumentLink = Static<typeof DocumentLinkSchema>;
export type Attachment = Static<typeof AttachmentSchema>;
export type Comment = Static<typeof CommentSchema>;
export type Answer = Static<typeof AnswerSchema>;
export type { ItemStatus, LinkKind, Priority, Scope, SearchEntityType, SearchHit };

export interface Identity {
  user: { id: number; name: string; role: string };
  token: { id: number; label: string; scopes: string[]; expires_at: string | null };
  scopes: string[];
}

export interface ProjectList {
  projects: ProjectCard[];
  total: number;
  limit: number;
  offset: number;
}

export interface ProjectTree {
  project: ProjectCard;
  sections: {
    id: number;
    name: string;
    position: number;
    checklists: { id: number; name: string; position: number; items: ItemSummary[] }[];
  }[];
}

export interface SearchResult {
  hits: SearchHit[];
  total: number;
  limit: number;
  offset: number;
}

export interface StatusResult {
  item: { id: number; status: string; updated_at: string };
  /** False when the item already had this status (no history entry was added). */
  changed: boolean;
}

export interface PlanningResult {
  item: { id: number; deadline: string | null; priority: string; requires_answer: boolean; updated_at: string };
}

export interface AnswerAttachmentsResult {
  attachments: Attachment[];
  /** True when the answer was approved or rejected and went back to review. */
  status_reset: boolean;
  answer_status: string;
}

// Inputs

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
