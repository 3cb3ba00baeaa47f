import type { Scope } from '../../domain/scopes.js';

/**
 * The v1 operations by name: the OpenAPI operationId, the typed client's method and the MCP tool
 * behind each. Plain data (no server code), so the client can import it. The routes stay the source
 * of truth for scopes and shapes: test/openapi.test.ts checks that this table matches them.
 */
export const V1_BASE_PATH = '/api/external/v1';

export type OperationBody = 'none' | 'json' | 'multipart';

export interface Operation {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  path: string;
  scope: Scope;
  tag: 'auth' | 'projects' | 'items' | 'comments' | 'answers';
  body: OperationBody;
  /** The success status: 201 for creating writes, 200 otherwise. */
  status: 200 | 201;
}

export const OPERATIONS = {
  me: { method: 'GET', path: '/auth/me.php', scope: 'auth:me', tag: 'auth', body: 'none', status: 200 },
  listProjects: { method: 'GET', path: '/projects/list.php', scope: 'projects:read', tag: 'projects', body: 'none', status: 200 },
  getProject: { method: 'GET', path: '/projects/get.php', scope: 'projects:read', tag: 'projects', body: 'none', status: 200 },
  getProjectTree: { method: 'GET', path: '/projects/tree.php', scope: 'projects:read', tag: 'projects', body: 'none', status: 200 },
  searchProject: { method: 'GET', path: '/projects/search.php', scope: 'projects:search', tag: 'projects', body: 'none', status: 200 },
  getItem: { method: 'GET', path: '/items/get.php', scope: 'items:read', tag: 'items', body: 'none', status: 200 },
  setItemStatus: { method: 'PATCH', path: '/items/status.php', scope: 'items:status.write', tag: 'items', body: 'json', status: 200 },
  setItemPlanning: {
    method: 'PATCH',
    path: '/items/planning.php',
    scope: 'items:planning.write',
    tag: 'items',
    body: 'json',
    status: 200,
  },
  addComment: { method: 'POST', path: '/comments/create.php', scope: 'comments:write', tag: 'comments', body: 'json', status: 201 },
  addAnswer: { method: 'POST', path: '/answers/create.php', scope: 'answers:write', tag: 'answers', body: 'json', status: 201 },
  replaceItemLinks: { method: 'PUT', path: '/items/links.php', scope: 'items:materials.write', tag: 'items', body: 'json', status: 200 },
  attachItemImages: {
    method: 'POST',
    path: '/items/attachments.php',
    scope: 'items:materials.write',
    tag: 'items',
    body: 'multipart',
    status: 201,
  },
  attachAnswerImages: {
    method: 'POST',
    path: '/answers/attachments.php',
    scope: 'items:materials.write',
    tag: 'answers',
    body: 'multipart',
    status: 201,
  },
} as const satisfies Record<string, Operation>;

export type OperationId = keyof typeof OPERATIONS;

export const OPERATION_IDS = Object.keys(OPERATIONS) as OperationId[];

/** The operation registered at `METHOD path` (path relative to the v1 base), if any. */
export function operationAt(method: string, path: string): OperationId | undefined {
  return OPERATION_IDS.find((id) => OPERATIONS[id].method === method && OPERATIONS[id].path === path);
}
