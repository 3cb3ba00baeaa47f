import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditLogTable } from '../../src/db/tables.js';
import { expectError, expectOk, ISO_DATE_TIME } from '../helpers/envelope.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { scopesExcept, USERS } from '../helpers/workspace.js';

type AuditRow = { [K in keyof AuditLogTable]: K extends 'id' ? number : AuditLogTable[K] };

const UA = 'punchlist-audit-test/1.0';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function recordsOf(requestId: string): Promise<AuditRow[]> {
  return (await server.ctx.db.kysely.selectFrom('audit_log').selectAll().where('request_id', '=', requestId).execute()) as AuditRow[];
}

/** The audit record of a response; the record may be written just after the response leaves. */
async function auditOf(res: { headers: Headers }): Promise<AuditRow> {
  const requestId = res.headers.get('x-request-id');
  expect(requestId).toBeTruthy();
  for (let i = 0; i < 100; i++) {
    const rows = await recordsOf(requestId!);
    if (rows.length > 0) {
      await sleep(20); // a second record, if any, would have the time to appear
      const again = await recordsOf(requestId!);
      expect(again, `records of ${requestId}`).toHaveLength(1);
      return again[0]!;
    }
    await sleep(20);
  }
  throw new Error(`no audit record for request ${requestId}`);
}

