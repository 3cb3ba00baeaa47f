import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expectOk } from '../helpers/envelope.js';
import { solid, uploadForm } from '../helpers/images.js';
import { rawRequest } from '../helpers/raw-http.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { USERS } from '../helpers/workspace.js';

/**
 * What integrators rely on beyond the spec's shapes (docs/design.md §6): unknown inputs refused, CORS,
 * RFC 6750 challenges, one Authorization header, clear messages where integrators stumbled, and
 * secrets kept out of the database.
 */
let server: TestServer;
let port: number;

beforeAll(async () => {
  server = await startTestServer();
  port = Number(new URL(server.url).port);
});
afterAll(() => server.close());

/** `token` null: no Authorization header. */
const get = (path: string, headers: Record<string, string> = {}, token: string | null = server.tokens.manager) =>
  server.call(`${V1}${path}`, { token: token ?? undefined, headers });

const fieldsOf = (res: { body: any }) => (res.body.error.details as { field: string }[]).map((d) => d.field);

async function itemCard(id: number) {
  return expectOk(await get(`/items/get.php?id=${id}`)).item;
}

describe('unknown inputs are refused, never ignored', () => {
  it('query parameters an operation does not define → 422 naming each, on every kind of read', async () => {
    const typo = await get('/items/get.php?id=1000&verbose=1&fields=all');
    expectError(typo, 422, 'validation_error');
    expect(fieldsOf(typo)).toEqual(['verbose', 'fields']);
    expect(typo.body.error.message).toMatch(/Unknown query parameters verbose, fields/);
    expect(fieldsOf(await get('/auth/me.php?debug=1'))).toEqual(['debug']);
    expect(fieldsOf(await get('/projects/list.php?limt=5'))).toEqual(['limt']);
    expect(fieldsOf(await get('/projects/search.php?id=1&query=tag'))).toEqual(['query']);
  });

  it('a misspelt JSON field (dedline) → 422 naming it, nothing applied; nested link objects too', async () => {
    const before = await itemCard(1001);
    const res = await server.call(`${V1}/items/planning.php`, {
      token: server.tokens.manager,
      method: 'PATCH',
      json: { id: 1001, dedline: '2026-12-01' },
    });
    expectError(res, 422, 'validation_error');
    expect(res.body.error.details).toEqual([{ field: 'dedline', message: expect.stringMatching(/not a field/) }]);
    const links = await server.call(`${V1}/items/links.php`, {
      token: server.tokens.manager,
      method: 'PUT',
      json: { id: 1001, document_links: [{ title: 'Plan', url: 'https://example.test/plan', colour: 'red' }] },
    });
    expectError(links, 422, 'validation_error');
    expect(fieldsOf(links)).toEqual(['document_links[0].colour']);
    expect(await itemCard(1001)).toEqual(before);
  });

  it('an unknown multipart field, text or file → 422 naming it, nothing stored', async () => {
    const png = await solid(20, 20, 'png');
    const before = (await itemCard(1000)).attachments.length;
    const extraText = await server.call(`${V1}/items/attachments.php`, {
      token: server.tokens.manager,
      method: 'POST',
      body: uploadForm({ item_id: '1000', caption: 'front door' }, [{ name: 'a.png', bytes: png }]),
    });
    expectError(extraText, 422, 'validation_error');
    expect(fieldsOf(extraText)).toEqual(['caption']);
    const form = uploadForm({ item_id: '1000' }, [{ name: 'a.png', bytes: png }]);
    form.append('photo', new Blob([new Uint8Array(png)]), 'b.png');
    const extraFile = await server.call(`${V1}/items/attachments.php`, { token: server.tokens.manager, method: 'POST', body: form });
    expectError(extraFile, 422, 'validation_error');
    expect(fieldsOf(extraFile)).toEqual(['photo']);
    expect((await itemCard(1000)).attachments).toHaveLength(before);
  });
});

