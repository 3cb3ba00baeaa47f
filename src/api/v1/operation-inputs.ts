import type { EventType, LinkKind, Priority, SearchEntityType } from '../../domain/values.js';

/**
 * The argument types of the typed client's methods (src/client/, which re-exports them), declared here beside
 * the definitions whose `client` blocks turn them into requests: the definitions never import the client or
 * the MCP server, which are built on them. A definition may also declare its own in its file.
 */

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
