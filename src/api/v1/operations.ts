import { type Static, type TObject, type TSchema, Type } from 'typebox';
import type { Scope } from '../../domain/scopes.js';
import { EVENT_TYPES, MAX_EVENT_WAIT_SECONDS, SEARCH_ENTITY_TYPES } from '../../domain/values.js';
import {
  Answer,
  Attachment,
  BodyId,
  Comment,
  DocumentLink,
  Identity,
  Item,
  ItemStatus,
  Limit,
  NullableString,
  Offset,
  Priority,
  ProjectCard,
  ProjectTree,
  QueryId,
  SearchHit,
  AnswerStatus,
  Event,
  OPENAPI_TYPE,
} from './schemas.js';

export const EVENTS_LIMIT = { default: 100, max: 500 };
import { DocumentLinksInput, Text } from './write-schemas.js';

/**
 * The one definition of each v1 operation: method, path, scope, the query / body / response schemas,
 * the audited entity and the MCP tool's metadata. The Fastify routes (plugin.ts), the OpenAPI document
 * (openapi.ts), the typed client (src/client/) and the MCP tools (src/mcp/tools.ts) are derived from
 * it, and the tests walk it (scope matrix, fuzzer). Plain data: the client imports it too. Adding an
 * operation is one entry here (its prose and examples are in openapi-examples.ts, its handler in the
 * routes file of its resource; TypeScript refuses the build until both exist).
 */
export const V1_BASE_PATH = '/api/external/v1';

export type OperationBody = 'none' | 'json' | 'multipart';

/** MCP tool annotations (DESIGN.md §9); openWorldHint is always false (the tools reach only Punchlist). */
export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
}

export interface Operation {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  path: string;
  scope: Scope;
  tag: 'auth' | 'projects' | 'items' | 'comments' | 'answers' | 'events';
  body: OperationBody;
  /** The success status: 201 for creating writes, 200 otherwise. */
  status: 200 | 201;
  summary: string;
  /** Query parameters (GET); unknown ones are refused with 422. */
  query?: TObject;
  /** JSON body fields (json), or the text fields of a multipart form (multipart); unknown ones → 422. */
  fields?: TObject;
  /** The envelope's `data` on success. */
  data: TSchema;
  /** The entity the audit record names: its type and the query, body or form field holding its id. */
  audit?: { entity: 'item' | 'project' | 'answer'; field: string };
  /** The MCP tool behind this operation, if any (DESIGN.md §9 names them). */
  mcp?: { tool: string; title: string; hints: ToolHints };
}

const READ: ToolHints = { readOnlyHint: true };
const ADDITIVE: ToolHints = { readOnlyHint: false, destructiveHint: false, idempotentHint: false };

const strict = <T extends Record<string, TSchema>>(properties: T) => Type.Object(properties, { additionalProperties: false });

const ProjectIdQuery = strict({ id: QueryId('The project id') });
const ItemIdField = BodyId('The item id');

const ARCHIVED_VALUES = ['false', '0', 'true', '1', 'all'] as const;

