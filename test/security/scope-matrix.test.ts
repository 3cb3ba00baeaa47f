import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_IDS, OPERATIONS, V1_BASE_PATH } from '../../src/api/v1/operations.js';
import { SCOPES, type Scope } from '../../src/domain/scopes.js';
import { expectError } from '../helpers/envelope.js';
import { solid, uploadForm } from '../helpers/images.js';
import { type Operation, operationsOf, PUBLIC_PATHS, routesOf, type SampleIds, sampleFor, sampleRequest } from '../helpers/operations.js';
import { rawRequest } from '../helpers/raw-http.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { scopesExcept, USERS } from '../helpers/workspace.js';

/**
 * The route × scope matrix, generated from the route table the server registered (never from a list
 * kept by hand): every operation with every token that lacks its scope, every wrong method on every
 * path, and requests that try to talk the scope check round through the query, the body or headers.
 */

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

let server: TestServer;
let png: Buffer;
let ids: SampleIds;
let operations: Operation[];
/** A token of the admin with exactly one scope, per scope. */
const only = {} as Record<Scope, string>;
/** A token of the admin with every scope but one, per scope. */
const allBut = {} as Record<Scope, string>;
let requests = 0;

const call = async (path: string, init: RequestInit) => {
  requests++;
  const response = await fetch(server.url + path, init);
  const text = await response.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON (HEAD, downloads)
  }
  return { status: response.status, body, headers: response.headers };
};

const send = (op: Operation, token: string | undefined, tweak: (r: { path: string; init: RequestInit }) => void = () => {}) => {
  const request = sampleRequest(op, sampleFor(op, ids), png, token);
  tweak(request);
  return call(request.path, request.init);
};

const label = (op: { method: string; url: string }) => `${op.method} ${op.url}`;

beforeAll(async () => {
  server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  png = await solid(16, 16, 'png');
  for (const scope of SCOPES) {
    only[scope] = (
      await server.ctx.tokens.createToken({ userId: USERS.admin, name: `only ${scope}`, scopes: [scope], expiresAt: null })
    ).token;
    allBut[scope] = (
      await server.ctx.tokens.createToken({ userId: USERS.admin, name: `all but ${scope}`, scopes: scopesExcept(scope), expiresAt: null })
    ).token;
  }
  const item = await server.call(`${V1}/items/attachments.php`, {
    method: 'POST',
    token: server.tokens.admin,
    body: uploadForm({ item_id: '1000' }, [{ name: 'a.png', bytes: png }]),
  });
  const answer = await server.call(`${V1}/answers/attachments.php`, {
    method: 'POST',
    token: server.tokens.admin,
    body: uploadForm({ answer_id: '7000' }, [{ name: 'b.png', bytes: png }]),
  });
  expect([item.status, answer.status]).toEqual([201, 201]);
  ids = { itemAttachmentId: item.body.data.attachments[0].id, answerAttachmentId: answer.body.data.attachments[0].id };
  operations = operationsOf(server.app);
});

afterAll(async () => {
  console.log(`scope matrix: ${operations.length} operations (method × path) × ${SCOPES.length} scopes, ${requests} requests`);
  await server.close();
});

describe('the route table', () => {
  it('holds every operation of the definitions (operations.ts) with its scope, the downloads, and nothing else', () => {
    const table = Object.fromEntries(operations.filter((o) => o.method !== 'HEAD').map((o) => [label(o), o.scope]));
    // The same definitions give the OpenAPI document (test/openapi.test.ts): the two cannot drift apart.
    const defined = Object.fromEntries(
      OPERATION_IDS.map((id) => [`${OPERATIONS[id].method} ${V1_BASE_PATH}${OPERATIONS[id].path}`, OPERATIONS[id].scope]),
    );
    expect(table).toEqual({
      ...defined,
      ['GET /api/items/file.php']: 'items:read',
      ['GET /api/answers/file.php']: 'items:read',
      ['GET /api/plans/file.php']: 'projects:read',
      ['GET /api/plans/tiles/:plan/:version/*']: 'projects:read',
    });
    // The spec's table (§4), written out once: the definitions must keep matching it.
    expect(defined).toMatchObject({
      [`GET ${V1}/auth/me.php`]: 'auth:me',
      [`GET ${V1}/projects/list.php`]: 'projects:read',
      [`GET ${V1}/projects/get.php`]: 'projects:read',
      [`GET ${V1}/projects/tree.php`]: 'projects:read',
      [`GET ${V1}/projects/search.php`]: 'projects:search',
      [`GET ${V1}/items/get.php`]: 'items:read',
      [`PATCH ${V1}/items/status.php`]: 'items:status.write',
      [`PATCH ${V1}/items/planning.php`]: 'items:planning.write',
      [`POST ${V1}/comments/create.php`]: 'comments:write',
      [`POST ${V1}/answers/create.php`]: 'answers:write',
      [`PUT ${V1}/items/links.php`]: 'items:materials.write',
      [`POST ${V1}/items/attachments.php`]: 'items:materials.write',
      [`POST ${V1}/answers/attachments.php`]: 'items:materials.write',
    });
    // Every GET operation answers HEAD too, under the same scope.
    for (const op of operations.filter((o) => o.method === 'GET')) {
      expect(operations.find((o) => o.method === 'HEAD' && o.url === op.url)?.scope, op.url).toBe(op.scope);
    }
    const unscoped = routesOf(server.app).filter((r) => r.scope === null && r.allow === null);
    for (const route of unscoped)
      expect(
        PUBLIC_PATHS.some((p) => p.test(route.url)),
        `${label(route)} has no scope`,
      ).toBe(true);
  });
});

