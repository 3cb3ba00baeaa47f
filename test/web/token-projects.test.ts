import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_ONLY_SCOPES, SCOPES } from '../../src/domain/scopes.js';
import { s256 } from '../../src/features/oauth/oauth-protocol.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { decode, signedInClients, WebClient } from './web-client.js';

/**
 * Tokens limited to projects in the web (docs/design.md §18), both dialects: the Profile's "Projects" choice and
 * scope presets (without the script), the token list, and the same choice on the OAuth consent page, kept by
 * the grant's refreshed tokens. The manager sees projects 1 and 2 (archived), not 3.
 */
let server: TestServer;
const as = signedInClients(() => server.url);
const VERIFIER = 'verifier-' + 'y'.repeat(50);
const REDIRECT = 'http://127.0.0.1:49152/cb';

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const tokenCount = async () =>
  Number(
    (
      await server.ctx.db.kysely
        .selectFrom('api_tokens')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
const checkedScopes = (page: string) => [...page.matchAll(/name="scopes" value="([^"]+)"\s*checked/g)].map((m) => m[1]);
const rawOf = (page: string) => /data-testid="new-token">([^<]+)</.exec(page)?.[1];

describe('the Profile’s token form', () => {
  it('offers "All my projects" or the projects the user sees, and creates a token limited to the ticked ones', async () => {
    const web = await as('manager');
    const page = await web.get('/profile');
    const fieldset = /<fieldset data-testid="token-projects">[\s\S]*?<\/fieldset>/.exec(page.text)![0];
    expect(fieldset).toMatch(/value="all"\s*checked>All my projects/);
    expect(fieldset).toContain('>Plant audit</label>');
    expect(fieldset).toContain('>Archived works (archived)</label>');
    expect(fieldset).not.toContain('value="3"');

    const created = await web.post(
      '/profile/tokens',
      { name: 'Site agent', expiry: '7d', scopes: ['auth:me', 'items:read'], projects: 'chosen', project_ids: ['1'] },
      page.text,
    );
    expect(created.status).toBe(201);
    const me = await server.call(`${V1}/auth/me.php`, { token: rawOf(created.text) });
    expect(me.body.data.token.project_ids).toEqual([1]);
    expect((await server.call(`${V1}/items/get.php?id=3000`, { token: rawOf(created.text) })).status).toBe(404);
    const row = created.text.match(/<tr data-testid="token-row"[\s\S]*?<\/tr>/g)!.find((r) => r.includes('Site agent'))!;
    expect(row).toMatch(/data-testid="token-projects">Plant audit</);

    // "All my projects" ignores the boxes: an unlimited token.
    const all = await web.post('/profile/tokens', { name: 'All', scopes: 'auth:me', projects: 'all', project_ids: '1' }, page.text);
    expect((await server.call(`${V1}/auth/me.php`, { token: rawOf(all.text) })).body.data.token.project_ids).toBeNull();
  });

  it('refuses a project the user cannot see, an unknown one or none ticked (422, the form kept, nothing created)', async () => {
    const web = await as('manager');
    const page = await web.get('/profile');
    const before = await tokenCount();
    for (const project_ids of [['3'], ['1', '999999'], [], ['x']]) {
      const res = await web.post('/profile/tokens', { name: 'Refused', scopes: 'auth:me', projects: 'chosen', project_ids }, page.text);
      expect(res.status, JSON.stringify(project_ids)).toBe(422);
      expect(res.text).toContain('The token was not created');
      expect(res.text).toMatch(/value="chosen"\s*checked/);
      expect(rawOf(res.text)).toBeUndefined();
    }
    expect(await tokenCount()).toBe(before);
  });

  it('scope presets "Read only" and "Everything" tick their scopes, without the script too (nothing is created)', async () => {
    const web = await as('observer');
    const page = await web.get('/profile');
    expect(page.text).toMatch(/<button type="submit" name="preset" value="read"[^>]*>Read only<\/button>/);
    expect(page.text).toMatch(/<button type="submit" name="preset" value="all"[^>]*>Everything<\/button>/);
    const before = await tokenCount();
    const fields = { name: 'Kept name', scopes: 'auth:me', projects: 'chosen', project_ids: '1' };
    const everything = await web.post('/profile/tokens', { ...fields, preset: 'all' }, page.text);
    expect(everything.status).toBe(200);
    expect(checkedScopes(everything.text)).toEqual([...SCOPES]);
    expect(everything.text).toContain('value="Kept name"');
    expect(everything.text).toMatch(/name="project_ids"\s*value="1" checked/);
    const readOnly = await web.post('/profile/tokens', { ...fields, preset: 'read' }, everything.text);
    expect(checkedScopes(readOnly.text)).toEqual([...READ_ONLY_SCOPES]);
    expect(await tokenCount()).toBe(before);
  });
});

describe('the OAuth consent page', () => {
  const post = (path: string, fields: Record<string, string>) =>
    server.call(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });

  async function consent(answer: Record<string, string | string[]>) {
    const registered = await server.call('/oauth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Limited agent', redirect_uris: [REDIRECT] }),
    });
    const clientId = registered.body.client_id as string;
    const web = new WebClient(server.url);
    await web.signIn('manager');
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: s256(VERIFIER),
      code_challenge_method: 'S256',
      scope: 'auth:me items:read',
    });
    const page = await web.get(`/oauth/authorize?${query}`);
    const fields: Record<string, string | string[]> = {};
    for (const match of page.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[match[1]!] = decode(match[2]!);
    const response = await web.post('/oauth/authorize', { ...fields, expiry: '30d', scopes: ['auth:me', 'items:read'], ...answer });
    return { clientId, page, response };
  }

  it('offers the same choice; the grant keeps it and its tokens, refreshed too, are limited', async () => {
    const { clientId, page, response } = await consent({ decision: 'allow', projects: 'chosen', project_ids: '2' });
    expect(page.text).toMatch(/value="all"\s*checked>All my projects/);
    expect(page.text).toContain('>Plant audit</label>');
    expect(page.text).not.toContain('name="project_ids" value="3"');
    expect(response.status).toBe(303);
    const code = new URL(response.location!).searchParams.get('code')!;
    const issued = await post('/oauth/token', {
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      code_verifier: VERIFIER,
      redirect_uri: REDIRECT,
    });
    expect(issued.status).toBe(200);
    const me = async (token: string) => (await server.call(`${V1}/auth/me.php`, { token })).body.data.token.project_ids;
    expect(await me(issued.body.access_token)).toEqual([2]);
    expect((await server.call(`${V1}/items/get.php?id=1000`, { token: issued.body.access_token })).status).toBe(404);
    const refreshed = await post('/oauth/token', {
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: issued.body.refresh_token,
    });
    expect(refreshed.status).toBe(200);
    expect(await me(refreshed.body.access_token)).toEqual([2]);
  });

  it('refuses a project the user cannot see: the page again (422), no grant', async () => {
    const grants = async () => (await server.ctx.db.kysely.selectFrom('oauth_grants').select('id').execute()).length;
    const before = await grants();
    const { response } = await consent({ decision: 'allow', projects: 'chosen', project_ids: '3' });
    expect(response.status).toBe(422);
    expect(response.text).toContain('Nothing was allowed');
    expect(await grants()).toBe(before);
  });
});
