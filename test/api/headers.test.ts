import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../src/domain/scopes.js';
import { expectError, expectOk } from '../helpers/envelope.js';
import { makeToken, makeUser } from '../helpers/factories.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { USERS } from '../helpers/workspace.js';

const POLICY = /^"per-token";q=(\d+);w=60$/;
const REMAINING = /^"per-token";r=(\d+);t=(\d+)$/;

async function tokenFor(server: TestServer, scopes: Scope[], expiresAt: Date | null = null) {
  const created = await server.ctx.tokens.createToken({ userId: USERS.manager, name: 'headers test', scopes, expiresAt });
  return created;
}

describe('v1 response headers (default rate limit)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('sends X-Request-Id, RateLimit-Policy and RateLimit on a success, the quota counting down', async () => {
    const first = await server.call(`${V1}/auth/me.php`, { token: server.tokens.manager });
    expectOk(first);
    expect(first.headers.get('x-request-id')).toBe(first.body.meta.request_id);
    expect(first.headers.get('ratelimit-policy')).toMatch(POLICY);
    expect(first.headers.get('ratelimit-policy')).toBe('"per-token";q=600;w=60');
    const [, remaining1, reset] = REMAINING.exec(first.headers.get('ratelimit') ?? '') ?? [];
    expect(Number(reset)).toBeGreaterThanOrEqual(1);
    expect(Number(reset)).toBeLessThanOrEqual(60);
    const second = await server.call(`${V1}/auth/me.php`, { token: server.tokens.manager });
    const [, remaining2] = REMAINING.exec(second.headers.get('ratelimit') ?? '') ?? [];
    expect(Number(remaining2)).toBe(Number(remaining1) - 1);
  });

  it('sends the rate limit headers on errors of an authenticated token too, but no RateLimit on 401', async () => {
    const notFound = await server.call(`${V1}/items/get.php?id=999999`, { token: server.tokens.manager });
    expectError(notFound, 404, 'not_found');
    expect(notFound.headers.get('ratelimit')).toMatch(REMAINING);
    expect(notFound.headers.get('x-request-id')).toBe(notFound.body.meta.request_id);

    const anonymous = await server.call(`${V1}/auth/me.php`);
    expectError(anonymous, 401, 'unauthorized');
    expect(anonymous.headers.get('ratelimit-policy')).toMatch(POLICY);
    expect(anonymous.headers.get('ratelimit')).toBeNull();
  });

  it('sends RateLimit-Policy on a 405 of a known path, without RateLimit (nothing was counted)', async () => {
    for (const token of [server.tokens.manager, undefined]) {
      const res = await server.call(`${V1}/items/status.php`, { token, method: 'GET' });
      expectError(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow')).toBe('PATCH');
      expect(res.headers.get('ratelimit-policy')).toBe('"per-token";q=600;w=60');
      expect(res.headers.get('ratelimit')).toBeNull();
      expect(res.headers.get('x-request-id')).toBe(res.body.meta.request_id);
    }
    const post = await server.call(`${V1}/openapi.json`, { method: 'POST' });
    expectError(post, 405, 'method_not_allowed');
    expect(post.headers.get('ratelimit-policy')).toBe('"per-token";q=600;w=60');
  });

  it('sends RateLimit-Policy on a 404 of an unknown path under v1, in the envelope, without RateLimit', async () => {
    for (const path of [`${V1}/nope.php`, `${V1}/items/nope.php?id=1`, `${V1}/`, V1, `${V1}/docs/nope`]) {
      for (const token of [server.tokens.manager, undefined]) {
        const res = await server.call(path, { token });
        expectError(res, 404, 'not_found');
        expect(res.headers.get('ratelimit-policy'), path).toBe('"per-token";q=600;w=60');
        expect(res.headers.get('ratelimit'), path).toBeNull();
        expect(res.headers.get('x-request-id'), path).toBe(res.body.meta.request_id);
      }
    }
    // Outside v1 the /api/ handler still answers in the envelope.
    expectError(await server.call('/api/nope.php'), 404, 'not_found');
  });

  it('sends RateLimit-Policy on every 401, without RateLimit (a refused token has no counter)', async () => {
    for (const token of [undefined, '', 'plk_000000000000000000000000000000000000']) {
      const res = await server.call(`${V1}/projects/list.php`, { token });
      expect(res.status).toBe(401);
      expect(res.headers.get('ratelimit-policy')).toBe('"per-token";q=600;w=60');
      expect(res.headers.get('ratelimit')).toBeNull();
      expect(res.headers.get('punchlist-token-expiration')).toBeNull();
    }
  });

  it('Punchlist-Token-Expiration carries the expiry in RFC 3339, and is absent for a token without one', async () => {
    const expiresAt = new Date(Date.now() + 5 * 86_400_000);
    const expiring = await tokenFor(server, ['auth:me'], expiresAt);
    const res = await server.call(`${V1}/auth/me.php`, { token: expiring.token });
    expectOk(res);
    expect(res.headers.get('punchlist-token-expiration')).toBe(expiresAt.toISOString());
    expect(res.headers.get('punchlist-token-expiration')).toBe(res.body.data.token.expires_at);

    const scopeMissing = await server.call(`${V1}/projects/list.php`, { token: expiring.token });
    expectError(scopeMissing, 403, 'scope_missing');
    expect(scopeMissing.headers.get('punchlist-token-expiration')).toBe(expiresAt.toISOString());

    const forever = await server.call(`${V1}/auth/me.php`, { token: server.tokens.manager });
    expect(forever.headers.get('punchlist-token-expiration')).toBeNull();
  });

  it('ETag over data only: the same data gives the same tag although meta differs; If-None-Match answers 304 without a body', async () => {
    const first = await server.request(`${V1}/projects/tree.php?id=1`, { token: server.tokens.manager });
    const firstBody = (await first.json()) as { meta: { request_id: string } };
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]{43}"$/);
    const again = await server.request(`${V1}/projects/tree.php?id=1`, { token: server.tokens.manager });
    const againBody = (await again.json()) as { meta: { request_id: string } };
    expect(againBody.meta.request_id).not.toBe(firstBody.meta.request_id);
    expect(again.headers.get('etag')).toBe(etag);

    const notModified = await server.request(`${V1}/projects/tree.php?id=1`, {
      token: server.tokens.manager,
      headers: { 'if-none-match': etag! },
    });
    expect(notModified.status).toBe(304);
    expect(await notModified.text()).toBe('');
    expect(notModified.headers.get('etag')).toBe(etag);
    expect(notModified.headers.get('x-request-id')).toBeTruthy();
    expect(notModified.headers.get('ratelimit')).toMatch(REMAINING);
    expect(notModified.headers.get('content-length')).toBeNull();

    // A list of tags, the strong form of the same tag, and * all match.
    for (const header of [`"other", ${etag}`, etag!.slice(2), '*']) {
      const res = await server.request(`${V1}/projects/tree.php?id=1`, {
        token: server.tokens.manager,
        headers: { 'if-none-match': header },
      });
      expect(res.status, header).toBe(304);
    }
    const other = await server.request(`${V1}/projects/tree.php?id=1`, {
      token: server.tokens.manager,
      headers: { 'if-none-match': 'W/"nope"' },
    });
    expect(other.status).toBe(200);

    const head = await server.request(`${V1}/projects/tree.php?id=1`, { token: server.tokens.manager, method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(etag);
    const headNotModified = await server.request(`${V1}/projects/tree.php?id=1`, {
      token: server.tokens.manager,
      method: 'HEAD',
      headers: { 'if-none-match': etag! },
    });
    expect(headNotModified.status).toBe(304);

    const audit = await server.ctx.audit.list({ limit: 10 });
    expect(audit.some((r) => r.status === 304 && r.path === `${V1}/projects/tree.php`)).toBe(true);
  });

  it('the ETag changes when data changes, and is per user (what each one sees)', async () => {
    const before = await server.request(`${V1}/items/get.php?id=1001`, { token: server.tokens.manager });
    const etag = before.headers.get('etag')!;
    const write = await server.call(`${V1}/items/planning.php`, {
      token: server.tokens.manager,
      method: 'PATCH',
      json: { id: 1001, priority: 'low' },
    });
    expectOk(write);
    expect(write.headers.get('etag')).toBeNull();
    const after = await server.request(`${V1}/items/get.php?id=1001`, { token: server.tokens.manager, headers: { 'if-none-match': etag } });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(etag);

    const partial = await server.request(`${V1}/projects/tree.php?id=1`, { token: server.tokens.partial });
    const manager = await server.request(`${V1}/projects/tree.php?id=1`, { token: server.tokens.manager });
    expect(partial.headers.get('etag')).not.toBe(manager.headers.get('etag'));
  });

  it('no ETag on errors', async () => {
    const res = await server.request(`${V1}/items/get.php?id=4000`, { token: server.tokens.manager });
    expect(res.status).toBe(404);
    expect(res.headers.get('etag')).toBeNull();
  });
});

