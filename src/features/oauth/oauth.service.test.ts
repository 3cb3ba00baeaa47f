import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { USERS } from '../../../test/helpers/workspace.js';
import { OAuthError, redirectUriMatches, redirectUriProblem, s256, sha256 } from './oauth-protocol.js';
import { AuthorizationError, CODE_TTL_MS, type OAuthService } from './oauth.service.js';

/**
 * The OAuth use cases on a real database (both dialects), written from the RFCs: RFC 7591 registration,
 * RFC 6749 §4.1 + RFC 7636 (S256 only) authorization code, OAuth 2.1 §4.3.1 refresh rotation with reuse
 * detection, RFC 7009 revocation, RFC 8252 §7.3 loopback redirect URIs.
 */
let server: TestServer;
let oauth: OAuthService;
let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };
const VERIFIER = 'v'.repeat(20) + '-._~' + 'A1b2C3d4E5f6G7h8i9J0kLmN'; // 48 unreserved characters
const REDIRECT = 'http://127.0.0.1:43210/callback';

beforeAll(async () => {
  server = await startTestServer({ clock });
  oauth = server.ctx.oauth;
});
afterAll(() => server.close());

async function rejection(promise: Promise<unknown>): Promise<OAuthError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OAuthError);
  return error as OAuthError;
}

async function register(extra: Record<string, unknown> = {}) {
  return oauth.registerClient({ client_name: 'Test agent', redirect_uris: [REDIRECT, 'https://agent.example/cb'], ...extra });
}

/** A client, a consent with `scopes`, and the code it gets. */
async function authorize(scopes = ['auth:me', 'projects:read', 'items:read'], options: { expiresAt?: Date | null; userId?: number } = {}) {
  const client = await register();
  const request = await oauth.checkAuthorization({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    code_challenge: s256(VERIFIER),
    code_challenge_method: 'S256',
    state: 'xyz',
    scope: 'auth:me projects:read items:read',
  });
  const location = new URL(await oauth.approve(options.userId ?? USERS.manager, request, { scopes, expiresAt: options.expiresAt ?? null }));
  expect(location.searchParams.get('state')).toBe('xyz');
  expect(location.searchParams.get('iss')).toBe(server.url);
  return { client, code: location.searchParams.get('code')! };
}

const exchange = (clientId: string, code: string, extra: Record<string, string> = {}) =>
  oauth.token({ grant_type: 'authorization_code', client_id: clientId, code, code_verifier: VERIFIER, redirect_uri: REDIRECT, ...extra });
const refresh = (clientId: string, refreshToken: string, extra: Record<string, string> = {}) =>
  oauth.token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken, ...extra });
const authenticate = (token: string) => server.ctx.tokens.authenticate(token, '127.0.0.1');

describe('redirect URIs (RFC 8252, MCP authorization)', () => {
  it('accepts https and http loopback, refuses other http, fragments, credentials and other schemes', () => {
    for (const ok of ['https://app.example/cb', 'http://127.0.0.1/cb', 'http://localhost:8080/cb', 'http://[::1]:9/cb?x=1'])
      expect(redirectUriProblem(ok), ok).toBeNull();
    for (const bad of [
      'http://app.example/cb',
      'https://app.example/cb#frag',
      'https://u:p@app.example/cb',
      'javascript:alert(1)',
      'myapp://cb',
      '/relative',
      'http://127.0.0.1.evil.example/cb',
    ]) {
      expect(redirectUriProblem(bad), bad).not.toBeNull();
    }
  });

  it('matches exactly, ignoring only the port of a loopback URI', () => {
    const registered = ['http://127.0.0.1/callback', 'https://app.example/cb'];
    expect(redirectUriMatches(registered, 'http://127.0.0.1:5555/callback')).toBe(true);
    expect(redirectUriMatches(registered, 'https://app.example/cb')).toBe(true);
    for (const no of [
      'https://app.example:444/cb',
      'https://app.example/cb/',
      'https://app.example/cb?x=1',
      'http://127.0.0.1:5555/callback/other',
      'http://localhost:5555/callback',
      'https://app.example/CB',
    ]) {
      expect(redirectUriMatches(registered, no), no).toBe(false);
    }
  });
});