describe('every operation × every token lacking its scope', () => {
  it('→ 403 scope_missing, and the token with exactly that scope gets through', async () => {
    let refused = 0;
    for (const op of operations) {
      const lacking = [...SCOPES.filter((s) => s !== op.scope).map((s) => only[s]), allBut[op.scope]];
      for (const token of lacking) {
        const res = await send(op, token);
        if (op.method === 'HEAD') expect(res.status, label(op)).toBe(403);
        else expectError(res, 403, 'scope_missing');
        if (op.method !== 'HEAD') expect(res.body.error.message).toContain(op.scope);
        refused++;
      }
      const allowed = await send(op, only[op.scope]);
      expect(allowed.status, `${label(op)} with only ${op.scope}: ${JSON.stringify(allowed.body).slice(0, 300)}`).toBeGreaterThanOrEqual(
        200,
      );
      expect(allowed.status, label(op)).toBeLessThan(300);
    }
    expect(refused).toBe(operations.length * SCOPES.length);
  });

  it('a single-scope token reaches exactly the operations of its scope, nothing more', async () => {
    const reached: Record<string, string[]> = {};
    for (const scope of SCOPES) {
      reached[scope] = [];
      for (const op of operations.filter((o) => o.method !== 'HEAD')) {
        const res = await send(op, only[scope]);
        if (res.status < 300) reached[scope]!.push(label(op));
        else expectError(res, 403, 'scope_missing');
      }
    }
    const expected = Object.fromEntries(SCOPES.map((s) => [s, operations.filter((o) => o.method !== 'HEAD' && o.scope === s).map(label)]));
    expect(reached).toEqual(expected);
    // Spelled out for the two that matter most.
    expect(reached['items:read']).not.toContain(`GET ${V1}/projects/tree.php`);
    expect(reached['projects:read']).not.toContain(`GET ${V1}/items/get.php`);
  });

  it('projects:read shows item summaries in the tree, never the item card', async () => {
    const tree = await call(`${V1}/projects/tree.php?id=1`, { headers: { authorization: `Bearer ${only['projects:read']}` } });
    expect(tree.status).toBe(200);
    const items = tree.body.data.sections.flatMap((s: any) => s.checklists.flatMap((c: any) => c.items));
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) {
      expect(Object.keys(item).sort()).toEqual([
        'ball_in_court',
        'category',
        'deadline',
        'fields',
        'id',
        'location',
        'priority',
        'requires_answer',
        'responsible_company',
        'status',
        'text',
      ]);
    }
    const text = JSON.stringify(tree.body);
    for (const secret of ['Description of item', 'On it', 'Done, see act', 'example.test/plan', 'status_history'])
      expect(text).not.toContain(secret);
  });

  it('auth:me names the user and the token, and shows no project data', async () => {
    const me = await call(`${V1}/auth/me.php`, { headers: { authorization: `Bearer ${only['auth:me']}` } });
    expect(me.status).toBe(200);
    expect(Object.keys(me.body.data).sort()).toEqual(['scopes', 'token', 'user']);
    expect(me.body.data.scopes).toEqual(['auth:me']);
    expect(JSON.stringify(me.body)).not.toMatch(/Plant audit|Item 1000|Extinguishers/);
  });
});

