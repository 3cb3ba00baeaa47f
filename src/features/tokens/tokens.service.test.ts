import { describe, expect, it } from 'vitest';
import { makeToken, makeUser, useTestContext } from '../../../test/helpers/factories.js';
import { hashToken, isWellFormedToken } from '../../domain/token-format.js';
import { CACHE_TTL_MS } from './tokens.service.js';

/** API tokens through the service, on both dialects, with the test clock for expiry and the cache (docs/design.md §4). */
const t = useTestContext();

const HOUR = 3_600_000;
const tokenRow = (id: number) => t.ctx.db.kysely.selectFrom('api_tokens').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('tokens.createToken', () => {
  it('returns the raw token once and stores only its hash, with the scopes deduplicated', async () => {
    const user = await makeUser(t);
    const expiresAt = new Date(t.clock.now().getTime() + HOUR);
    const created = await t.ctx.tokens.createToken({
      userId: user.id,
      name: '  CI  ',
      scopes: ['items:read', 'auth:me', 'items:read'],
      expiresAt,
    });
    expect(created).toEqual({
      id: expect.any(Number),
      token: expect.any(String),
      expires_at: expiresAt.toISOString(),
      scopes: ['items:read', 'auth:me'],
      project_ids: null,
    });
    expect(isWellFormedToken(created.token)).toBe(true);
    const row = await tokenRow(created.id);
    expect(row).toMatchObject({ user_id: user.id, name: 'CI', token_hash: hashToken(created.token), revoked_at: null });
    expect(JSON.stringify(row)).not.toContain(created.token);
    expect(await t.ctx.tokens.listTokens(user.id)).toEqual([
      expect.objectContaining({ id: created.id, name: 'CI', scopes: ['items:read', 'auth:me'], state: 'active', last_used_at: null }),
    ]);
  });

  it('refuses an empty or too long name, no scope, an unknown scope, an expiry not in the future (422 naming the field)', async () => {
    const user = await makeUser(t);
    const base = { userId: user.id, name: 'n', scopes: ['auth:me'], expiresAt: null };
    const cases = [
      [{ ...base, name: '   ' }, 'name'],
      [{ ...base, name: 'x'.repeat(201) }, 'name'],
      [{ ...base, name: '🔑'.repeat(201) }, 'name'],
      [{ ...base, name: 'a\u0000b' }, 'name'],
      [{ ...base, scopes: [] }, 'scopes'],
      [{ ...base, scopes: ['auth:me', 'admin'] }, 'scopes'],
      [{ ...base, expiresAt: t.clock.now() }, 'expires_at'],
      [{ ...base, expiresAt: new Date(t.clock.now().getTime() - 1) }, 'expires_at'],
    ] as const;
    for (const [input, field] of cases) {
      await expect(t.ctx.tokens.createToken({ ...input, scopes: [...input.scopes] })).rejects.toMatchObject({
        status: 422,
        details: [{ field }],
      });
    }
    expect(await t.ctx.tokens.listTokens(user.id)).toEqual([]);
  });

  it('counts the name in characters (code points), not UTF-16 units', async () => {
    const user = await makeUser(t);
    const name = '🔑'.repeat(200);
    await t.ctx.tokens.createToken({ userId: user.id, name, scopes: ['auth:me'], expiresAt: null });
    expect((await t.ctx.tokens.listTokens(user.id)).map((token) => token.name)).toEqual([name]);
  });
});