const count = async () =>
  Number(
    (
      await server.ctx.db.kysely
        .selectFrom('audit_log')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

const call = (path: string, init: RequestInit & { token?: string } = {}) =>
  server.call(path, { ...init, headers: { 'user-agent': UA, ...(init.headers as Record<string, string> | undefined) } });

function expectCommon(row: AuditRow, res: { status: number; body: any }, method: string, path: string, query: string, started: number) {
  expect(row.request_id).toBe(res.body.meta.request_id);
  expect(row.method).toBe(method);
  expect(row.path).toBe(path);
  expect(row.query).toBe(query);
  expect(row.status).toBe(res.status);
  expect(row.ip).toBe('127.0.0.1');
  expect(row.user_agent).toBe(UA);
  expect(row.at).toMatch(ISO_DATE_TIME);
  expect(Date.parse(row.at)).toBeGreaterThanOrEqual(started - 1000);
  expect(Date.parse(row.at)).toBeLessThanOrEqual(Date.now() + 1000);
  expect(row.duration_ms).toBeTypeOf('number');
  expect(row.duration_ms).toBeGreaterThanOrEqual(0);
  expect(row.duration_ms).toBeLessThan(30_000);
}

describe('audit records of successful reads', () => {
  it.each([
    ['auth/me', '/auth/me.php', '', null, null],
    ['projects/list', '/projects/list.php', 'limit=10&archived=all', null, null],
    ['projects/get', '/projects/get.php', 'id=1', 'project', 1],
    ['projects/tree', '/projects/tree.php', 'id=1', 'project', 1],
    ['items/get', '/items/get.php', 'id=1000', 'item', 1000],
  ] as const)('%s: every field', async (_name, path, query, entityType, entityId) => {
    const started = Date.now();
    const res = await call(`${V1}${path}${query ? `?${query}` : ''}`, { token: server.tokens.manager });
    expectOk(res);
    const row = await auditOf(res);
    expectCommon(row, res, 'GET', `${V1}${path}`, query, started);
    expect(row).toMatchObject({
      token_id: USERS.manager, // workspace tokens have the id of their user
      user_id: USERS.manager,
      error_code: null,
      entity_type: entityType,
      entity_id: entityId,
      client_request_id: null,
    });
  });

  it('keeps the raw query string, undecoded and in order', async () => {
    const query = 'q=a%20b+c%E2%9C%93&id=1&entity_type=item&limit=5';
    const res = await call(`${V1}/projects/search.php?${query}`, { token: server.tokens.executor });
    expectOk(res);
    const row = await auditOf(res);
    expect(row.query).toBe(query);
    expect(row.path).toBe(`${V1}/projects/search.php`);
    expect(row).toMatchObject({ token_id: USERS.executor, user_id: USERS.executor, entity_type: 'project', entity_id: 1 });
  });
});

describe('audit records of failures', () => {
  it('401 unauthorized: no token, no user, the error code', async () => {
    const started = Date.now();
    const res = await call(`${V1}/projects/get.php?id=1`);
    expectError(res, 401, 'unauthorized');
    const row = await auditOf(res);
    expectCommon(row, res, 'GET', `${V1}/projects/get.php`, 'id=1', started);
    expect(row).toMatchObject({ token_id: null, user_id: null, error_code: 'unauthorized' });
  });

  it.each([
    ['token_invalid', 'plk_notatoken'],
    ['token_revoked', 'inactive'],
  ])('401 %s is recorded with its code', async (code, token) => {
    const res = await call(`${V1}/auth/me.php`, { token: token === 'inactive' ? server.tokens.inactive : token });
    expectError(res, 401, code);
    const row = await auditOf(res);
    expect(row).toMatchObject({ status: 401, error_code: code, path: `${V1}/auth/me.php` });
    if (code === 'token_invalid') expect(row).toMatchObject({ token_id: null, user_id: null });
  });

  it('401 token_revoked and token_expired name the token and its owner, so the owner can see what broke', async () => {
    const expiring = await server.ctx.tokens.createToken({
      userId: USERS.observer,
      name: 'short',
      scopes: ['auth:me'],
      expiresAt: new Date(Date.now() + 300),
    });
    const revoked = await server.ctx.tokens.createToken({ userId: USERS.observer, name: 'gone', scopes: ['auth:me'], expiresAt: null });
    await server.ctx.tokens.revokeToken(revoked.id);
    await new Promise((resolve) => setTimeout(resolve, 400));
    for (const [token, code, id] of [
      [expiring.token, 'token_expired', expiring.id],
      [revoked.token, 'token_revoked', revoked.id],
    ] as const) {
      const res = await call(`${V1}/auth/me.php`, { token });
      expectError(res, 401, code);
      expect(await auditOf(res)).toMatchObject({ error_code: code, token_id: id, user_id: USERS.observer });
    }
  });

  it('403 scope_missing: the token and user are known', async () => {
    const { id, token } = await server.ctx.tokens.createToken({
      userId: USERS.observer,
      name: 'no items',
      scopes: scopesExcept('items:read'),
      expiresAt: null,
    });
    const res = await call(`${V1}/items/get.php?id=1000`, { token });
    expectError(res, 403, 'scope_missing');
    const row = await auditOf(res);
    expect(row).toMatchObject({ status: 403, error_code: 'scope_missing', token_id: id, user_id: USERS.observer, query: 'id=1000' });
  });

  it('404 unknown path, with any method', async () => {
    const started = Date.now();
    for (const method of ['GET', 'POST', 'DELETE']) {
      const res = await call(`${V1}/nope.php?x=1`, { method });
      expectError(res, 404, 'not_found');
      const row = await auditOf(res);
      expectCommon(row, res, method, `${V1}/nope.php`, 'x=1', started);
      expect(row).toMatchObject({ token_id: null, user_id: null, error_code: 'not_found', entity_type: null, entity_id: null });
    }
    const outside = await call('/api/nothing-here');
    expectError(outside, 404, 'not_found');
    expect(await auditOf(outside)).toMatchObject({ status: 404, path: '/api/nothing-here', error_code: 'not_found' });
  });

  it('405 wrong method', async () => {
    const res = await call(`${V1}/items/get.php?id=1000`, { method: 'DELETE', token: server.tokens.manager });
    expectError(res, 405, 'method_not_allowed');
    expect(await auditOf(res)).toMatchObject({ status: 405, method: 'DELETE', error_code: 'method_not_allowed', query: 'id=1000' });
  });

  it('404 of an invisible entity names the entity asked for', async () => {
    const res = await call(`${V1}/items/get.php?id=4000`, { token: server.tokens.manager });
    expectError(res, 404, 'not_found');
    expect(await auditOf(res)).toMatchObject({
      status: 404,
      error_code: 'not_found',
      token_id: USERS.manager,
      user_id: USERS.manager,
      entity_type: 'item',
      entity_id: 4000,
    });
  });

  it.each([
    ['/items/get.php', 'id=abc'],
    ['/projects/tree.php', 'id=01'],
    ['/projects/list.php', 'limit=0'],
    ['/projects/list.php', 'archived=maybe'],
  ])('422 on %s?%s', async (path, query) => {
    const res = await call(`${V1}${path}?${query}`, { token: server.tokens.partial });
    expectError(res, 422, 'validation_error');
    expect(await auditOf(res)).toMatchObject({
      status: 422,
      error_code: 'validation_error',
      query,
      token_id: USERS.partial,
      user_id: USERS.partial,
      entity_type: null,
      entity_id: null,
    });
  });
});

describe('one record per request', () => {
  it('writes exactly one record for each of a mix of requests', async () => {
    const before = await count();
    const requests: [string, RequestInit & { token?: string }][] = [
      [`${V1}/auth/me.php`, { token: server.tokens.admin }],
      [`${V1}/auth/me.php`, {}],
      [`${V1}/auth/me.php`, { method: 'PUT' }],
      [`${V1}/projects/list.php`, { token: server.tokens.outsider }],
      [`${V1}/projects/get.php?id=3`, { token: server.tokens.outsider }],
      [`${V1}/items/get.php?id=x`, { token: server.tokens.admin }],
      [`${V1}/unknown.php`, {}],
      [`${V1}/auth/me.php`, { token: 'plk_short' }],
    ];
    const ids: string[] = [];
    for (const [path, init] of requests) {
      const res = await call(path, init);
      await auditOf(res);
      ids.push(res.headers.get('x-request-id')!);
    }
    await sleep(100);
    expect(new Set(ids).size).toBe(requests.length);
    expect(await count()).toBe(before + requests.length);
  });

  it('records concurrent requests each once', async () => {
    const before = await count();
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call(`${V1}/items/get.php?id=${i % 2 ? 1000 : 4000}`, { token: server.tokens.manager })),
    );
    for (const res of responses) await auditOf(res);
    await sleep(100);
    expect(await count()).toBe(before + 20);
  });
});