describe('rate limit (RATE_LIMIT_PER_MINUTE=3)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '3' } });
  });
  afterAll(() => server.close());

  it('refuses the fourth request of a token with 429 rate_limited and Retry-After; other tokens are not affected', async () => {
    const token = (await tokenFor(server, ['auth:me', 'projects:read'])).token;
    for (let i = 0; i < 3; i++) {
      const res = await server.call(`${V1}/auth/me.php`, { token });
      expectOk(res);
      expect(res.headers.get('ratelimit')).toMatch(new RegExp(`^"per-token";r=${2 - i};t=\\d+$`));
      expect(res.headers.get('ratelimit-policy')).toBe('"per-token";q=3;w=60');
    }
    const refused = await server.call(`${V1}/auth/me.php`, { token });
    expectError(refused, 429, 'rate_limited');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.get('ratelimit')).toBe(`"per-token";r=0;t=${retryAfter}`);

    expectOk(await server.call(`${V1}/auth/me.php`, { token: server.tokens.observer }));
  });

  it('checks the quota after authentication and before the scope: 429 even for an endpoint outside the scopes; 401 stays 401', async () => {
    const created = await tokenFor(server, ['auth:me']);
    for (let i = 0; i < 3; i++) expectOk(await server.call(`${V1}/auth/me.php`, { token: created.token }));
    const refused = await server.call(`${V1}/items/get.php?id=1000`, { token: created.token });
    expectError(refused, 429, 'rate_limited');

    const invalid = await server.call(`${V1}/auth/me.php`, { token: 'plk_000000000000000000000000000000000000' });
    expect(invalid.status).toBe(401);

    const [record] = await server.ctx.audit.list({ tokenId: created.id, limit: 1 });
    expect(record).toMatchObject({ status: 429, error_code: 'rate_limited', token_id: created.id, user_id: USERS.manager });
  });

  it('the OpenAPI document and the docs page are public and not counted; they carry the policy only', async () => {
    for (let i = 0; i < 5; i++) expect((await server.request(`${V1}/openapi.json`)).status).toBe(200);
    for (const path of [`${V1}/openapi.json`, `${V1}/docs`]) {
      const res = await server.request(path);
      expect(res.status, path).toBe(200);
      await res.arrayBuffer();
      expect(res.headers.get('ratelimit'), path).toBeNull();
      expect(res.headers.get('ratelimit-policy'), path).toBe('"per-token";q=3;w=60');
    }
  });

  it('a 405 or an unknown path does not count toward the token quota', async () => {
    const token = (await tokenFor(server, ['auth:me'])).token;
    for (let i = 0; i < 4; i++) {
      expectError(await server.call(`${V1}/auth/me.php`, { token, method: 'DELETE' }), 405, 'method_not_allowed');
      expectError(await server.call(`${V1}/auth/nope.php`, { token }), 404, 'not_found');
    }
    const res = await server.call(`${V1}/auth/me.php`, { token });
    expectOk(res);
    expect(res.headers.get('ratelimit')).toMatch(/^"per-token";r=2;t=\d+$/);
  });
});

