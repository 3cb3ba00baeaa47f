import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/shared/clock.js';
import { SCOPES, type Scope } from '../../src/domain/scopes.js';
import { generateToken, hashToken } from '../../src/domain/token-format.js';
import { expectError, expectOk } from '../helpers/envelope.js';
import { makeToken, makeUser } from '../helpers/factories.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { USERS } from '../helpers/workspace.js';
import { READS } from './auth-reads.js';

/** Bearer authentication of v1: routing first, the Authorization header, then the token's state (scopes: auth-scopes.test.ts). */

// The server's clock runs `skewMs` ahead of real time: tests move it to expire tokens.
let skewMs = 0;
const clock: Clock = { now: () => new Date(Date.now() + skewMs) };

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ clock });
});
afterAll(() => server.close());

const withHeader = (authorization: string) => ({ headers: { authorization } });

/** A token row written directly: the service refuses a past expiry, so an already-expired row is a raw database state. */
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

/** A token of the user through the tokens service, named 'test'. */
const createToken = (userId: number, scopes: readonly Scope[] = SCOPES, expiresAt: Date | null = null) =>
  makeToken(server, { id: userId }, scopes, { name: 'test', expiresAt });

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
    const user = await makeUser(server);
    const { token } = await createToken(user.id, ['auth:me']);
    expectOk(await server.call(`${V1}/auth/me.php`, { token }));
    await server.ctx.usersAdmin.setUserActive({ id: USERS.admin, role: 'admin' }, user.id, false);
    expectError(await server.call(`${V1}/auth/me.php`, { token }), 401, 'token_revoked');
  });

  it('a deactivation made elsewhere (another node, the database) stops the token within 1 s', async () => {
    const user = await makeUser(server);
    const { token } = await createToken(user.id, ['auth:me']);
    expectOk(await server.call(`${V1}/auth/me.php`, { token }));
    await server.ctx.db.kysely.updateTable('users').set({ active: 0 }).where('id', '=', user.id).execute();
    try {
      // This node may serve its cached token state for at most 1 s (docs/design.md §4).
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