describe('dynamic client registration (RFC 7591)', () => {
  it('registers a public client and answers its metadata', async () => {
    const client = await register({
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'auth:me items:read',
      client_uri: 'https://agent.example',
    });
    expect(client).toMatchObject({
      client_name: 'Test agent',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      scope: 'auth:me items:read',
    });
    expect(client.client_id).toMatch(/^plc_[A-Za-z0-9_-]{43}$/);
    expect(client).not.toHaveProperty('client_secret');
  });

  it('refuses bad metadata with invalid_redirect_uri or invalid_client_metadata', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ redirect_uris: ['http://agent.example/cb'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: ['https://agent.example/cb#x'] }, 'invalid_redirect_uri'],
      [{ redirect_uris: [] }, 'invalid_redirect_uri'],
      [{ redirect_uris: 'https://agent.example/cb' }, 'invalid_redirect_uri'],
      [{ redirect_uris: [REDIRECT], scope: 'auth:me admin' }, 'invalid_client_metadata'],
      [{ redirect_uris: [REDIRECT], grant_types: ['client_credentials'] }, 'invalid_client_metadata'],
      [{ redirect_uris: [REDIRECT], response_types: ['token'] }, 'invalid_client_metadata'],
      [{ redirect_uris: [REDIRECT], client_name: 'x'.repeat(101) }, 'invalid_client_metadata'],
      [{ redirect_uris: [REDIRECT], client_uri: 'javascript:alert(1)' }, 'invalid_client_metadata'],
    ];
    for (const [body, code] of cases) expect((await rejection(oauth.registerClient(body))).error, JSON.stringify(body)).toBe(code);
    expect((await rejection(oauth.registerClient([]))).error).toBe('invalid_client_metadata');
  });
});

describe('authorization requests (RFC 6749 §4.1.1, RFC 7636)', () => {
  const base = (clientId: string) => ({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: s256(VERIFIER),
    code_challenge_method: 'S256',
    state: 's1',
  });
  const refused = async (params: Record<string, string | undefined>) => {
    const error = await oauth.checkAuthorization(params).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AuthorizationError);
    return error as AuthorizationError;
  };

  it('never offers a way back for an unknown client or an unregistered redirect URI', async () => {
    const client = await register();
    expect(await refused({ ...base('plc_unknown') })).toMatchObject({ error: 'invalid_client', returnTo: null });
    expect(await refused({ ...base(client.client_id), redirect_uri: 'https://evil.example/cb' })).toMatchObject({ returnTo: null });
    expect(await refused({ ...base(client.client_id), redirect_uri: 'http://127.0.0.1:43210/other' })).toMatchObject({ returnTo: null });
    expect(await refused({ ...base(client.client_id), redirect_uri: undefined })).toMatchObject({ returnTo: null });
  });

  it('refuses plain PKCE, a missing challenge, other response types and unknown scopes, with the error for the client', async () => {
    const client = await register();
    const cases: [Record<string, string | undefined>, string][] = [
      [{ code_challenge_method: 'plain', code_challenge: VERIFIER }, 'invalid_request'],
      [{ code_challenge_method: undefined }, 'invalid_request'],
      [{ code_challenge: undefined }, 'invalid_request'],
      [{ code_challenge: 'short' }, 'invalid_request'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [{ scope: 'auth:me openid' }, 'invalid_scope'],
      [{ resource: 'https://elsewhere.example/mcp' }, 'invalid_target'],
    ];
    for (const [change, code] of cases) {
      const error = await refused({ ...base(client.client_id), ...change });
      expect(error.error, JSON.stringify(change)).toBe(code);
      const back = new URL(error.returnTo!);
      expect(back.origin + back.pathname).toBe(REDIRECT);
      expect(back.searchParams.get('error')).toBe(code);
      expect(back.searchParams.get('state')).toBe('s1');
    }
  });

  it('asks for every scope when none is named, and for the registered scope when the client registered one', async () => {
    const client = await register();
    expect((await oauth.checkAuthorization({ ...base(client.client_id) })).scopes).toHaveLength(10);
    const narrow = await register({ scope: 'items:read auth:me' });
    expect((await oauth.checkAuthorization({ ...base(narrow.client_id) })).scopes).toEqual(['auth:me', 'items:read']);
    expect((await oauth.checkAuthorization({ ...base(narrow.client_id), resource: `${server.url}/mcp` })).resource).toBe(
      `${server.url}/mcp`,
    );
  });

  it('denies with access_denied and the state', async () => {
    const client = await register();
    const location = new URL(oauth.deny(await oauth.checkAuthorization(base(client.client_id))));
    expect(Object.fromEntries(location.searchParams)).toMatchObject({ error: 'access_denied', state: 's1', iss: server.url });
  });
});

