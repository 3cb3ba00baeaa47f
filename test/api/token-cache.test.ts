import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/shared/clock.js';
import { CACHE_TTL_MS } from '../../src/features/tokens/tokens.service.js';
import { createTokenCache } from '../../src/features/tokens/token-cache.js';
import { expectError, expectOk } from '../helpers/envelope.js';
import { makeToken, makeUser } from '../helpers/factories.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { USERS } from '../helpers/workspace.js';

/**
 * The token cache (docs/design.md §4): what this node revokes or deactivates is refused at once; a change
 * made elsewhere (another node, the CLI in another process, SQL) within CACHE_TTL_MS = 1 s.
 * The server's clock is moved by hand: the cache ages by it, and only by it (it stands still meanwhile, so a
 * slow machine cannot age an entry past a bound the test means to stay within).
 */
let base = Date.now();
let skewMs = 0;
const clock: Clock = { now: () => new Date(base + skewMs) };

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ clock });
});
afterAll(() => server.close());
beforeEach(() => {
  base = Date.now();
  skewMs = 0;
});

const ME = `${V1}/auth/me.php`;
const admin = { id: USERS.admin, role: 'admin' as const };
/** A new user with an auth:me token, already in the cache. */
async function freshUser() {
  const user = await makeUser(server);
  const { id: tokenId, token } = await makeToken(server, user, ['auth:me'], { name: 'cache' });
  // The first call puts the token in the cache.
  expectOk(await server.call(ME, { token }));
  return { userId: user.id, tokenId, token };
}

describe('token cache', () => {
  it('a revocation through this node is refused at once, though the token was cached', async () => {
    const { tokenId, token } = await freshUser();
    await server.ctx.tokens.revokeToken(tokenId);
    expectError(await server.call(ME, { token }), 401, 'token_revoked');
  });

  it('a user deactivated through the administration (ctx.usersAdmin) is refused at once, and back at once when reactivated', async () => {
    const { userId, token } = await freshUser();
    await server.ctx.usersAdmin.setUserActive(admin, userId, false);
    expectError(await server.call(ME, { token }), 401, 'token_revoked');
    await server.ctx.usersAdmin.setUserActive(admin, userId, true);
    expectOk(await server.call(ME, { token }));
  });

  it('a revocation made elsewhere (another node, the CLI, SQL) is refused within 1 s, not later', async () => {
    const { tokenId, token } = await freshUser();
    await server.ctx.db.kysely.updateTable('api_tokens').set({ revoked_at: new Date().toISOString() }).where('id', '=', tokenId).execute();
    // Within the bound the cached state may still be served (this is what the cache buys)…
    skewMs = CACHE_TTL_MS - 50;
    expectOk(await server.call(ME, { token }));
    // …and never beyond it.
    skewMs = CACHE_TTL_MS;
    expectError(await server.call(ME, { token }), 401, 'token_revoked');
  });

  it('a deactivation made elsewhere is refused within 1 s', async () => {
    const { userId, token } = await freshUser();
    await server.ctx.db.kysely.updateTable('users').set({ active: 0 }).where('id', '=', userId).execute();
    skewMs = CACHE_TTL_MS;
    expectError(await server.call(ME, { token }), 401, 'token_revoked');
  });

  it('expiry is checked on every request, cached or not', async () => {
    const user = await makeUser(server);
    const expiresAt = new Date(clock.now().getTime() + 500);
    const { token } = await makeToken(server, user, ['auth:me'], { name: 'short', expiresAt });
    expectOk(await server.call(ME, { token }));
    skewMs = 600; // past the expiry, still within the cache's second
    expectError(await server.call(ME, { token }), 401, 'token_expired');
  });

  it('last_used_at is written at most once a second per token, and at once from a new IP', async () => {
    const { tokenId, token } = await freshUser();
    const lastUsed = async () =>
      (
        await server.ctx.db.kysely
          .selectFrom('api_tokens')
          .select(['last_used_at', 'last_used_ip'])
          .where('id', '=', tokenId)
          .executeTakeFirstOrThrow()
      ).last_used_at;
    const first = await lastUsed();
    expect(first).not.toBeNull();
    skewMs = 500;
    expectOk(await server.call(ME, { token }));
    expect(await lastUsed()).toBe(first);
    skewMs = 1200;
    expectOk(await server.call(ME, { token }));
    expect(Date.parse((await lastUsed())!)).toBeGreaterThan(Date.parse(first!));
    await server.ctx.tokens.authenticate(token, '10.0.0.7');
    const row = await server.ctx.db.kysely
      .selectFrom('api_tokens')
      .select('last_used_ip')
      .where('id', '=', tokenId)
      .executeTakeFirstOrThrow();
    expect(row.last_used_ip).toBe('10.0.0.7');
  });
});

describe('createTokenCache', () => {
  const manual = () => {
    let now = 1_000_000;
    return { clock: { now: () => new Date(now) }, move: (ms: number) => (now += ms) };
  };
  const row = (id: number, user_id: number) => ({ id, user_id });

  it('serves an entry for less than its ttl, measured on the clock (also when the clock goes back)', () => {
    const { clock, move } = manual();
    const cache = createTokenCache(clock, { ttlMs: 1000 });
    cache.set('a', row(1, 1));
    move(999);
    expect(cache.get('a')).toEqual(row(1, 1));
    move(1);
    expect(cache.get('a')).toBeUndefined();
    cache.set('b', row(2, 1));
    move(-5000);
    expect(cache.get('b')).toBeUndefined();
  });

  it('evicts by token and by user', () => {
    const { clock } = manual();
    const cache = createTokenCache(clock);
    cache.set('a', row(1, 10));
    cache.set('b', row(2, 10));
    cache.set('c', row(3, 11));
    cache.evictToken(1);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([undefined, row(2, 10), row(3, 11)]);
    cache.evictUser(10);
    expect([cache.get('b'), cache.get('c')]).toEqual([undefined, row(3, 11)]);
  });

  it('stays bounded: a flood of distinct tokens drops the oldest entries', () => {
    const { clock } = manual();
    const cache = createTokenCache(clock, { maxEntries: 3 });
    for (let i = 1; i <= 5; i++) cache.set(`t${i}`, row(i, i));
    expect(cache.size).toBe(3);
    expect(cache.get('t1')).toBeUndefined();
    expect(cache.get('t5')).toEqual(row(5, 5));
  });
});