describe('messages where integrators stumbled', () => {
  it('ids with leading zeros, repeated ids and offsets over the maximum say exactly what is wrong', async () => {
    const zero = await get('/items/get.php?id=01002');
    expectError(zero, 422, 'validation_error');
    expect(zero.body.error.message).toMatch(/without leading zeros/);
    const repeated = await get('/items/get.php?id=1000&id=1001');
    expectError(repeated, 422, 'validation_error');
    expect(repeated.body.error.details).toEqual([{ field: 'id', message: 'is repeated; give it once' }]);
    const offset = await get('/projects/list.php?offset=1000000000');
    expectError(offset, 422, 'validation_error');
    expect(offset.body.error.message).toContain('999999999');
    expectOk(await get('/projects/list.php?offset=999999999'));
  });

  it('raw non-ASCII bytes in the URL → 400 telling to percent-encode', async () => {
    const res = await rawRequest(port, {
      method: 'GET',
      target: `${V1}/projects/search.php?id=1&q=\u00c3\u00a4`,
      headers: [
        ['Host', 'localhost'],
        ['Authorization', `Bearer ${server.tokens.manager}`],
      ],
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body.toString()).error).toMatchObject({ code: 'bad_request', message: expect.stringMatching(/percent-encode/) });
    expectOk(await get(`/projects/search.php?id=1&q=${encodeURIComponent('ä')}`));
  });
});

describe('authentication headers', () => {
  it('every 401 carries WWW-Authenticate: Bearer realm="punchlist", with error="invalid_token" once a token was sent', async () => {
    const missing = await get('/auth/me.php', {}, null);
    expectError(missing, 401, 'unauthorized');
    // v1 names its protected resource metadata first (RFC 9728), as /mcp does.
    const metadata = `resource_metadata="${server.url}/.well-known/oauth-protected-resource/api/external/v1"`;
    expect(missing.headers.get('www-authenticate')).toBe(`Bearer ${metadata}, realm="punchlist"`);
    const created = await server.ctx.tokens.createToken({ userId: USERS.manager, name: 'to revoke', scopes: ['auth:me'], expiresAt: null });
    await server.ctx.tokens.revokeToken(created.id);
    for (const [token, code] of [
      ['plk_notatoken', 'token_invalid'],
      [created.token, 'token_revoked'],
    ] as const) {
      const res = await get('/auth/me.php', {}, token);
      expectError(res, 401, code);
      expect(res.headers.get('www-authenticate'), code).toBe(`Bearer ${metadata}, realm="punchlist", error="invalid_token"`);
    }
    const download = await server.call('/api/items/file.php?id=1', {});
    expect(download.status).toBe(401);
    expect(download.headers.get('www-authenticate')).toBe('Bearer realm="punchlist"');
  });

  it('two Authorization headers → 400 bad_request, even when both hold the same valid token', async () => {
    const bearer = `Bearer ${server.tokens.manager}`;
    for (const second of [bearer, 'Bearer plk_other']) {
      const res = await rawRequest(port, {
        method: 'GET',
        target: `${V1}/auth/me.php`,
        headers: [
          ['Host', 'localhost'],
          ['Authorization', bearer],
          ['Authorization', second],
        ],
      });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body.toString()).error).toMatchObject({
        code: 'bad_request',
        message: expect.stringMatching(/one Authorization header/),
      });
    }
  });
});

