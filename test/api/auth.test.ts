import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { Clock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { SCOPES, type Scope } from '../../src/domain/scopes.js';
import { generateToken, hashToken } from '../../src/domain/token-format.js';
import { importFixture } from '../../src/features/fixtures/import.service.js';
import { expectError, expectOk } from '../helpers/envelope.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { buildWorkspace, scopesExcept, USERS } from '../helpers/workspace.js';

/** Every read endpoint of v1 with a request that succeeds for the manager, and the scope it needs. */
const READS: { name: string; path: string; scope: Scope }[] = [
  { name: 'auth/me', path: `${V1}/auth/me.php`, scope: 'auth:me' },
  { name: 'projects/list', path: `${V1}/projects/list.php`, scope: 'projects:read' },
  { name: 'projects/get', path: `${V1}/projects/get.php?id=1`, scope: 'projects:read' },
  { name: 'projects/tree', path: `${V1}/projects/tree.php?id=1`, scope: 'projects:read' },
  { name: 'items/get', path: `${V1}/items/get.php?id=1000`, scope: 'items:read' },
];
const BY_ID = READS.filter((r) => r.path.includes('?id='));

// The server's clock runs `skewMs` ahead of real time: tests move it to expire tokens.
let skewMs = 0;
const clock: Clock = { now: () => new Date(Date.now() + skewMs) };

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ clock });
});
afterAll(() => server.close());

const withHeader = (authorization: string) => ({ headers: { authorization } });

/** A token row written directly, for states the service refuses to create. */
async function insertToken(
  userId: number,
  fields: { expires_at?: string | null; revoked_at?: string | null; scopes?: readonly Scope[] } = {},
) {
  const raw = generateToken();
  const row = await server.ctx.db.kysely
    .insertInto('api_tokens')
    .values({
      user_id: userId,
      name: 'inserted',
      token_hash: hashToken(raw),
      scopes: JSON.stringify(fields.scopes ?? SCOPES),
      created_at: new Date(Date.now() - 10 * 86_400_000).toISOString(),
      expires_at: fields.expires_at ?? null,
      revoked_at: fields.revoked_at ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: row.id, raw };
}

async function createToken(userId: number, scopes: readonly Scope[] = SCOPES, expiresAt: Date | null = null) {
  return server.ctx.tokens.createToken({ userId, name: 'test', scopes: [...scopes], expiresAt });
}

async function addUser(id: number, active = true) {
  const at = new Date().toISOString();
  await server.ctx.db.kysely
    .insertInto('users')
    .values({
      id,
      email: `user${id}@punchlist.test`,
      name: `User ${id}`,
      role: 'member',
      password_hash: null,
      active: active ? 1 : 0,
      created_at: at,
      updated_at: at,
    })
    .execute();
}

describe('routing comes before authentication', () => {
  it.each([
    `${V1}/nope.php`,
    `${V1}/auth/me`,
    `${V1}/auth/me.php/`,
    `${V1}/Auth/Me.php`,
    `${V1}/projects/list.php/extra`,
    `${V1}/`,
    '/api/external/v2/auth/me.php',
    '/api/nope',
  ])('unknown path %s → 404 not_found without a token', async (path) => {
    expectError(await server.call(path), 404, 'not_found');
    expectError(await server.call(path, withHeader('Bearer nonsense')), 404, 'not_found');
    expectError(await server.call(path, { method: 'POST' }), 404, 'not_found');
  });

  const wrongMethods = READS.flatMap((r) => ['POST', 'PUT', 'PATCH', 'DELETE'].map((method) => ({ ...r, method })));
  it.each(wrongMethods)('$method $name → 405 with Allow, whoever asks', async ({ path, method }) => {
    for (const init of [{}, withHeader('Bearer nonsense'), withHeader('Basic dXNlcjpwYXNz'), { token: server.tokens.outsider }]) {
      const res = await server.call(path, { method, ...init });
      expectError(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow')).toBe('GET, HEAD');
    }
  });

  it.each(READS)('405 on $name does not read the body first (no 413, 415 or 422)', async ({ path }) => {
    const bodies: [string, string][] = [
      ['text/plain', 'hello'],
      ['application/json', '{"broken"'],
      ['application/json', '[1, 2]'],
      ['application/json', JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) })],
    ];
    for (const [type, body] of bodies) {
      const res = await server.call(path, { method: 'POST', headers: { 'content-type': type }, body });
      expectError(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow')).toBe('GET, HEAD');
    }
  });
});

