import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { auth, type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromiumIfInstalled, requireBrowser } from '../helpers/chromium.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { PASSWORD } from '../helpers/workspace.js';

/**
 * The whole OAuth 2.1 flow as a generic MCP client lives it (docs/design.md §12): the MCP SDK's own OAuth
 * client support against a listening server (401 → RFC 9728 → RFC 8414 → RFC 7591 → authorization with
 * PKCE), sign-in and consent in Chromium, the callback on a loopback port, the code exchange, tools over
 * /mcp, a refresh, and revocation from the Profile.
 */
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const KEPT = ['auth:me', 'projects:read', 'projects:search', 'items:read'];

let server: TestServer;
let launched: Browser | undefined;
let callback: Server;
let redirectUrl: string;
/** The query strings the loopback callback received, in order. */
const received: URLSearchParams[] = [];
const clients: Client[] = [];
/** The server's clock runs this far ahead: access tokens expire without waiting an hour. */
let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };

/** An OAuthClientProvider kept in memory, as a CLI agent would keep it in a file. */
class MemoryProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  constructor(readonly redirectUrl: string) {}
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'E2E <agent>',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() {
    return 'state-e2e-42';
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

beforeAll(async () => {
  server = await startTestServer({ clock });
  launched = await launchChromiumIfInstalled();
  callback = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    // Only the callback counts: the browser also asks this origin for /favicon.ico.
    if (url.pathname !== '/callback') return void response.writeHead(404).end();
    received.push(url.searchParams);
    response.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this window.');
  });
  await new Promise<void>((done) => callback.listen(0, '127.0.0.1', done));
  const address = callback.address();
  redirectUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/callback`;
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await launched?.close();
  await new Promise((done) => callback?.close(done));
  await server?.close();
});

async function newPage(options: BrowserContextOptions = {}): Promise<Page> {
  const page = await (await requireBrowser(launched).newContext(options)).newPage();
  page.setDefaultTimeout(10_000);
  return page;
}

async function signIn(page: Page) {
  await page.getByLabel('Email').fill('manager@punchlist.test');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The SDK's first connection: 401, discovery, registration, then "redirect" (the URL is kept). */
async function startFlow(provider: MemoryProvider) {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { authProvider: provider });
  await expect(new Client({ name: 'e2e', version: '1.0.0' }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.client?.client_id).toMatch(/^plc_/);
  expect(provider.authorizationUrl?.href.startsWith(`${server.url}/oauth/authorize?`)).toBe(true);
  return transport;
}

async function connected(provider: MemoryProvider): Promise<Client> {
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { authProvider: provider }));
  clients.push(client);
  return client;
}

const token = (fields: Record<string, string>) =>
  server.call('/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

describe('an MCP client connects with OAuth', () => {
  it('signs in, narrows the scopes on the consent page, and uses the tools; refreshes; the Profile revokes it', async () => {
    const provider = new MemoryProvider(redirectUrl);
    const transport = await startFlow(provider);
    expect(provider.authorizationUrl!.searchParams.get('code_challenge_method')).toBe('S256');

    // Signed out: the sign-in page first, then back to the consent page.
    const page = await newPage();
    await page.goto(provider.authorizationUrl!.href);
    await expect.poll(() => new URL(page.url()).pathname).toBe('/login');
    await signIn(page);
    await page.waitForURL('**/oauth/authorize?**');
    expect(await page.getByTestId('oauth-client-name').first().textContent()).toBe('E2E <agent>');
    expect(await page.getByTestId('oauth-redirect-host').textContent()).toBe(new URL(redirectUrl).host);
    for (const scope of ['auth:me', 'items:read', 'items:status.write', 'events:read'])
      expect(await page.getByLabel(scope, { exact: true }).isChecked(), scope).toBe(true);
    for (const scope of [
      'items:status.write',
      'items:planning.write',
      'comments:write',
      'answers:write',
      'items:materials.write',
      'events:read',
    ]) {
      await page.getByLabel(scope, { exact: true }).uncheck();
    }
    await page.getByLabel('Expiry').selectOption({ label: '7 days' });
    await page.getByRole('button', { name: 'Allow' }).click();
    await expect.poll(() => received.length).toBe(1);
    const answer = received[0]!;
    expect(answer.get('state')).toBe('state-e2e-42');
    expect(answer.get('iss')).toBe(server.url);
    await page.context().close();

    await transport.finishAuth(answer.get('code')!);
    expect(provider.saved).toMatchObject({ token_type: expect.stringMatching(/^bearer$/i), scope: KEPT.join(' ') });

    const mcp = await connected(provider);
    const tools = (await mcp.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['whoami', 'list_projects', 'get_project_tree', 'search_project', 'get_item']));
    expect(tools).not.toContain('set_item_status');
    expect(tools).not.toContain('add_comment');
    const whoami = (await mcp.callTool({ name: 'whoami', arguments: {} })) as CallToolResult;
    expect(whoami.isError).toBeFalsy();
    expect(whoami.structuredContent).toMatchObject({ user: { name: 'Manager' }, token: { label: 'OAuth: E2E <agent>', scopes: KEPT } });
    const projects = (await mcp.callTool({ name: 'list_projects', arguments: {} })) as CallToolResult;
    expect((projects.structuredContent as { projects: { name: string }[] }).projects.map((p) => p.name)).toContain('Plant audit');

    // The SDK refreshes with the refresh token: a new pair; the old access token stops.
    const before = provider.saved!;
    expect(await auth(provider, { serverUrl: new URL(`${server.url}/mcp`) })).toBe('AUTHORIZED');
    expect(provider.saved!.refresh_token).not.toBe(before.refresh_token);
    expect((await server.call(`${V1}/auth/me.php`, { token: before.access_token })).status).toBe(401);
    const me = await server.call(`${V1}/auth/me.php`, { token: provider.saved!.access_token });
    expect(me.body.data.scopes).toEqual(KEPT);
    const refreshed = await connected(provider);
    expect(((await refreshed.callTool({ name: 'whoami', arguments: {} })) as CallToolResult).isError).toBeFalsy();

    // An hour later the access token has expired: the next call gets a 401, the SDK refreshes by itself and retries.
    offsetMs += 61 * 60 * 1000;
    const expired = provider.saved!.access_token;
    expect((await server.call(`${V1}/auth/me.php`, { token: expired })).body.error.code).toBe('token_expired');
    const later = (await refreshed.callTool({ name: 'whoami', arguments: {} })) as CallToolResult;
    expect(later.isError).toBeFalsy();
    expect(provider.saved!.access_token).not.toBe(expired);

    // The Profile lists "OAuth: <client name>"; revoking it ends the access token and the refresh token.
    const profile = await newPage();
    await profile.goto(`${server.url}/profile`);
    await signIn(profile);
    await profile.waitForURL('**/profile');
    const row = profile.getByTestId('token-row').filter({ hasText: 'OAuth: E2E <agent>' });
    expect(await row.count()).toBe(1);
    profile.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Revoke' }).click();
    await profile.waitForURL('**/profile?revoked=1');
    expect(await profile.getByTestId('token-row').filter({ hasText: 'OAuth: E2E <agent>' }).getByTestId('token-state').textContent()).toBe(
      'revoked',
    );
    await profile.context().close();
    expect((await server.call(`${V1}/auth/me.php`, { token: provider.saved!.access_token })).body.error.code).toBe('token_revoked');
    const refresh = await token({
      grant_type: 'refresh_token',
      client_id: provider.client!.client_id,
      refresh_token: provider.saved!.refresh_token!,
    });
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('Deny sends access_denied to the client', async () => {
    const provider = new MemoryProvider(redirectUrl);
    await startFlow(provider);
    const page = await newPage();
    await page.goto(provider.authorizationUrl!.href);
    await signIn(page);
    await page.waitForURL('**/oauth/authorize?**');
    const count = received.length;
    await page.getByRole('button', { name: 'Deny' }).click();
    await expect.poll(() => received.length).toBe(count + 1);
    expect(received.at(-1)!.get('error')).toBe('access_denied');
    expect(received.at(-1)!.get('state')).toBe('state-e2e-42');
    expect(received.at(-1)!.get('code')).toBeNull();
    await page.context().close();
  });

  it('the consent page works at 390 px and has no serious or critical axe-core violation', async () => {
    const provider = new MemoryProvider(redirectUrl);
    await startFlow(provider);
    const page = await newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, bypassCSP: true });
    await page.goto(provider.authorizationUrl!.href);
    await signIn(page);
    await page.waitForURL('**/oauth/authorize?**');
    const width = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
    expect(width.scroll).toBeLessThanOrEqual(390);
    expect(width.inner).toBeLessThanOrEqual(390);
    await page.addScriptTag({ path: AXE });
    const violations = await page.evaluate(async () => {
      const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
      return (result.violations as any[]).filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`);
    });
    expect(violations).toEqual([]);
    await page.context().close();
  });
});
