import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/domain/scopes.js';
import { s256 } from '../../src/features/oauth/oauth-protocol.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { decode, WebClient } from '../web/web-client.js';

/**
 * OAuth 2.1 over real HTTP (docs/design.md §12), both dialects: metadata (RFC 8414, RFC 9728), registration
 * (RFC 7591), the consent page and its answers (RFC 6749 §4.1, RFC 7636), the token endpoint's errors
 * (RFC 6749 §5.2), revocation (RFC 7009), the Profile, and the /mcp 401 that starts it all.
 */
let server: TestServer;
const VERIFIER = 'verifier-' + 'x'.repeat(50);
const REDIRECT = 'http://127.0.0.1:49152/cb';

beforeAll(async () => {
  server = await startTestServer({ env: { OAUTH_REGISTER_PER_MINUTE: '40' } });
});
afterAll(() => server.close());

const json = (path: string, body: unknown) =>
  server.call(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const form = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  server.call(path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });

async function register(body: Record<string, unknown> = {}) {
  const response = await json('/oauth/register', { client_name: 'HTTP agent', redirect_uris: [REDIRECT], ...body });
  expect(response.status).toBe(201);
  return response.body as { client_id: string; client_name: string };
}

function authorizeQuery(clientId: string, extra: Record<string, string> = {}) {
  return new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: s256(VERIFIER),
    code_challenge_method: 'S256',
    state: 'st-1',
    scope: 'auth:me projects:read items:read',
    ...extra,
  }).toString();
}