describe('authorization code exchange', () => {
  it('issues an ordinary API token named after the client, with the scopes kept on the consent page', async () => {
    const { client, code } = await authorize(['auth:me', 'items:read']);
    const tokens = await exchange(client.client_id, code);
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'auth:me items:read', expires_in: 3600 });
    expect(tokens.access_token).toMatch(/^plk_[0-9A-Za-z]{36}$/);
    expect(tokens.refresh_token).toMatch(/^plr_/);
    const principal = await authenticate(tokens.access_token);
    expect(principal.user.id).toBe(USERS.manager);
    expect(principal.token).toMatchObject({ name: 'OAuth: Test agent', scopes: ['auth:me', 'items:read'] });
    // Stored hashed only.
    const rows = await server.ctx.db.kysely.selectFrom('oauth_refresh_tokens').select('token_hash').execute();
    expect(rows.some((r) => r.token_hash === tokens.refresh_token)).toBe(false);
    expect(rows.some((r) => r.token_hash === sha256(tokens.refresh_token))).toBe(true);
    const codes = await server.ctx.db.kysely.selectFrom('oauth_codes').select('code_hash').execute();
    expect(codes.some((r) => r.code_hash === sha256(code))).toBe(true);
    expect(JSON.stringify(codes)).not.toContain(code);
  });

  it('refuses a wrong verifier, a wrong redirect URI, another client, a malformed verifier, and keeps the code for the right request', async () => {
    const { client, code } = await authorize();
    const other = await register();
    expect((await rejection(exchange(client.client_id, code, { code_verifier: 'w'.repeat(48) }))).error).toBe('invalid_grant');
    expect((await rejection(exchange(client.client_id, code, { redirect_uri: 'https://agent.example/cb' }))).error).toBe('invalid_grant');
    expect((await rejection(exchange(other.client_id, code))).error).toBe('invalid_grant');
    expect((await rejection(exchange(client.client_id, code, { code_verifier: 'short' }))).error).toBe('invalid_request');
    expect((await rejection(exchange('plc_unknown', code))).status).toBe(401);
    expect((await rejection(exchange(client.client_id, code, { resource: 'https://elsewhere.example/' }))).error).toBe('invalid_target');
    expect((await rejection(oauth.token({ grant_type: 'password', client_id: client.client_id }))).error).toBe('unsupported_grant_type');
    expect((await exchange(client.client_id, code)).access_token).toBeTruthy();
  });

  it('uses a code once: a second use revokes what the first one issued', async () => {
    const { client, code } = await authorize();
    const first = await exchange(client.client_id, code);
    expect((await rejection(exchange(client.client_id, code))).error).toBe('invalid_grant');
    await expect(authenticate(first.access_token)).rejects.toMatchObject({ code: 'token_revoked' });
    expect((await rejection(refresh(client.client_id, first.refresh_token))).error).toBe('invalid_grant');
  });

  it('lets a code expire after 60 seconds', async () => {
    const { client, code } = await authorize();
    offsetMs += CODE_TTL_MS + 1000;
    try {
      expect((await rejection(exchange(client.client_id, code))).description).toMatch(/expired/);
    } finally {
      offsetMs -= CODE_TTL_MS + 1000;
    }
  });

  it('caps the access token at the expiry chosen on the consent page', async () => {
    const { client, code } = await authorize(undefined, { expiresAt: new Date(clock.now().getTime() + 600_000) });
    const tokens = await exchange(client.client_id, code);
    expect(tokens.expires_in).toBeLessThanOrEqual(600);
    expect(tokens.expires_in).toBeGreaterThan(590);
  });
});