describe('CORS (default CORS_ORIGINS=*)', () => {
  const EXPOSED = [
    'X-Request-Id',
    'ETag',
    'RateLimit',
    'RateLimit-Policy',
    'Retry-After',
    'Punchlist-Token-Expiration',
    'Idempotent-Replayed',
  ];

  it('every v1 response allows any origin and exposes the headers clients read, never credentials', async () => {
    for (const res of [
      await get('/auth/me.php', { origin: 'https://panel.example' }),
      await get('/auth/me.php', {}, null),
      await get('/nope.php'),
    ]) {
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-expose-headers')?.split(', ')).toEqual(EXPOSED);
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });

  it('a preflight answers 204 without a token, with the methods of that path; OPTIONS without Access-Control-Request-Method stays 405', async () => {
    const preflight = (path: string, headers: Record<string, string>) => server.call(`${V1}${path}`, { method: 'OPTIONS', headers });
    const request = {
      origin: 'https://panel.example',
      'access-control-request-method': 'PATCH',
      'access-control-request-headers': 'authorization, content-type',
    };
    const status = await preflight('/items/status.php', request);
    expect(status.status).toBe(204);
    expect(status.headers.get('access-control-allow-methods')).toBe('PATCH');
    expect(status.headers.get('access-control-allow-headers')).toBe(
      'Authorization, Content-Type, Idempotency-Key, If-None-Match, X-Request-Id',
    );
    expect(status.headers.get('access-control-max-age')).toBe('600');
    expect(status.headers.get('access-control-allow-origin')).toBe('*');
    expect((await preflight('/items/get.php', request)).headers.get('access-control-allow-methods')).toBe('GET, HEAD');
    const plain = await preflight('/items/status.php', { origin: 'https://panel.example' });
    expectError(plain, 405, 'method_not_allowed');
    expectError(await preflight('/unknown.php', request), 404, 'not_found');
  });
});

describe('CORS_ORIGINS as a list, and empty', () => {
  it('a list allows only its origins (Vary: Origin); empty disables CORS and preflights stay 405', async () => {
    const listed = await startTestServer({ workspace: false, env: { CORS_ORIGINS: 'https://panel.example, https://crm.example' } });
    const disabled = await startTestServer({ workspace: false, env: { CORS_ORIGINS: '' } });
    try {
      const ask = (s: TestServer, origin: string, method = 'GET', extra: Record<string, string> = {}) =>
        s.call(`${V1}/openapi.json`, { method, headers: { origin, ...extra } });
      const allowed = await ask(listed, 'https://crm.example');
      expect(allowed.headers.get('access-control-allow-origin')).toBe('https://crm.example');
      expect(allowed.headers.get('vary')).toMatch(/Origin/);
      expect((await ask(listed, 'https://evil.example')).headers.get('access-control-allow-origin')).toBeNull();
      const off = await ask(disabled, 'https://panel.example');
      expect(off.headers.get('access-control-allow-origin')).toBeNull();
      expect((await ask(disabled, 'https://panel.example', 'OPTIONS', { 'access-control-request-method': 'GET' })).status).toBe(405);
    } finally {
      await listed.close();
      await disabled.close();
    }
  });
});

describe('secrets kept out of the database', () => {
  it('an Idempotency-Key is stored only as its SHA-256', async () => {
    const key = server.tokens.executor;
    expectOk(
      await server.call(`${V1}/comments/create.php`, {
        token: server.tokens.manager,
        method: 'POST',
        headers: { 'idempotency-key': key },
        json: { item_id: 1000, text: 'Keyed' },
      }),
      201,
    );
    const rows = await server.ctx.db.kysely.selectFrom('idempotency_keys').select('key').execute();
    expect(rows.map((r) => r.key)).toContain(createHash('sha256').update(key).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(key);
  });

  it('a token sent percent-encoded in the path, the query or a header is redacted in the audit record', async () => {
    const secret = server.tokens.observer;
    const encoded = [...secret].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join('');
    const res = await get(`/items/get.php?id=1000&note=${encoded}`, { 'user-agent': `bot ${encoded}` });
    expectError(res, 422, 'validation_error');
    await server.call(`${V1}/${encoded}`, { token: server.tokens.manager });
    await server.ctx.audit.flush();
    const records = await server.ctx.audit.list({ limit: 2 });
    const text = JSON.stringify(records);
    expect(text).not.toContain(encoded);
    expect(text).not.toContain(secret);
    expect(text).toContain('plk_[REDACTED]');
  });
});