export const OPERATIONS = {
  me: {
    method: 'GET',
    path: '/auth/me.php',
    scope: 'auth:me',
    tag: 'auth',
    body: 'none',
    status: 200,
    summary: 'Who the token acts as, and its scopes',
    query: strict({}),
    data: Identity,
    mcp: { tool: 'whoami', title: 'Who am I (token check)', hints: READ },
  },
  listProjects: {
    method: 'GET',
    path: '/projects/list.php',
    scope: 'projects:read',
    tag: 'projects',
    body: 'none',
    status: 200,
    summary: 'Projects the user can see, ordered by id',
    query: strict({
      limit: Type.Optional(Limit()),
      offset: Type.Optional(Offset('Projects to skip (default 0)')),
      archived: Type.Optional(
        Type.Enum([...ARCHIVED_VALUES], {
          description: '`false` or `0` (default): active projects only; `true` or `1`: archived only; `all`: both',
        }),
      ),
    }),
    data: Type.Object({ projects: Type.Array(ProjectCard), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }),
    mcp: { tool: 'list_projects', title: 'List projects', hints: READ },
  },
  getProject: {
    method: 'GET',
    path: '/projects/get.php',
    scope: 'projects:read',
    tag: 'projects',
    body: 'none',
    status: 200,
    summary: 'A project card',
    query: ProjectIdQuery,
    data: Type.Object({ project: ProjectCard }),
    audit: { entity: 'project', field: 'id' },
  },
  getProjectTree: {
    method: 'GET',
    path: '/projects/tree.php',
    scope: 'projects:read',
    tag: 'projects',
    body: 'none',
    status: 200,
    summary: 'A project with the sections, checklists and items the user can see',
    query: ProjectIdQuery,
    data: ProjectTree,
    audit: { entity: 'project', field: 'id' },
    mcp: { tool: 'get_project_tree', title: 'Get a project tree', hints: READ },
  },
  searchProject: {
    method: 'GET',
    path: '/projects/search.php',
    scope: 'projects:search',
    tag: 'projects',
    body: 'none',
    status: 200,
    summary: 'Search inside a project (names, items, comments, answers, links), over what the user can see',
    query: strict({
      id: QueryId('The project to search in'),
      q: Type.Optional(
        Type.String({ maxLength: 200, errorMessage: 'must be at most 200 characters', description: 'Text to find (case-insensitive substring); may be omitted with `item_id`' }),
      ),
      entity_type: Type.Optional(Type.Enum([...SEARCH_ENTITY_TYPES], { description: 'Only hits of this type' })),
      item_id: Type.Optional(QueryId('Only this item and what hangs on it (its comments, answers, links)')),
      limit: Type.Optional(Limit()),
      offset: Type.Optional(Offset('Hits to skip (default 0)')),
    }),
    data: Type.Object({ hits: Type.Array(SearchHit), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }),
    audit: { entity: 'project', field: 'id' },
    mcp: { tool: 'search_project', title: 'Search a project', hints: READ },
  },
  getItem: {
    method: 'GET',
    path: '/items/get.php',
    scope: 'items:read',
    tag: 'items',
    body: 'none',
    status: 200,
    summary: 'The item card',
    query: strict({ id: QueryId('The item id') }),
    data: Type.Object({ item: Item }),
    audit: { entity: 'item', field: 'id' },
    mcp: { tool: 'get_item', title: 'Get an item card', hints: READ },
  },
  setItemStatus: {
    method: 'PATCH',
    path: '/items/status.php',
    scope: 'items:status.write',
    tag: 'items',
    body: 'json',
    status: 200,
    summary: 'Change the status of an item (same status again: changed false, no history entry)',
    fields: strict({ id: ItemIdField, status: { ...ItemStatus, description: 'The new status' } }),
    data: Type.Object({
      item: Type.Object({ id: Type.Integer(), status: ItemStatus, updated_at: Type.String({ format: 'date-time' }) }),
      changed: Type.Boolean(),
    }),
    audit: { entity: 'item', field: 'id' },
    // Not destructive: every past status stays in the item's history.
    mcp: { tool: 'set_item_status', title: 'Set an item status', hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true } },
  },
  setItemPlanning: {
    method: 'PATCH',
    path: '/items/planning.php',
    scope: 'items:planning.write',
    tag: 'items',
    body: 'json',
    status: 200,
    summary: 'Change deadline, priority and/or requires_answer of an item',
    fields: strict({
      id: ItemIdField,
      deadline: Type.Optional(
        Type.Unsafe<string | null>({
          type: ['string', 'null'],
          errorMessage: 'must be a date YYYY-MM-DD, "" or null',
          description: '`YYYY-MM-DD`; `null` (preferred) or `""` clears the deadline',
        }),
      ),
      priority: Type.Optional({ ...Priority, description: 'The new priority' }),
      requires_answer: Type.Optional(Type.Boolean({ errorMessage: 'must be true or false', description: 'Whether the item needs an answer' })),
    }),
    data: Type.Object({
      item: Type.Object({
        id: Type.Integer(),
        deadline: NullableString({ format: 'date' }),
        priority: Priority,
        requires_answer: Type.Boolean(),
        updated_at: Type.String({ format: 'date-time' }),
      }),
    }),
    audit: { entity: 'item', field: 'id' },
    // Destructive: the former deadline and priority are kept nowhere.
    mcp: { tool: 'set_item_planning', title: 'Set item planning', hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true } },
  },
  addComment: {
    method: 'POST',
    path: '/comments/create.php',
    scope: 'comments:write',
    tag: 'comments',
    body: 'json',
    status: 201,
    summary: 'Add a text comment to an item',
    fields: strict({ item_id: ItemIdField, text: { ...Text, description: 'The comment, 1–20 000 characters (stored trimmed)' } }),
    data: Type.Object({ comment: Comment }),
    audit: { entity: 'item', field: 'item_id' },
    mcp: { tool: 'add_comment', title: 'Add a comment', hints: ADDITIVE },
  },
  addAnswer: {
    method: 'POST',
    path: '/answers/create.php',
    scope: 'answers:write',
    tag: 'answers',
    body: 'json',
    status: 201,
    summary: 'Add an answer (text and optional document links) to an item; it awaits review',
    fields: strict({
      item_id: ItemIdField,
      text: { ...Text, description: 'The answer, 1–20 000 characters (stored trimmed)' },
      document_links: Type.Optional({ ...DocumentLinksInput, description: 'Up to 100 links' }),
    }),
    data: Type.Object({ answer: Answer }),
    audit: { entity: 'item', field: 'item_id' },
    mcp: { tool: 'add_answer', title: 'Add an answer', hints: ADDITIVE },
  },
  replaceItemLinks: {
    method: 'PUT',
    path: '/items/links.php',
    scope: 'items:materials.write',
    tag: 'items',
    body: 'json',
    status: 200,
    summary: 'Replace the whole list of document links of an item ([] clears it)',
    fields: strict({ id: ItemIdField, document_links: { ...DocumentLinksInput, description: 'The new list (replaces the old one)' } }),
    data: Type.Object({ document_links: Type.Array(DocumentLink) }),
    audit: { entity: 'item', field: 'id' },
    // Destructive: the links replaced are kept nowhere.
    mcp: { tool: 'replace_item_links', title: 'Replace item links', hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true } },
  },
  attachItemImages: {
    method: 'POST',
    path: '/items/attachments.php',
    scope: 'items:materials.write',
    tag: 'items',
    body: 'multipart',
    status: 201,
    summary: 'Attach images to an item (multipart: item_id, attachments[]); stored as WebP',
    fields: strict({ item_id: QueryId('The item id (decimal)') }),
    data: Type.Object({ attachments: Type.Array(Attachment) }),
    audit: { entity: 'item', field: 'item_id' },
    mcp: { tool: 'attach_item_images', title: 'Attach images to an item', hints: ADDITIVE },
  },
  attachAnswerImages: {
    method: 'POST',
    path: '/answers/attachments.php',
    scope: 'items:materials.write',
    tag: 'answers',
    body: 'multipart',
    status: 201,
    summary: 'Attach images to an answer (multipart: answer_id, attachments[]); an approved or rejected answer returns to pending',
    fields: strict({ answer_id: QueryId('The answer id (decimal)') }),
    data: Type.Object({ attachments: Type.Array(Attachment), status_reset: Type.Boolean(), answer_status: AnswerStatus }),
    audit: { entity: 'answer', field: 'answer_id' },
    mcp: { tool: 'attach_answer_images', title: 'Attach images to an answer', hints: ADDITIVE },
  },
  listEvents: {
    method: 'GET',
    path: '/events/list.php',
    scope: 'events:read',
    tag: 'events',
    body: 'none',
    status: 200,
    summary: 'What changed after an event id, in what the user can see now, oldest first; waits up to `wait` seconds for a first one',
    query: strict({
      after: Type.Optional(
        Type.String({
          pattern: '^(?:0|[1-9][0-9]{0,15})$',
          errorMessage: 'must be an event id (0 or a positive integer)',
          description: 'Events after this id (default 0: from the oldest kept); pass the previous `next_after`',
          [OPENAPI_TYPE]: { type: 'integer', minimum: 0, default: 0 },
        }),
      ),
      limit: Type.Optional(
        Type.String({
          pattern: '^(?:[1-9]|[1-9][0-9]|[1-4][0-9]{2}|500)$',
          errorMessage: `must be an integer from 1 to ${EVENTS_LIMIT.max}`,
          description: `Events per page, 1–${EVENTS_LIMIT.max} (default ${EVENTS_LIMIT.default})`,
          [OPENAPI_TYPE]: { type: 'integer', minimum: 1, maximum: EVENTS_LIMIT.max, default: EVENTS_LIMIT.default },
        }),
      ),
      project_id: Type.Optional(QueryId('Only events of this project')),
      item_id: Type.Optional(QueryId('Only events of this item')),
      types: Type.Optional(
        Type.String({
          pattern: `^(?:${EVENT_TYPES.map((t) => t.replace('.', '\\.')).join('|')})(?:,(?:${EVENT_TYPES.map((t) => t.replace('.', '\\.')).join('|')}))*$`,
          errorMessage: `must be a comma list of ${EVENT_TYPES.join(', ')}`,
          description: `Only these types (comma list): ${EVENT_TYPES.join(', ')}`,
        }),
      ),
      wait: Type.Optional(
        Type.String({
          pattern: '^(?:[0-9]|[12][0-9]|30)$',
          errorMessage: `must be a number of seconds from 0 to ${MAX_EVENT_WAIT_SECONDS}`,
          description: `Seconds to wait for a first event when there is none yet (long polling), 0–${MAX_EVENT_WAIT_SECONDS} (default 0)`,
          [OPENAPI_TYPE]: { type: 'integer', minimum: 0, maximum: MAX_EVENT_WAIT_SECONDS, default: 0 },
        }),
      ),
    }),
    data: Type.Object({ events: Type.Array(Event), next_after: Type.Integer(), has_more: Type.Boolean() }),
    audit: { entity: 'project', field: 'project_id' },
    mcp: { tool: 'list_events', title: 'List what changed', hints: READ },
  },
} as const satisfies Record<string, Operation>;

export type OperationId = keyof typeof OPERATIONS;

export const OPERATION_IDS = Object.keys(OPERATIONS) as OperationId[];

type Def<Id extends OperationId> = (typeof OPERATIONS)[Id];

/** The envelope's `data` of an operation. */
export type OperationData<Id extends OperationId> = Static<Def<Id>['data']>;
/** The query parameters of an operation, as validated text. */
export type OperationQuery<Id extends OperationId> = Def<Id> extends { query: infer Q extends TSchema } ? Static<Q> : Record<string, never>;
/** The JSON body (json) or form fields (multipart) of an operation. */
export type OperationFields<Id extends OperationId> = Def<Id> extends { fields: infer F extends TSchema } ? Static<F> : Record<string, never>;

/** The operation registered at `METHOD path` (path relative to the v1 base), if any. */
export function operationAt(method: string, path: string): OperationId | undefined {
  return OPERATION_IDS.find((id) => OPERATIONS[id].method === method && OPERATIONS[id].path === path);
}
