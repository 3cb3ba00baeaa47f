import type { Static } from 'typebox';
import type { RestOf } from './arguments.js';
import type { OPERATIONS, OperationData } from '../api/v1/operations.js';
import type { DocumentLinkInput as DocumentLinkInputSchema } from '../http/write-inputs.js';
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

// Inputs: the object arguments of the client's methods, `Static<>` of the operations' query and body schemas
// (less the positional arguments), so they cannot drift from what v1 validates either.
type ObjectArgument<Id extends keyof typeof OPERATIONS> = RestOf<(typeof OPERATIONS)[Id]>;
export type ListProjectsQuery = ObjectArgument<'listProjects'>;
export type SearchQuery = ObjectArgument<'searchProject'>;
export type EventsQuery = ObjectArgument<'listEvents'>;
export type PlanningChanges = ObjectArgument<'setItemPlanning'>;
export type NewAnswer = ObjectArgument<'addAnswer'>;
export type DocumentLinkInput = Static<typeof DocumentLinkInputSchema>;
export type { ImageFile } from '../api/v1/define-operation.js';

export interface CallOptions {
  signal?: AbortSignal;
}

export interface WriteOptions extends CallOptions {
  /** Default: a random UUID per call, reused by the client's own retries of that call. */
  idempotencyKey?: string;
}
