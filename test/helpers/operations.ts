import { type RegisteredRoute, registeredRoutes } from '../../src/api/route-registry.js';
import type { Scope } from '../../src/domain/scopes.js';
import { uploadForm } from './images.js';

/**
 * The operations of /api/ as the running server registered them (src/api/route-registry.ts), with one
 * request per operation that succeeds for the admin of the standard workspace. The list of operations is
 * never written here: a new route shows up by itself, and fails the tests until it has a sample.
 */
export interface Operation extends RegisteredRoute {
  scope: Scope;
}

export interface SampleIds {
  /** An image attachment of item 1000 and one of answer 7000 (uploaded by the test). */
  itemAttachmentId: number;
  answerAttachmentId: number;
}

export interface Sample {
  query?: string;
  json?: Record<string, unknown>;
  /** Multipart fields; one 16×16 PNG is added as `attachments[]`. */
  form?: Record<string, string>;
}

const V1 = '/api/external/v1';

const SAMPLES: Record<string, (ids: SampleIds) => Sample> = {
  [`GET ${V1}/auth/me.php`]: () => ({}),
  [`GET ${V1}/projects/list.php`]: () => ({ query: 'limit=5' }),
  [`GET ${V1}/projects/get.php`]: () => ({ query: 'id=1' }),
  [`GET ${V1}/projects/tree.php`]: () => ({ query: 'id=1' }),
  [`GET ${V1}/projects/search.php`]: () => ({ query: 'id=1&q=Item' }),
  [`GET ${V1}/items/get.php`]: () => ({ query: 'id=1000' }),
  [`GET ${V1}/events/list.php`]: () => ({ query: 'limit=5' }),
  [`PATCH ${V1}/items/status.php`]: () => ({ json: { id: 1001, status: 'in_progress' } }),
  [`PATCH ${V1}/items/planning.php`]: () => ({ json: { id: 1001, priority: 'high' } }),
  [`PUT ${V1}/items/links.php`]: () => ({ json: { id: 1001, document_links: [{ title: 'Plan', url: 'https://example.test/plan' }] } }),
  [`POST ${V1}/comments/create.php`]: () => ({ json: { item_id: 1001, text: 'a comment' } }),
  [`POST ${V1}/answers/create.php`]: () => ({ json: { item_id: 1001, text: 'an answer' } }),
  [`POST ${V1}/items/attachments.php`]: () => ({ form: { item_id: '1001' } }),
  [`POST ${V1}/answers/attachments.php`]: () => ({ form: { answer_id: '7000' } }),
  ['GET /api/items/file.php']: (ids) => ({ query: `id=${ids.itemAttachmentId}` }),
  ['GET /api/answers/file.php']: (ids) => ({ query: `id=${ids.answerAttachmentId}` }),
};

/** Routes of /api/ that need no token: the API contract is public (DESIGN.md §9). */
export const PUBLIC_PATHS = [/^\/api\/external\/v1\/openapi\.json$/, /^\/api\/external\/v1\/docs(\/.*)?$/];

export function operationsOf(app: Parameters<typeof registeredRoutes>[0]): Operation[] {
  return registeredRoutes(app).filter((r): r is Operation => r.scope !== null);
}

/** Every route of /api/, operations, public pages and 405 answers alike. */
export function routesOf(app: Parameters<typeof registeredRoutes>[0]): readonly RegisteredRoute[] {
  return registeredRoutes(app);
}

export function sampleFor(op: Pick<Operation, 'method' | 'url'>, ids: SampleIds): Sample {
  const method = op.method === 'HEAD' ? 'GET' : op.method;
  const make = SAMPLES[`${method} ${op.url}`];
  if (!make) throw new Error(`No sample request for ${op.method} ${op.url}: add one to test/helpers/operations.ts`);
  return make(ids);
}

/** The fetch() arguments of a sample (path with its query, and the init). */
export function sampleRequest(op: Pick<Operation, 'method' | 'url'>, sample: Sample, png: Buffer, token?: string) {
  const headers = new Headers();
  if (token !== undefined) headers.set('authorization', `Bearer ${token}`);
  let body: BodyInit | undefined;
  if (sample.json) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(sample.json);
  } else if (sample.form) {
    body = uploadForm(sample.form, [{ name: 'sample.png', bytes: png, type: 'image/png' }]);
  }
  return { path: `${op.url}${sample.query ? `?${sample.query}` : ''}`, init: { method: op.method, headers, body } satisfies RequestInit };
}