/** Signs in as `user`, opens the consent page and answers it; returns the redirect. */
async function consent(
  clientId: string,
  answer: Record<string, string | string[]>,
  user = 'manager',
  headers: Record<string, string> = {},
) {
  const web = new WebClient(server.url, headers);
  expect((await web.signIn(user)).status).toBe(303);
  const page = await web.get(`/oauth/authorize?${authorizeQuery(clientId)}`);
  expect(page.status).toBe(200);
  const fields: Record<string, string | string[]> = {};
  for (const match of page.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[match[1]!] = decode(match[2]!);
  const response = await web.post('/oauth/authorize', { ...fields, expiry: '30d', ...answer });
  return { web, page, response };
}

async function connect(scopes = ['auth:me', 'projects:read', 'items:read']) {
  const client = await register();
  const { web, response } = await consent(client.client_id, { decision: 'allow', scopes });
  expect(response.status).toBe(303);
  const code = new URL(response.location!).searchParams.get('code')!;
  const tokens = await form('/oauth/token', {
    grant_type: 'authorization_code',
    client_id: client.client_id,
    code,
    code_verifier: VERIFIER,
    redirect_uri: REDIRECT,
  });
  expect(tokens.status).toBe(200);
  return { client, web, code, tokens: tokens.body as { access_token: string; refresh_token: string; scope: string } };
}

describe('metadata', () => {
  it('publishes RFC 8414 authorization server metadata with BASE_URL as issuer', async () => {
    const { status, body, headers } = await server.call('/.well-known/oauth-authorization-server');
    expect(status).toBe(200);
    expect(headers.get('access-control-allow-origin')).toBe('*');
    expect(body).toMatchObject({
      issuer: server.url,
      authorization_endpoint: `${server.url}/oauth/authorize`,
      token_endpoint: `${server.url}/oauth/token`,
      registration_endpoint: `${server.url}/oauth/register`,
      revocation_endpoint: `${server.url}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      scopes_supported: [...SCOPES],
    });
  });

  it('publishes RFC 9728 metadata for the site, /mcp and v1, each naming its own resource', async () => {
    for (const suffix of ['', '/mcp', '/api/external/v1']) {
      const { status, body } = await server.call(`/.well-known/oauth-protected-resource${suffix}`);
      expect(status, suffix).toBe(200);
      expect(body).toMatchObject({
        resource: server.url + suffix,
        authorization_servers: [server.url],
        bearer_methods_supported: ['header'],
      });
    }
    expect((await server.call('/.well-known/oauth-protected-resource/elsewhere')).status).toBe(404);
  });

  it('/mcp answers 401 naming the protected resource metadata, and keeps the error body', async () => {
    const res = await server.call('/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource", realm="punchlist"`,
    );
    expect(res.body).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    expect(res.body.error.message).toMatch(/OAuth/);
    expect(res.body.error.message).not.toMatch(/not available/);
  });
});

describe('registration (RFC 7591)', () => {
  it('answers 201 with the client, and 400 in the RFC shape for bad metadata', async () => {
    const created = await json('/oauth/register', {
      client_name: 'Agent',
      redirect_uris: ['https://agent.example/cb', 'http://localhost/cb'],
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.body).toMatchObject({
      client_name: 'Agent',
      token_endpoint_auth_method: 'none',
      redirect_uris: ['https://agent.example/cb', 'http://localhost/cb'],
    });

    const bad = await json('/oauth/register', { redirect_uris: ['http://agent.example/cb'] });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'invalid_redirect_uri', error_description: expect.stringMatching(/https/) });
    const malformed = await server.call('/oauth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"redirect_uris":',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toBe('invalid_client_metadata');
  });

  it('is rate-limited per address, and so is the token endpoint', async () => {
    const limited = await startTestServer({ workspace: false, env: { OAUTH_REGISTER_PER_MINUTE: '2', OAUTH_TOKEN_PER_MINUTE: '1' } });
    try {
      const post = () => limited.call('/oauth/register', { method: 'POST', json: { redirect_uris: [REDIRECT] } });
      expect((await post()).status).toBe(201);
      expect((await post()).status).toBe(201);
      const refused = await post();
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^[0-9]+$/);
      expect(refused.body.error).toBe('temporarily_unavailable');
      const tokenRequest = () =>
        limited.call('/oauth/token', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=refresh_token&client_id=x&refresh_token=y',
        });
      expect((await tokenRequest()).status).toBe(401);
      expect((await tokenRequest()).status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});

describe('the authorization endpoint and the consent page', () => {
  it('shows an error page, never a redirect, for an unknown client or an unregistered redirect URI', async () => {
    const client = await register();
    for (const query of [authorizeQuery('plc_nobody'), authorizeQuery(client.client_id, { redirect_uri: 'https://evil.example/cb' })]) {
      const res = await fetch(`${server.url}/oauth/authorize?${query}`, { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      const text = await res.text();
      expect(text).not.toContain('evil.example');
      expect(text).toContain('Nothing was sent to the application');
    }
  });

  it("shows the client's error on a page with a link back (no automatic redirect) for a bad request", async () => {
    const client = await register();
    const res = await fetch(`${server.url}/oauth/authorize?${authorizeQuery(client.client_id, { code_challenge_method: 'plain' })}`, {
      redirect: 'manual',
    });
    expect(res.status).toBe(400);
    const text = decode(await res.text());
    expect(text).toContain('invalid_request');
    expect(text).toContain(`${REDIRECT}?error=invalid_request`);
  });

  it('sends a signed-out user through the sign-in and back to the consent page', async () => {
    const client = await register();
    const web = new WebClient(server.url);
    const first = await web.get(`/oauth/authorize?${authorizeQuery(client.client_id)}`);
    expect(first.status).toBe(303);
    const login = new URL(first.location!, server.url);
    expect(login.pathname).toBe('/login');
    const next = login.searchParams.get('next')!;
    expect(next.startsWith('/oauth/authorize?')).toBe(true);
    const page = await web.get(login.pathname + login.search);
    const signedIn = await web.post(
      '/login',
      { email: 'manager@punchlist.test', password: 'correct horse battery staple', next },
      page.text,
    );
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe(next);
    expect((await web.get(next)).text).toContain('HTTP agent');
  });

  it('names the client (escaped), its redirect host and each scope, ticked, with an expiry, Allow and Deny', async () => {
    const client = await register({ client_name: '<img src=x onerror=alert(1)> Agent', client_uri: 'https://agent.example/"><script>' });
    const web = new WebClient(server.url);
    await web.signIn('manager');
    const page = await web.get(`/oauth/authorize?${authorizeQuery(client.client_id)}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('<img src=x');
    expect(page.text).not.toContain('"><script>');
    expect(page.text).toContain('&lt;img src=x onerror=alert(1)&gt; Agent');
    expect(page.text).toContain('127.0.0.1:49152');
    for (const scope of ['auth:me', 'projects:read', 'items:read']) expect(page.text).toMatch(new RegExp(`value="${scope}"\\s+checked`));
    expect(page.text).not.toContain('value="items:status.write"');
    expect(page.text).toContain('>Allow</button>');
    expect(page.text).toContain('>Deny</button>');
    expect(page.text).toContain('<label for="token-expiry">Expiry</label>');
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:49152");
  });

  it('Deny sends access_denied and the state back; a post without the CSRF token is refused', async () => {
    const client = await register();
    const { response } = await consent(client.client_id, { decision: 'deny' });
    expect(response.status).toBe(303);
    const back = new URL(response.location!);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: 'access_denied', state: 'st-1', iss: server.url });

    const forged = await consent(client.client_id, { decision: 'allow', scopes: ['auth:me'], _csrf: 'forged' });
    expect(forged.response.status).toBe(403);
    expect(forged.response.location).toBeNull();
  });

  it('Allow with no scope ticked shows the page again', async () => {
    const client = await register();
    const { response } = await consent(client.client_id, { decision: 'allow' });
    expect(response.status).toBe(422);
    expect(response.text).toContain('Choose at least one scope');
    const russian = await consent(client.client_id, { decision: 'allow' }, 'manager', { 'accept-language': 'ru' });
    expect(russian.response.status).toBe(422);
    expect(russian.response.text).toContain('Выберите хотя бы одну область доступа, которую разрешаете.');
    expect(russian.response.text).not.toContain('Choose at least one scope');
  });
});

describe('tokens', () => {
  it('narrowed scopes show in auth/me, on a token named after the client', async () => {
    const { tokens } = await connect(['auth:me', 'items:read']);
    expect(tokens.scope).toBe('auth:me items:read');
    const me = await server.call(`${V1}/auth/me.php`, { token: tokens.access_token });
    expect(me.status).toBe(200);
    expect(me.body.data.token).toMatchObject({ label: 'OAuth: HTTP agent', scopes: ['auth:me', 'items:read'] });
    expect(me.body.data.scopes).toEqual(['auth:me', 'items:read']);
    const projects = await server.call(`${V1}/projects/list.php`, { token: tokens.access_token });
    expect(projects.status).toBe(403);
    expect(projects.body.error.code).toBe('scope_missing');
    // Audited like any token: the records name it.
    await server.ctx.audit.flush();
    const records = await server.ctx.audit.list({ limit: 5 });
    expect(records.some((r) => r.token_id === me.body.data.token.id && r.path.endsWith('/auth/me.php'))).toBe(true);
  });

  it('the token endpoint answers no-store, refuses JSON, repeated parameters, unknown clients and reused codes', async () => {
    const { client, code, tokens } = await connect();
    const again = await form('/oauth/token', {
      grant_type: 'authorization_code',
      client_id: client.client_id,
      code,
      code_verifier: VERIFIER,
      redirect_uri: REDIRECT,
    });
    expect(again.status).toBe(400);
    expect(again.headers.get('cache-control')).toBe('no-store');
    expect(again.body).toMatchObject({ error: 'invalid_grant' });
    expect((await server.call(`${V1}/auth/me.php`, { token: tokens.access_token })).body.error.code).toBe('token_revoked');

    const asJson = await json('/oauth/token', {
      grant_type: 'refresh_token',
      client_id: client.client_id,
      refresh_token: tokens.refresh_token,
    });
    expect(asJson.status).toBe(400);
    expect(asJson.body.error).toBe('invalid_request');
    const repeated = await server.call('/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=refresh_token&grant_type=refresh_token&client_id=${client.client_id}`,
    });
    expect(repeated.body.error).toBe('invalid_request');
    const unknown = await form('/oauth/token', {
      grant_type: 'refresh_token',
      client_id: 'plc_nobody',
      refresh_token: tokens.refresh_token,
    });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error).toBe('invalid_client');
    const secret = await form(
      '/oauth/token',
      { grant_type: 'refresh_token', refresh_token: 'x' },
      { authorization: `Basic ${Buffer.from(`${client.client_id}:secret`).toString('base64')}` },
    );
    expect(secret.status).toBe(401);
    const unsupported = await form('/oauth/token', { grant_type: 'client_credentials', client_id: client.client_id });
    expect(unsupported.body.error).toBe('unsupported_grant_type');
  });

  it('rotates refresh tokens over HTTP; a replayed one ends the grant', async () => {
    const { client, tokens } = await connect();
    const refreshed = await form('/oauth/token', {
      grant_type: 'refresh_token',
      client_id: client.client_id,
      refresh_token: tokens.refresh_token,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.headers.get('cache-control')).toBe('no-store');
    const next = refreshed.body as { access_token: string; refresh_token: string };
    expect((await server.call(`${V1}/auth/me.php`, { token: next.access_token })).status).toBe(200);
    const replay = await form('/oauth/token', {
      grant_type: 'refresh_token',
      client_id: client.client_id,
      refresh_token: tokens.refresh_token,
    });
    expect(replay.body.error).toBe('invalid_grant');
    expect((await server.call(`${V1}/auth/me.php`, { token: next.access_token })).body.error.code).toBe('token_revoked');
    const after = await form('/oauth/token', {
      grant_type: 'refresh_token',
      client_id: client.client_id,
      refresh_token: next.refresh_token,
    });
    expect(after.body.error).toBe('invalid_grant');
  });

  it('RFC 7009 revocation answers 200 and ends the grant', async () => {
    const { client, tokens } = await connect();
    const revoked = await form('/oauth/revoke', {
      client_id: client.client_id,
      token: tokens.refresh_token,
      token_type_hint: 'refresh_token',
    });
    expect(revoked.status).toBe(200);
    expect((await server.call(`${V1}/auth/me.php`, { token: tokens.access_token })).status).toBe(401);
    expect((await form('/oauth/revoke', { client_id: client.client_id, token: 'unknown' })).status).toBe(200);
    const unknownClient = await form('/oauth/revoke', { client_id: 'plc_nobody', token: tokens.refresh_token });
    expect(unknownClient.status).toBe(401);
    expect(unknownClient.body.error).toBe('invalid_client');
    expect((await form('/oauth/revoke', { client_id: client.client_id })).body.error).toBe('invalid_request');
  });
});

describe('the Profile', () => {
  it('lists the connection as "OAuth: <client name>"; revoking it ends the access token and the refresh token', async () => {
    const { client, web, tokens } = await connect();
    const profile = await web.get('/profile');
    const tokenId = (await server.call(`${V1}/auth/me.php`, { token: tokens.access_token })).body.data.token.id as number;
    const row =
      new RegExp(`<tr data-testid="token-row" data-token-id="${tokenId}" data-oauth="1">[\\s\\S]*?</tr>`).exec(profile.text)?.[0] ?? '';
    expect(row).toContain('OAuth: HTTP agent');
    expect(row).toContain('Revoke');
    const revoked = await web.post(`/profile/tokens/${tokenId}/revoke`, { confirmed: '1' }, profile.text);
    expect(revoked.status).toBe(303);
    expect((await server.call(`${V1}/auth/me.php`, { token: tokens.access_token })).body.error.code).toBe('token_revoked');
    const refresh = await form('/oauth/token', {
      grant_type: 'refresh_token',
      client_id: client.client_id,
      refresh_token: tokens.refresh_token,
    });
    expect(refresh.body.error).toBe('invalid_grant');
    const after = await web.get('/profile');
    const rowAfter = new RegExp(`data-token-id="${tokenId}"[\\s\\S]*?</tr>`).exec(after.text)?.[0] ?? '';
    expect(rowAfter).toContain('s-revoked');
  });
});