describe('authorization header', () => {
  const unauthorizedHeaders: [string, Record<string, string>][] = [
    ['missing', {}],
    ['empty', { authorization: '' }],
    ['Basic', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['Bearer with nothing', { authorization: 'Bearer' }],
    ['Bearer with spaces only', { authorization: 'Bearer    ' }],
  ];
  const cases = READS.flatMap((r) => unauthorizedHeaders.map(([what, headers]) => ({ ...r, what, headers })));
  it.each(cases)('$what on $name → 401 unauthorized', async ({ path, headers }) => {
    expectError(await server.call(path, { headers }), 401, 'unauthorized');
  });

  it.each(READS)('another scheme carrying a valid token on $name → 401 unauthorized', async ({ path }) => {
    const raw = server.tokens.manager;
    for (const authorization of [`Token ${raw}`, `Basic ${raw}`, `Bearer${raw}`, raw]) {
      expectError(await server.call(path, withHeader(authorization)), 401, 'unauthorized');
    }
  });

  it.each(READS)('the scheme is case-insensitive on $name', async ({ path }) => {
    for (const scheme of ['bearer', 'BEARER', 'BeArEr', 'Bearer']) {
      expectOk(await server.call(path, withHeader(`${scheme} ${server.tokens.manager}`)));
    }
  });
});

describe('token checks', () => {
  it.each(READS)('malformed, wrong checksum and unknown tokens on $name → 401 token_invalid', async ({ path }) => {
    const valid = server.tokens.manager;
    const lastChar = valid.at(-1) === 'a' ? 'b' : 'a';
    const invalid = [
      'abc',
      'plk_',
      valid.slice(0, -1) + lastChar, // checksum no longer matches
      valid.replace('plk_', 'PLK_'),
      valid.slice(0, 39),
      `${valid}x`,
      `${valid} extra`,
      generateToken(), // well-formed, but nobody's
    ];
    for (const raw of invalid) expectError(await server.call(path, { token: raw }), 401, 'token_invalid');
  });

  it('a revoked token → 401 token_revoked on every endpoint, immediately', async () => {
    const { id, token } = await createToken(USERS.manager);
    for (const { path } of READS) expectOk(await server.call(path, { token }));
    await server.ctx.tokens.revokeToken(id);
    for (const { path } of READS) expectError(await server.call(path, { token }), 401, 'token_revoked');
  });

  it("a deactivated user's token → 401 token_revoked on every endpoint", async () => {
    for (const { path } of READS) expectError(await server.call(path, { token: server.tokens.inactive }), 401, 'token_revoked');
  });

  it('deactivating a user through the administration stops their working token at once', async () => {
    await addUser(50);
    const { token } = await createToken(50, ['auth:me']);
    expectOk(await server.call(`${V1}/auth/me.php`, { token }));
    await server.ctx.usersAdmin.setUserActive({ id: USERS.admin, role: 'admin' }, 50, false);
    expectError(await server.call(`${V1}/auth/me.php`, { token }), 401, 'token_revoked');
  });

  it('a deactivation made elsewhere (another node, the database) stops the token within 1 s', async () => {
    await addUser(51);
    const { token } = await createToken(51, ['auth:me']);
    expectOk(await server.call(`${V1}/auth/me.php`, { token }));
    await server.ctx.db.kysely.updateTable('users').set({ active: 0 }).where('id', '=', 51).execute();
    try {
      // This node may serve its cached token state for at most 1 s (DESIGN.md §4).
      skewMs = 1000;
      expectError(await server.call(`${V1}/auth/me.php`, { token }), 401, 'token_revoked');
    } finally {
      skewMs = 0;
    }
  });

  it('an expired token (expires_at in the past) → 401 token_expired on every endpoint', async () => {
    const { raw } = await insertToken(USERS.manager, { expires_at: new Date(Date.now() - 60_000).toISOString() });
    for (const { path } of READS) expectError(await server.call(path, { token: raw }), 401, 'token_expired');
  });

  it('a token expires when the clock passes its expiry', async () => {
    const { token } = await createToken(USERS.manager, SCOPES, new Date(Date.now() + 3_600_000));
    try {
      skewMs = 3_600_000 - 60_000;
      for (const { path } of READS) expectOk(await server.call(path, { token }));
      skewMs = 3_600_000 + 60_000;
      for (const { path } of READS) expectError(await server.call(path, { token }), 401, 'token_expired');
    } finally {
      skewMs = 0;
    }
  });

  it('revoked wins over expired, and a deactivated user wins over expired', async () => {
    const past = new Date(Date.now() - 60_000).toISOString();
    const revokedAndExpired = await insertToken(USERS.manager, { expires_at: past, revoked_at: past });
    expectError(await server.call(`${V1}/auth/me.php`, { token: revokedAndExpired.raw }), 401, 'token_revoked');
    const inactiveAndExpired = await insertToken(USERS.inactive, { expires_at: past });
    expectError(await server.call(`${V1}/auth/me.php`, { token: inactiveAndExpired.raw }), 401, 'token_revoked');
  });

  it('token problems come before the scope, the input and visibility', async () => {
    const past = new Date(Date.now() - 60_000).toISOString();
    const expiredNoScope = await insertToken(USERS.outsider, { expires_at: past, scopes: ['auth:me'] });
    const revokedNoScope = await insertToken(USERS.outsider, { revoked_at: past, scopes: ['auth:me'] });
    for (const path of [`${V1}/items/get.php?id=abc`, `${V1}/items/get.php?id=4000`, `${V1}/projects/list.php?limit=0`]) {
      expectError(await server.call(path, { token: expiredNoScope.raw }), 401, 'token_expired');
      expectError(await server.call(path, { token: revokedNoScope.raw }), 401, 'token_revoked');
      expectError(await server.call(path, { token: generateToken() }), 401, 'token_invalid');
      expectError(await server.call(path), 401, 'unauthorized');
    }
  });
});

describe('scopes', () => {
  it.each(READS)('$name without "$scope" → 403 scope_missing', async ({ path, scope }) => {
    const { token, scopes } = await createToken(USERS.manager, scopesExcept(scope));
    expect(scopes).not.toContain(scope);
    expectError(await server.call(path, { token }), 403, 'scope_missing');
  });

  it.each(READS)('$name with "$scope" alone → 200', async ({ path, scope }) => {
    const { token } = await createToken(USERS.manager, [scope]);
    expectOk(await server.call(path, { token }));
  });

  it.each(BY_ID)('the scope of $name is checked before the input and visibility', async ({ path, scope }) => {
    const { token } = await createToken(USERS.outsider, scopesExcept(scope));
    const base = path.split('?')[0];
    for (const query of ['?id=abc', '?id=4000', '', '?id=1']) {
      expectError(await server.call(base + query, { token }), 403, 'scope_missing');
    }
  });

  it('projects:read does not open items/get, and items:read does not open projects', async () => {
    const projectsOnly = await createToken(USERS.manager, ['projects:read']);
    expectError(await server.call(`${V1}/items/get.php?id=1000`, { token: projectsOnly.token }), 403, 'scope_missing');
    expectError(await server.call(`${V1}/auth/me.php`, { token: projectsOnly.token }), 403, 'scope_missing');
    const itemsOnly = await createToken(USERS.manager, ['items:read']);
    expectError(await server.call(`${V1}/projects/get.php?id=1`, { token: itemsOnly.token }), 403, 'scope_missing');
  });
});

describe('query validation: 422 after the scope, before visibility', () => {
  const BAD_IDS = [
    ['abc', '?id=abc'],
    ['0', '?id=0'],
    ['-1', '?id=-1'],
    ['1.5', '?id=1.5'],
    ['01', '?id=01'],
    ['17 digits', '?id=12345678901234567'],
    ['empty', '?id='],
    ['missing', ''],
    ['missing (other field only)', '?item_id=1'],
    ['repeated', '?id=1&id=2'],
    ['exponent', '?id=1e3'],
    ['plus sign', '?id=%2B1'],
    ['space', '?id=%201'],
    ['hex', '?id=0x10'],
    ['object', '?id[a]=1'],
  ] as const;
  const cases = BY_ID.flatMap((r) => BAD_IDS.map(([what, query]) => ({ name: r.name, base: r.path.split('?')[0]!, what, query })));

  it.each(cases)('$name id $what → 422 validation_error naming id', async ({ base, query }) => {
    for (const token of [server.tokens.manager, server.tokens.outsider]) {
      const res = await server.call(base + query, { token });
      expectError(res, 422, 'validation_error');
      expect(res.body.error.message).toContain('id');
    }
  });

  it.each(BY_ID)('$name with a 16-digit id is valid input, then 404', async ({ path }) => {
    const base = path.split('?')[0];
    expectError(await server.call(`${base}?id=9999999999999999`, { token: server.tokens.admin }), 404, 'not_found');
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=201', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=', 'limit'],
    ['limit=1&limit=2', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=abc', 'offset'],
    ['offset=1.5', 'offset'],
    ['offset=', 'offset'],
    ['archived=yes', 'archived'],
    ['archived=2', 'archived'],
    ['archived=', 'archived'],
    ['archived=none', 'archived'],
    ['archived=true&archived=false', 'archived'],
  ])('projects/list?%s → 422 validation_error naming %s', async (query, field) => {
    for (const token of [server.tokens.manager, server.tokens.outsider]) {
      const res = await server.call(`${V1}/projects/list.php?${query}`, { token });
      expectError(res, 422, 'validation_error');
      expect(res.body.error.message).toContain(field);
    }
  });

  it.each([
    'limit=1',
    'limit=200',
    'offset=0',
    'offset=1000',
    'archived=false',
    'archived=0',
    'archived=true',
    'archived=1',
    'archived=all',
  ])('projects/list?%s is valid', async (query) => {
    expectOk(await server.call(`${V1}/projects/list.php?${query}`, { token: server.tokens.manager }));
  });
});

describe('token bookkeeping', () => {
  it('sets last_used_at and last_used_ip on use', async () => {
    const { id, token } = await createToken(USERS.observer, ['auth:me']);
    const before = await server.ctx.db.kysely
      .selectFrom('api_tokens')
      .select(['last_used_at', 'last_used_ip'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(before).toEqual({ last_used_at: null, last_used_ip: null });
    const started = Date.now();
    expectOk(await server.call(`${V1}/auth/me.php`, { token }));
    const after = await server.ctx.db.kysely
      .selectFrom('api_tokens')
      .select(['last_used_at', 'last_used_ip'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(after.last_used_ip).toBe('127.0.0.1');
    expect(after.last_used_at).not.toBeNull();
    expect(Date.parse(after.last_used_at!)).toBeGreaterThanOrEqual(started - 1000);
    expect(Date.parse(after.last_used_at!)).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('shows the token identity on auth/me', async () => {
    const { id, token } = await createToken(USERS.observer, ['auth:me', 'items:read'], new Date(Date.now() + 86_400_000));
    const data = expectOk(await server.call(`${V1}/auth/me.php`, { token }));
    expect(data.token).toMatchObject({ id, label: 'test', scopes: ['auth:me', 'items:read'] });
    expect(data.user).toEqual({ id: USERS.observer, name: 'Observer', role: 'member' });
  });
});

describe('the raw token is never stored or logged', () => {
  it('appears neither in the audit table, the database files nor the log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'punchlist-log-test-'));
    const log: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        log.push(String(chunk));
        done();
      },
    });
    const config = loadConfig({
      DATABASE_URL: `sqlite:${join(dir, 'punchlist.db')}`,
      STORAGE_URL: `file:${join(dir, 'storage')}`,
      DATA_DIR: dir,
      PORT: '0',
      SESSION_SECRET: 'test-secret',
    });
    const ctx = await createContext(config);
    const workspace = buildWorkspace();
    await importFixture(ctx.db.kysely, ctx.db.dialect, workspace.fixture, ctx.clock);
    const app = await buildApp(ctx, { logger: { level: 'trace', stream } });
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address();
      const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      const created = await ctx.tokens.createToken({ userId: USERS.manager, name: 'secret', scopes: ['auth:me'], expiresAt: null });
      const unknown = generateToken();
      const raws = [workspace.tokens.manager, workspace.tokens.inactive, created.token, unknown];
      const get = (path: string, authorization: string) => fetch(url + path, { headers: { authorization } }).then((r) => r.text());
      for (const raw of raws) {
        for (const { path } of READS) await get(path, `Bearer ${raw}`);
        await get(`${V1}/nope.php`, `Bearer ${raw}`);
        await get(`${V1}/items/get.php?id=abc`, `Bearer ${raw}`);
      }
      await ctx.tokens.revokeToken(created.id);
      await get(`${V1}/auth/me.php`, `Bearer ${created.token}`);

      const sent = raws.length * (READS.length + 2) + 1;
      let audit = await ctx.db.kysely.selectFrom('audit_log').selectAll().execute();
      // Records are written as responses leave: wait for the last ones.
      for (let i = 0; i < 100 && audit.length < sent; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        audit = await ctx.db.kysely.selectFrom('audit_log').selectAll().execute();
      }
      expect(audit).toHaveLength(sent);
      const auditText = JSON.stringify(audit);
      const logText = log.join('');
      expect(logText.length).toBeGreaterThan(0);
      expect(logText).toContain('/api/external/v1/auth/me.php'); // the log does see the requests
      const files = readdirSync(dir).filter((f) => f.startsWith('punchlist.db'));
      const dbBytes = files.map((f) => readFileSync(join(dir, f)).toString('latin1')).join('');
      expect(dbBytes).toContain(hashToken(created.token)); // the scan does see the stored hash
      for (const raw of raws) {
        expect(auditText).not.toContain(raw);
        expect(logText).not.toContain(raw);
        expect(dbBytes).not.toContain(raw);
        // Nor its secret part alone.
        expect(logText).not.toContain(raw.slice(4, 34));
        expect(dbBytes).not.toContain(raw.slice(4, 34));
      }
    } finally {
      await app.close();
      await ctx.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