describe('the scope is decided by method and route alone', () => {
  it('query parameters, body fields and headers that name a scope change nothing', async () => {
    for (const op of operations) {
      const token = allBut[op.scope];
      const tweaks: [string, (r: { path: string; init: RequestInit }) => void][] = [
        ['?scope=', (r) => (r.path += `${r.path.includes('?') ? '&' : '?'}scope=${encodeURIComponent(op.scope)}`)],
        [
          '?scopes[]=',
          (r) =>
            (r.path += `${r.path.includes('?') ? '&' : '?'}scopes[]=${encodeURIComponent(op.scope)}&scopes=${encodeURIComponent(SCOPES.join(','))}`),
        ],
        [
          '?access_token= of a full token',
          (r) => (r.path += `${r.path.includes('?') ? '&' : '?'}access_token=${server.tokens.admin}&token=${server.tokens.admin}`),
        ],
        [
          'headers',
          (r) => {
            const headers = r.init.headers as Headers;
            headers.set('x-scope', op.scope);
            headers.set('x-token-scopes', SCOPES.join(' '));
            headers.set('x-api-key', server.tokens.admin);
            headers.set('x-http-method-override', 'GET');
            headers.set('x-original-url', `${V1}/auth/me.php`);
            headers.set('x-forwarded-prefix', '/public');
          },
        ],
        ['a second Authorization value', (r) => (r.init.headers as Headers).append('authorization', `Bearer ${server.tokens.admin}`)],
      ];
      if (op.method !== 'GET' && op.method !== 'HEAD' && sampleFor(op, ids).json) {
        tweaks.push([
          'body scope fields',
          (r) => {
            const body = JSON.stringify({
              ...sampleFor(op, ids).json,
              scope: op.scope,
              scopes: [...SCOPES],
              token: { scopes: [...SCOPES] },
            });
            r.init.body = body.replace(/}$/, `,"__proto__":{"scope":"${op.scope}"},"constructor":{"prototype":{"scope":"${op.scope}"}}}`);
          },
        ]);
      }
      for (const [what, tweak] of tweaks) {
        const res = await send(op, token, tweak);
        if (what === 'a second Authorization value') {
          // Two values are one malformed header: never the full token's rights.
          expect([401, 403], `${label(op)} ${what}`).toContain(res.status);
          continue;
        }
        expect(res.status, `${label(op)} ${what}: ${JSON.stringify(res.body).slice(0, 200)}`).toBe(403);
        if (op.method !== 'HEAD') expect(res.body.error.code).toBe('scope_missing');
      }
    }
  });

  it('spellings of a path never reach an operation with a lacking token', async () => {
    const { port } = new URL(server.url);
    for (const op of operations.filter((o) => o.method === 'GET')) {
      const token = allBut[op.scope];
      const sample = sampleFor(op, ids);
      const query = sample.query ? `?${sample.query}` : '';
      const dir = op.url.slice(0, op.url.lastIndexOf('/'));
      const file = op.url.slice(op.url.lastIndexOf('/') + 1);
      const spellings = [
        `${op.url}${query}`,
        `${op.url.replace('.php', '%2Ephp')}${query}`,
        `${op.url.replace(/\/([^/]+)$/, '/%2e/$1')}${query}`,
        `${dir}/../${dir.split('/').pop()}/${file}${query}`,
        `${op.url.replace('/api/', '//api/')}${query}`,
        `${op.url.toUpperCase()}${query}`,
        `${op.url};scope=${op.scope}${query}`,
        `${op.url}/${query}`,
        `${op.url}%00${query}`,
        `${op.url}#x`,
        `http://127.0.0.1${op.url}${query}`,
      ];
      for (const target of spellings) {
        requests++;
        const res = await rawRequest(Number(port), { method: 'GET', target, headers: [['Authorization', `Bearer ${token}`]] });
        // A 4xx, or the web interface's redirect of a path it does not know to its sign-in page.
        expect(res.status, `${target} → ${res.body.toString().slice(0, 200)}`).toBeGreaterThanOrEqual(300);
        expect(res.status, target).toBeLessThan(500);
        if (res.status < 400) expect(res.headers.location, target).toMatch(/^\/login(\?|$)/);
      }
    }
  });
});

describe('wrong methods answer 405 before anything else', () => {
  it('on every path, whoever asks, with Allow', async () => {
    const byPath = new Map<string, Set<string>>();
    for (const r of routesOf(server.app)) {
      if (r.allow !== null || PUBLIC_PATHS.some((p) => p.test(r.url))) continue;
      byPath.set(r.url, (byPath.get(r.url) ?? new Set()).add(r.method));
    }
    expect(byPath.size).toBeGreaterThanOrEqual(15);
    const askers = [undefined, 'plk_not-a-token', server.tokens.admin, only['auth:me']];
    let checked = 0;
    for (const [path, methods] of byPath) {
      const allow = METHODS.filter((m) => methods.has(m)).join(', ');
      for (const method of METHODS.filter((m) => !methods.has(m))) {
        for (const token of askers) {
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (token) headers.authorization = `Bearer ${token}`;
          const res = await call(`${path}?id=1000`, {
            method,
            headers,
            body: method === 'GET' || method === 'HEAD' ? undefined : '{"id": 1000, "scope": "x"}',
          });
          expect(res.status, `${method} ${path}`).toBe(405);
          expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow);
          if (method !== 'HEAD') expectError(res, 405, 'method_not_allowed');
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(byPath.size * askers.length);
  });

  it('unknown paths answer 404 whatever the token', async () => {
    for (const path of [
      `${V1}/items/delete.php`,
      `${V1}/admin/users.php`,
      `${V1}/tokens/create.php`,
      '/api/external/v2/auth/me.php',
      '/api/items/file',
    ]) {
      for (const token of [undefined, server.tokens.admin]) {
        expectError(await call(path, { headers: token ? { authorization: `Bearer ${token}` } : {} }), 404, 'not_found');
      }
    }
  });
});
