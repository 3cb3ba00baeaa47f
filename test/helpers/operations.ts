import { type RegisteredRoute, registeredRoutes } from '../../src/api/route-registry.js';
import type { Operation as Definition, OperationRegistry } from '../../src/api/v1/define-operation.js';
import { OPERATIONS, V1_BASE_PATH } from '../../src/api/v1/operations.js';
import type { Scope } from '../../src/domain/scopes.js';
import { uploadForm } from './images.js';

/**
 * The operations of /api/ as the running server registered them (src/api/route-registry.ts), with one
 * request per operation that succeeds for the admin of the standard workspace: a v1 operation's is the
 * example request of its definition (src/api/v1/operations/), so a new operation is in the matrix with no
 * line here. The list of operations is never written here: a new route shows up by itself, and fails the
 * tests until it has a sample.
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
  /** The path, for a route with parameters in it (default: the route's own). */
  path?: string;
  query?: string;
  json?: Record<string, unknown>;
  /** Multipart fields; one 16×16 PNG is added as `attachments[]`. */
  form?: Record<string, string>;
}

/** The sample request of an operation definition: its `examples.sample`, else its documented example request. */
export function definitionSample(op: Definition): Sample {
  const request = op.examples.sample ?? op.examples;
  return {
    ...(request.query ? { query: new URLSearchParams(request.query).toString() } : {}),
    ...(request.body ? { json: request.body } : {}),
    ...(request.form ? { form: request.form } : {}),
  };
}

/** The samples of a list of definitions, by `METHOD /full/path`. */
export function definitionSamples(operations: OperationRegistry): Record<string, (ids: SampleIds) => Sample> {
  return Object.fromEntries(Object.values(operations).map((op) => [`${op.method} ${V1_BASE_PATH}${op.path}`, () => definitionSample(op)]));
}

const SAMPLES: Record<string, (ids: SampleIds) => Sample> = {
  ...definitionSamples(OPERATIONS),
  // The downloads are not v1 operations: their samples are here.
  ['GET /api/items/file.php']: (ids) => ({ query: `id=${ids.itemAttachmentId}` }),
  ['GET /api/answers/file.php']: (ids) => ({ query: `id=${ids.answerAttachmentId}` }),
  // Plan 1 of the workspace (test/helpers/plans.ts).
  ['GET /api/plans/file.php']: () => ({ query: 'id=1' }),
  ['GET /api/plans/tiles/:plan/:version/*']: () => ({ path: '/api/plans/tiles/1/1/sheet_files/0/0_0.webp' }),
};

/** Routes of /api/ that need no token: the API contract is public (docs/design.md §9). */
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
  if (!make)
    throw new Error(`No sample request for ${op.method} ${op.url}: give its definition examples, or add one to test/helpers/operations.ts`);
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
  return {
    path: `${sample.path ?? op.url}${sample.query ? `?${sample.query}` : ''}`,
    init: { method: op.method, headers, body } satisfies RequestInit,
  };
}