describe('rate limit disabled (RATE_LIMIT_PER_MINUTE=0)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  });
  afterAll(() => server.close());

  it('never refuses and sends no RateLimit headers', async () => {
    for (let i = 0; i < 20; i++) {
      const res = await server.call(`${V1}/auth/me.php`, { token: server.tokens.manager });
      expectOk(res);
      expect(res.headers.get('ratelimit')).toBeNull();
      expect(res.headers.get('ratelimit-policy')).toBeNull();
    }
  });

  it('sends no RateLimit headers on 401, 404 or 405 either', async () => {
    const responses = [
      await server.call(`${V1}/auth/me.php`),
      await server.call(`${V1}/nope.php`, { token: server.tokens.manager }),
      await server.call(`${V1}/auth/me.php`, { token: server.tokens.manager, method: 'POST' }),
    ];
    expect(responses.map((r) => r.status)).toEqual([401, 404, 405]);
    for (const res of responses) {
      expect(res.headers.get('ratelimit')).toBeNull();
      expect(res.headers.get('ratelimit-policy')).toBeNull();
    }
  });
});

describe('a large tree in gzip, built in the worker and cached', () => {
  let server: TestServer;
  let token = '';
  let path = '';
  beforeAll(async () => {
    server = await startTestServer();
    const admin = await makeUser(server, { role: 'admin' });
    const project = await server.ctx.structure.createProject(admin, { name: 'A large tree', description: '' });
    const section = await server.ctx.structure.createSection(admin, project, 'Section');
    const checklist = { id: await server.ctx.structure.createChecklist(admin, section, 'Checklist'), projectId: project };
    for (let i = 0; i < 500; i++) {
      await server.ctx.itemEdits.createItem(admin, checklist.id, { text: `Замечание ${i}: проверить крепление кабеля` });
    }
    token = (await makeToken(server, admin, ['projects:read'])).token;
    path = `${V1}/projects/tree.php?id=${checklist.projectId}`;
  });
  afterAll(() => server.close());

  it('is gzip when the client accepts it, the same data and ETag as the plain answer, from the cache too', async () => {
    const plain = await server.request(path, { token, headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    const plainText = await plain.text();
    expect(Buffer.byteLength(plainText)).toBeGreaterThan(64 * 1024);
    for (const round of ['the cache', 'the cache again']) {
      // fetch asks for gzip itself and decodes it: the headers say what came over the wire.
      const gzip = await server.request(path, { token });
      expect(gzip.headers.get('content-encoding'), round).toBe('gzip');
      expect(gzip.headers.get('vary')).toBe('Accept-Encoding');
      expect(Number(gzip.headers.get('content-length'))).toBeLessThan(Buffer.byteLength(plainText) / 5);
      expect(gzip.headers.get('etag')).toBe(plain.headers.get('etag'));
      expect(((await gzip.json()) as { data: unknown }).data).toEqual(JSON.parse(plainText).data);
    }
    const notModified = await server.request(path, { token, headers: { 'if-none-match': plain.headers.get('etag')! } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('content-encoding')).toBeNull();
    expect(await notModified.text()).toBe('');
  });
});
