import { createTransport, type TransportOptions } from './transport.js';
import type {
  CallOptions,
  DocumentLinkInput,
  EventsQuery,
  ImageFile,
  ItemStatus,
  ListProjectsQuery,
  NewAnswer,
  PlanningChanges,
  SearchQuery,
  WriteOptions,
} from './types.js';

/**
 * The typed client of the Punchlist external API v1: one method per endpoint, each resolving to the
 * envelope's `data` and rejecting with a PunchlistApiError. Writes carry an automatic Idempotency-Key.
 *
 *   const punchlist = createPunchlistClient({ baseUrl: 'http://127.0.0.1:8080', token: process.env.PUNCHLIST_TOKEN! });
 *   const me = await punchlist.me();
 */
export type PunchlistClientOptions = TransportOptions;

export { PunchlistApiError, type FieldError } from './errors.js';
export type * from './types.js';
export { OPERATIONS, type OperationId } from '../api/v1/operations.js';

function toBlob(file: ImageFile): Blob {
  if (file.bytes instanceof Blob) return file.bytes;
  const type = file.type ?? 'application/octet-stream';
  // A copy: a Node Buffer may sit on a shared pool that Blob does not accept as is.
  return new Blob([file.bytes instanceof ArrayBuffer ? file.bytes : new Uint8Array(file.bytes)], { type });
}

function uploadForm(idField: 'item_id' | 'answer_id', id: number, files: ImageFile[]): FormData {
  const form = new FormData();
  form.append(idField, String(id));
  for (const file of files) form.append('attachments[]', toBlob(file), file.name);
  return form;
}

export function createPunchlistClient(options: PunchlistClientOptions) {
  const call = createTransport(options);
  const write = (options: WriteOptions) => ({ idempotencyKey: options.idempotencyKey, signal: options.signal });

  return {
    /** GET /auth/me.php (auth:me): the user the token acts as, and its scopes. The recommended first call. */
    me: (options: CallOptions = {}) => call('me', options),

    /** GET /projects/list.php (projects:read): the projects the user can see, by id. */
    listProjects: (query: ListProjectsQuery = {}, options: CallOptions = {}) =>
      call('listProjects', {
        ...options,
        query: { limit: query.limit, offset: query.offset, archived: query.archived },
      }),

    /** GET /projects/get.php (projects:read). */
    getProject: (projectId: number, options: CallOptions = {}) =>
      call('getProject', { ...options, query: { id: projectId } }),

    /** GET /projects/tree.php (projects:read): sections, checklists and item summaries the user can see. */
    getProjectTree: (projectId: number, options: CallOptions = {}) =>
      call('getProjectTree', { ...options, query: { id: projectId } }),

    /** GET /projects/search.php (projects:search): find entities, then work by the hit's exact item_id. */
    searchProject: (projectId: number, query: SearchQuery, options: CallOptions = {}) =>
      call('searchProject', {
        ...options,
        query: {
          id: projectId,
          q: query.q,
          entity_type: query.entityType,
          item_id: query.itemId,
          limit: query.limit,
          offset: query.offset,
        },
      }),

    /** GET /items/get.php (items:read): the item card. */
    getItem: (itemId: number, options: CallOptions = {}) => call('getItem', { ...options, query: { id: itemId } }),

    /** GET /events/list.php (events:read): what changed after `after`; `wait` seconds of long polling (0–30). */
    listEvents: (query: EventsQuery = {}, options: CallOptions = {}) =>
      call('listEvents', {
        ...options,
        query: { after: query.after, limit: query.limit, project_id: query.projectId, item_id: query.itemId, types: query.types?.join(','), wait: query.wait },
      }),

    /** PATCH /items/status.php (items:status.write). */
    setItemStatus: (itemId: number, status: ItemStatus, options: WriteOptions = {}) =>
      call('setItemStatus', { ...write(options), json: { id: itemId, status } }),

    /** PATCH /items/planning.php (items:planning.write): deadline (null clears), priority, requires_answer. */
    setItemPlanning: (itemId: number, changes: PlanningChanges, options: WriteOptions = {}) =>
      call('setItemPlanning', { ...write(options), json: { ...changes, id: itemId } }),

    /** POST /comments/create.php (comments:write): a text comment. */
    addComment: (itemId: number, text: string, options: WriteOptions = {}) =>
      call('addComment', { ...write(options), json: { item_id: itemId, text } }),

    /** POST /answers/create.php (answers:write): text and optional document links; awaits review. */
    addAnswer: (itemId: number, answer: NewAnswer, options: WriteOptions = {}) =>
      call('addAnswer', { ...write(options), json: { ...answer, item_id: itemId } }),

    /** PUT /items/links.php (items:materials.write): replaces the whole list; [] clears it. */
    replaceItemLinks: (itemId: number, links: DocumentLinkInput[], options: WriteOptions = {}) =>
      call('replaceItemLinks', { ...write(options), json: { id: itemId, document_links: links } }),

    /** POST /items/attachments.php (items:materials.write): 1–10 images, stored as WebP. */
    attachItemImages: (itemId: number, files: ImageFile[], options: WriteOptions = {}) =>
      call('attachItemImages', { ...write(options), form: uploadForm('item_id', itemId, files) }),

    /** POST /answers/attachments.php (items:materials.write): an approved or rejected answer returns to review. */
    attachAnswerImages: (answerId: number, files: ImageFile[], options: WriteOptions = {}) =>
      call('attachAnswerImages', { ...write(options), form: uploadForm('answer_id', answerId, files) }),
  };
}

export type PunchlistClient = ReturnType<typeof createPunchlistClient>;