describe('refresh tokens (rotation, reuse detection)', () => {
  it('rotates: a refresh gives a new access token and refresh token; the old access token stops', async () => {
    const { client, code } = await authorize();
    const first = await exchange(client.client_id, code);
    const second = await refresh(client.client_id, first.refresh_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);
    await expect(authenticate(first.access_token)).rejects.toMatchObject({ code: 'token_invalid' });
    const principal = await authenticate(second.access_token);
    expect(principal.token.name).toBe('OAuth: Test agent');
    // One token row per grant: the Profile shows one row for the connection.
    expect((await server.ctx.tokens.listTokens(USERS.manager)).filter((t) => t.id === principal.token.id)).toHaveLength(1);
    const third = await refresh(client.client_id, second.refresh_token, { scope: 'auth:me' });
    expect(third.scope).toBe('auth:me');
    expect((await authenticate(third.access_token)).token.scopes).toEqual(['auth:me']);
    expect((await rejection(refresh(client.client_id, third.refresh_token, { scope: 'items:status.write' }))).error).toBe('invalid_scope');
  });

  it('ends the whole grant when a refresh token is used twice', async () => {
    const { client, code } = await authorize();
    const first = await exchange(client.client_id, code);
    const second = await refresh(client.client_id, first.refresh_token);
    expect((await rejection(refresh(client.client_id, first.refresh_token))).error).toBe('invalid_grant');
    await expect(authenticate(second.access_token)).rejects.toMatchObject({ code: 'token_revoked' });
    expect((await rejection(refresh(client.client_id, second.refresh_token))).error).toBe('invalid_grant');
    const grant = await server.ctx.db.kysely
      .selectFrom('oauth_grants')
      .select(['revoked_at', 'revoked_reason'])
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(grant.revoked_reason).toBe('refresh_token_reused');
  });

  it('lets one of two simultaneous refreshes with the same token win, then treats the other as reuse', async () => {
    const { client, code } = await authorize();
    const first = await exchange(client.client_id, code);
    const results = await Promise.allSettled([
      refresh(client.client_id, first.refresh_token),
      refresh(client.client_id, first.refresh_token),
    ]);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
    const won = results.find((r) => r.status === 'fulfilled')!;
    await expect(authenticate(won.value.access_token)).rejects.toMatchObject({ code: 'token_revoked' });
  });

  it('refuses another client, and stops when the grant expires', async () => {
    const { client, code } = await authorize(undefined, { expiresAt: new Date(clock.now().getTime() + 120_000) });
    const other = await register();
    const first = await exchange(client.client_id, code);
    expect((await rejection(refresh(other.client_id, first.refresh_token))).error).toBe('invalid_grant');
    offsetMs += 121_000;
    try {
      expect((await rejection(refresh(client.client_id, first.refresh_token))).error).toBe('invalid_grant');
    } finally {
      offsetMs -= 121_000;
    }
  });

  it('stops when the token is revoked elsewhere (CLI) or its user is deactivated', async () => {
    const { client, code } = await authorize();
    const first = await exchange(client.client_id, code);
    const { token } = await authenticate(first.access_token);
    await server.ctx.tokens.revokeToken(token.id);
    expect((await rejection(refresh(client.client_id, first.refresh_token))).error).toBe('invalid_grant');

    const inactive = await authorize(undefined, { userId: USERS.inactive });
    expect((await rejection(exchange(inactive.client.client_id, inactive.code))).error).toBe('invalid_grant');
  });
});

describe('revocation', () => {
  it('revoking the token row (the Profile, the CLI) ends the grant and its refresh tokens', async () => {
    const { client, code } = await authorize();
    const first = await exchange(client.client_id, code);
    const { token } = await authenticate(first.access_token);
    const before = await oauth.connectionsOf(USERS.manager);
    expect(before.get(token.id)).toMatchObject({ clientName: 'Test agent', state: 'active', expiresAt: null });
    // Not theirs: not found, nothing happens.
    await expect(server.ctx.tokens.revokeToken(token.id, { ownerId: USERS.executor })).rejects.toMatchObject({ code: 'not_found' });
    expect((await oauth.connectionsOf(USERS.manager)).get(token.id)?.state).toBe('active');
    await server.ctx.tokens.revokeToken(token.id, { ownerId: USERS.manager });
    expect((await oauth.connectionsOf(USERS.manager)).get(token.id)?.state).toBe('revoked');
    await expect(authenticate(first.access_token)).rejects.toMatchObject({ code: 'token_revoked' });
    expect((await rejection(refresh(client.client_id, first.refresh_token))).error).toBe('invalid_grant');
  });

  it('RFC 7009: the client revokes by refresh or access token; another client changes nothing', async () => {
    for (const which of ['refresh_token', 'access_token'] as const) {
      const { client, code } = await authorize();
      const other = await register();
      const tokens = await exchange(client.client_id, code);
      await oauth.revoke({ client_id: other.client_id, token: tokens[which] });
      expect((await authenticate(tokens.access_token)).user.id).toBe(USERS.manager);
      await oauth.revoke({ client_id: client.client_id, token: tokens[which] });
      await expect(authenticate(tokens.access_token)).rejects.toMatchObject({ code: 'token_revoked' });
      expect((await rejection(refresh(client.client_id, tokens.refresh_token))).error).toBe('invalid_grant');
      await oauth.revoke({ client_id: client.client_id, token: 'not-a-token' });
    }
  });
});
