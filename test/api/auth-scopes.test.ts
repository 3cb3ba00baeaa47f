import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/shared/config.js';
import { createContext } from '../../src/composition/context.js';
import { SCOPES, type Scope } from '../../src/domain/scopes.js';
import { generateToken, hashToken } from '../../src/domain/token-format.js';
import { importFixture } from '../../src/features/fixtures/import.service.js';
import { expectError, expectOk } from '../helpers/envelope.js';
import { makeToken } from '../helpers/factories.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { buildWorkspace, scopesExcept, USERS } from '../helpers/workspace.js';
import { BY_ID, READS } from './auth-reads.js';

/** After authentication: scopes, query validation, the token's bookkeeping, and the raw token kept out of every record. */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** A token of the user through the tokens service, named 'test'. */
const createToken = (userId: number, scopes: readonly Scope[] = SCOPES, expiresAt: Date | null = null) =>
  makeToken(server, { id: userId }, scopes, { name: 'test', expiresAt });

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