describe('request ids', () => {
  it("keeps the client's X-Request-Id as client_request_id and never uses it as the request id", async () => {
    for (const token of [server.tokens.manager, undefined]) {
      const res = await call(`${V1}/auth/me.php`, { token, headers: { 'x-request-id': 'client-abc-123' } });
      const serverId = res.headers.get('x-request-id');
      expect(serverId).not.toBe('client-abc-123');
      expect(serverId).toMatch(UUID);
      expect(res.body.meta.request_id).toBe(serverId);
      const row = await auditOf(res);
      expect(row.request_id).toBe(serverId);
      expect(row.client_request_id).toBe('client-abc-123');
      expect(await recordsOf('client-abc-123')).toEqual([]);
    }
  });

  it('does not reuse an id a client copies from an earlier response', async () => {
    const first = await call(`${V1}/auth/me.php`, { token: server.tokens.manager });
    const earlier = (await auditOf(first)).request_id;
    const second = await call(`${V1}/auth/me.php`, { token: server.tokens.manager, headers: { 'x-request-id': earlier } });
    expect(second.headers.get('x-request-id')).not.toBe(earlier);
    expect(await recordsOf(earlier)).toHaveLength(1);
    expect((await auditOf(second)).client_request_id).toBe(earlier);
  });
});

describe('client IP', () => {
  it('ignores X-Forwarded-For without TRUST_PROXY', async () => {
    const res = await call(`${V1}/auth/me.php`, { token: server.tokens.manager, headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect((await auditOf(res)).ip).toBe('127.0.0.1');
  });

  it('uses X-Forwarded-For with TRUST_PROXY', async () => {
    const proxied = await startTestServer({ env: { TRUST_PROXY: '1' } });
    try {
      const res = await proxied.call(`${V1}/auth/me.php`, { token: proxied.tokens.manager, headers: { 'x-forwarded-for': '203.0.113.9' } });
      expectOk(res);
      const requestId = res.headers.get('x-request-id')!;
      let row: { ip: string | null } | undefined;
      for (let i = 0; i < 100 && !row; i++) {
        row = await proxied.ctx.db.kysely.selectFrom('audit_log').select('ip').where('request_id', '=', requestId).executeTakeFirst();
        if (!row) await sleep(20);
      }
      expect(row?.ip).toBe('203.0.113.9');
    } finally {
      await proxied.close();
    }
  });
});