describe('tokens.authenticate', () => {
  it('resolves a token to its user and scopes', async () => {
    const user = await makeUser(t, { name: 'Ann Token' });
    const { id, token } = await makeToken(t, user, ['auth:me', 'items:read'], { name: 'reader' });
    expect(await t.ctx.tokens.authenticate(token, '192.0.2.1')).toEqual({
      user: { id: user.id, name: 'Ann Token', email: user.email, role: 'member', projectIds: null },
      token: { id, name: 'reader', scopes: ['auth:me', 'items:read'], expires_at: null, project_ids: null },
    });
  });

  it('answers token_invalid for a malformed token, a bad checksum and a well-formed unknown one', async () => {
    const { token } = await makeToken(t, await makeUser(t), ['auth:me']);
    const badChecksum = token.slice(0, -1) + (token.endsWith('0') ? '1' : '0');
    const unknown = (await makeToken(t, await makeUser(t), ['auth:me'])).token;
    await t.ctx.db.kysely.deleteFrom('api_tokens').where('token_hash', '=', hashToken(unknown)).execute();
    for (const raw of ['', 'plk_short', `${token}x`, badChecksum, unknown]) {
      await expect(t.ctx.tokens.authenticate(raw, '192.0.2.1')).rejects.toMatchObject({ status: 401, code: 'token_invalid' });
    }
  });

  it('expires a token at its expiry time by the clock: token_expired, and listed as expired', async () => {
    const user = await makeUser(t);
    const expiresAt = new Date(t.clock.now().getTime() + HOUR);
    const { id, token } = await makeToken(t, user, ['auth:me'], { expiresAt });
    t.clock.set(new Date(expiresAt.getTime() - 1));
    await expect(t.ctx.tokens.authenticate(token, '192.0.2.1')).resolves.toMatchObject({ token: { id } });
    t.clock.set(expiresAt);
    await expect(t.ctx.tokens.authenticate(token, '192.0.2.1')).rejects.toMatchObject({
      status: 401,
      code: 'token_expired',
      owner: { tokenId: id, userId: user.id },
    });
    expect((await t.ctx.tokens.listTokens(user.id))[0]!.state).toBe('expired');
  });

  it('refuses a revoked token at once on this node (token_revoked), though it was cached', async () => {
    const user = await makeUser(t);
    const { id, token } = await makeToken(t, user, ['auth:me']);
    await t.ctx.tokens.authenticate(token, '192.0.2.1');
    await t.ctx.tokens.revokeToken(id, { ownerId: user.id });
    await expect(t.ctx.tokens.authenticate(token, '192.0.2.1')).rejects.toMatchObject({
      status: 401,
      code: 'token_revoked',
      owner: { tokenId: id, userId: user.id },
    });
    expect((await t.ctx.tokens.listTokens(user.id))[0]).toMatchObject({ state: 'revoked', revoked_at: t.clock.now().toISOString() });
  });

  it("refuses the tokens of a deactivated user: at once through the admin service, within the cache's TTL otherwise", async () => {
    const viaAdmin = await makeUser(t);
    const first = await makeToken(t, viaAdmin, ['auth:me']);
    await t.ctx.tokens.authenticate(first.token, '192.0.2.1');
    await t.ctx.usersAdmin.setUserActive(t.admin, viaAdmin.id, false);
    await expect(t.ctx.tokens.authenticate(first.token, '192.0.2.1')).rejects.toMatchObject({ code: 'token_revoked' });

    // Deactivated behind this node's back (another node): the cached state serves for less than CACHE_TTL_MS.
    const elsewhere = await makeUser(t);
    const second = await makeToken(t, elsewhere, ['auth:me']);
    await t.ctx.tokens.authenticate(second.token, '192.0.2.1');
    await t.ctx.users.setActive(elsewhere.id, false);
    t.clock.advance(CACHE_TTL_MS - 1);
    await expect(t.ctx.tokens.authenticate(second.token, '192.0.2.1')).resolves.toBeDefined();
    t.clock.advance(1);
    await expect(t.ctx.tokens.authenticate(second.token, '192.0.2.1')).rejects.toMatchObject({ code: 'token_revoked' });
    // Reactivated: the tokens work again (deactivation is not revocation).
    await t.ctx.usersAdmin.setUserActive(t.admin, viaAdmin.id, true);
    await expect(t.ctx.tokens.authenticate(first.token, '192.0.2.1')).resolves.toBeDefined();
  });

  it('records the last use at most once a second per token, and at once from a new address', async () => {
    const user = await makeUser(t);
    const { id, token } = await makeToken(t, user, ['auth:me']);
    const start = t.clock.now().toISOString();
    await t.ctx.tokens.authenticate(token, '192.0.2.1');
    expect(await tokenRow(id)).toMatchObject({ last_used_at: start, last_used_ip: '192.0.2.1' });
    t.clock.advance(500);
    await t.ctx.tokens.authenticate(token, '192.0.2.1');
    expect((await tokenRow(id)).last_used_at).toBe(start);
    await t.ctx.tokens.authenticate(token, '198.51.100.7');
    expect(await tokenRow(id)).toMatchObject({ last_used_at: t.clock.now().toISOString(), last_used_ip: '198.51.100.7' });
    t.clock.advance(1000);
    await t.ctx.tokens.authenticate(token, '198.51.100.7');
    expect((await tokenRow(id)).last_used_at).toBe(t.clock.now().toISOString());
  });
});

describe('tokens.revokeToken', () => {
  it("revokes only the owner's token (another user's or an unknown id is 404), and a second revocation keeps the first time", async () => {
    const owner = await makeUser(t);
    const other = await makeUser(t);
    const { id, token } = await makeToken(t, owner, ['auth:me']);
    await expect(t.ctx.tokens.revokeToken(id, { ownerId: other.id })).rejects.toMatchObject({ status: 404, code: 'not_found' });
    await expect(t.ctx.tokens.revokeToken(987_654_321)).rejects.toMatchObject({ status: 404 });
    await expect(t.ctx.tokens.authenticate(token, '192.0.2.1')).resolves.toBeDefined();

    await t.ctx.tokens.revokeToken(id, { ownerId: owner.id });
    const revokedAt = (await tokenRow(id)).revoked_at;
    expect(revokedAt).toBe(t.clock.now().toISOString());
    t.clock.advance(HOUR);
    await t.ctx.tokens.revokeToken(id);
    expect((await tokenRow(id)).revoked_at).toBe(revokedAt);
  });

  it("lists a user's tokens newest first, each with its state, and nobody else's", async () => {
    const user = await makeUser(t);
    const a = await makeToken(t, user, ['auth:me']);
    const b = await makeToken(t, user, ['items:read'], { expiresAt: new Date(t.clock.now().getTime() + HOUR) });
    const c = await makeToken(t, user, ['projects:read']);
    await makeToken(t, await makeUser(t), ['auth:me']);
    await t.ctx.tokens.revokeToken(c.id);
    t.clock.advance(HOUR);
    expect((await t.ctx.tokens.listTokens(user.id)).map((v) => [v.id, v.state])).toEqual([
      [c.id, 'revoked'],
      [b.id, 'expired'],
      [a.id, 'active'],
    ]);
  });
});
