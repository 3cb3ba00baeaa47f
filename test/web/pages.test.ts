import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWellFormedToken } from '../../src/domain/token-format.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { USERS } from '../helpers/workspace.js';
import { decode, signedInClients } from './web-client.js';

/** The web pages of the profile's API tokens and of projects and items (reviews, administration, audit: admin-pages.test.ts). */

let server: TestServer;
/** One signed-in client per workspace user, reused across tests. */
const as = signedInClients(() => server.url);

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('API tokens on /profile', () => {
  it('creates a token shown once, which works, then revokes it after confirmation', async () => {
    const web = await as('executor');
    const profile = await web.get('/profile');
    expect(profile.text).toContain('<h2 id="tokens-title">External API tokens</h2>');
    expect(profile.text).toContain('<label for="token-name">Name</label>');
    expect(profile.text).toContain('<label for="token-expiry">Expiry</label>');
    for (const scope of ['auth:me', 'items:read', 'items:materials.write']) {
      expect(profile.text).toContain(`value="${scope}"`);
      expect(profile.text).toMatch(new RegExp(`aria-describedby="scope-help-${scope}">${scope}</label>`));
    }
    const created = await web.post(
      '/profile/tokens',
      { name: 'CRM <sync>', expiry: '30d', scopes: ['auth:me', 'items:read'] },
      profile.text,
    );
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const raw = /data-testid="new-token">([^<]+)<\/code>/.exec(created.text)?.[1];
    expect(raw && isWellFormedToken(raw)).toBe(true);
    expect(created.text).toContain('CRM &lt;sync&gt;');

    const me = await server.call(`${V1}/auth/me.php`, { token: raw });
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ user: { id: USERS.executor }, token: { label: 'CRM <sync>', scopes: ['auth:me', 'items:read'] } });
    const expires = Date.parse(me.body.data.token.expires_at) - Date.now();
    expect(Math.abs(expires - 30 * 86_400_000)).toBeLessThan(60_000);

    const later = await web.get('/profile');
    expect(later.text).not.toContain(raw);
    expect(later.text).not.toContain('data-testid="new-token"');
    const row = later.text
      .match(/<tr data-testid="token-row" data-token-id="(\d+)">[\s\S]*?<\/tr>/g)!
      .find((r) => r.includes('CRM &lt;sync&gt;'))!;
    expect(row).toContain('>active</span>');
    expect(row).toMatch(/from 127\.0\.0\.1/);
    const id = /data-token-id="(\d+)"/.exec(row)![1]!;

    // Without the confirmation, a page asks first and nothing is revoked.
    const ask = await web.post(`/profile/tokens/${id}/revoke`, {}, later.text);
    expect(ask.status).toBe(200);
    expect(decode(ask.text)).toContain('Revoke the token “CRM <sync>”?');
    expect((await server.call(`${V1}/auth/me.php`, { token: raw })).status).toBe(200);

    const revoked = await web.post(`/profile/tokens/${id}/revoke`, { confirmed: '1' }, ask.text);
    expect(revoked.status).toBe(303);
    const after = await server.call(`${V1}/auth/me.php`, { token: raw });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('token_revoked');
    const listed = await web.get('/profile');
    const revokedRow = listed.text.match(/<tr data-testid="token-row"[\s\S]*?<\/tr>/g)!.find((r) => r.includes('CRM &lt;sync&gt;'))!;
    expect(revokedRow).toContain('>revoked</span>');
    expect(revokedRow).not.toContain('Revoke</button>');
  });

  it('offers the expiry choices and honours them', async () => {
    const web = await as('observer');
    const page = await web.get('/profile');
    for (const label of ['7 days', '30 days', '60 days', '90 days', '1 year', 'On a date…', 'No expiry'])
      expect(page.text).toContain(`>${label}</option>`);
    const create = async (fields: Record<string, string | string[]>) => {
      const response = await web.post('/profile/tokens', { name: 'expiry', scopes: 'auth:me', ...fields }, page.text);
      const raw = /data-testid="new-token">([^<]+)</.exec(response.text)?.[1];
      return { response, me: raw ? (await server.call(`${V1}/auth/me.php`, { token: raw })).body.data : null };
    };
    expect((await create({ expiry: 'never' })).me.token.expires_at).toBeNull();
    expect((await create({ expiry: 'date', expiry_date: '2099-03-04' })).me.token.expires_at).toBe('2099-03-05T00:00:00.000Z');
    const year = Date.parse((await create({ expiry: '1y' })).me.token.expires_at) - Date.now();
    expect(Math.abs(year - 365 * 86_400_000)).toBeLessThan(60_000);

    const invalid: Record<string, string | string[]>[] = [
      { expiry: 'date', expiry_date: '2001-01-01' },
      { expiry: 'date' },
      { expiry: '5d' },
      { expiry: '7d', scopes: [] },
      { expiry: '7d', scopes: 'admin:all' },
      { expiry: '7d', name: ' ' },
    ];
    for (const fields of invalid) {
      const { response } = await create(fields);
      expect(response.status, JSON.stringify(fields)).toBe(422);
      expect(response.text).toContain('The token was not created');
      expect(response.text).not.toContain('data-testid="new-token"');
    }
  });

  it('lists a token whose expiry has passed as expired, without a Revoke button', async () => {
    const web = await as('partial');
    const page = await web.get('/profile');
    const created = await web.post('/profile/tokens', { name: 'Short-lived', expiry: '7d', scopes: 'auth:me' }, page.text);
    const raw = /data-testid="new-token">([^<]+)</.exec(created.text)![1]!;
    const id = Number(/data-token-id="(\d+)"[\s\S]*?Short-lived/.exec(created.text)![1]);
    // The page's clock is the real one: the expiry is moved into the past instead.
    const past = new Date(Date.now() - 60_000).toISOString();
    await server.ctx.db.kysely.updateTable('api_tokens').set({ expires_at: past }).where('id', '=', id).execute();

    const listed = await web.get('/profile');
    const row = listed.text.match(/<tr data-testid="token-row"[\s\S]*?<\/tr>/g)!.find((r) => r.includes(`data-token-id="${id}"`))!;
    expect(row).toContain('Short-lived');
    expect(row).toMatch(/data-testid="token-state"><span[^>]*>expired<\/span>/);
    expect(row).not.toContain('Revoke</button>');
    const refused = await server.call(`${V1}/auth/me.php`, { token: raw });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('token_expired');
  });

  it('never revokes the token of another user', async () => {
    const web = await as('bystander');
    const page = await web.get('/profile');
    const response = await web.post(`/profile/tokens/${USERS.manager}/revoke`, { confirmed: '1' }, page.text);
    expect(response.status).toBe(404);
    expect((await server.call(`${V1}/auth/me.php`, { token: server.tokens.manager })).status).toBe(200);
  });
});

describe('scopes', () => {
  it('keeps the form parser to the web: the API still takes JSON only, in its envelope', async () => {
    const response = await server.call(`${V1}/comments/create.php`, {
      method: 'POST',
      token: server.tokens.manager,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'item_id=1000&text=hello',
    });
    expect(response.status).toBe(415);
    expect(response.body).toMatchObject({ ok: false, error: { code: 'unsupported_media_type' } });
  });
});

describe('projects and items', () => {
  it('lists active and archived projects, only the visible ones', async () => {
    const manager = await as('manager');
    const active = await manager.get('/projects');
    expect(active.text).toContain('Plant audit');
    expect(active.text).not.toContain('Archived works');
    expect(active.text).not.toContain('>Other<');
    const archived = await manager.get('/projects?archived=1');
    expect(archived.text).toContain('Archived works');
    expect(archived.text).not.toContain('Plant audit');
    expect((await manager.get('/projects/3')).status).toBe(404);
    expect((await (await as('outsider')).get('/projects')).text).toContain('No active projects.');
  });

  it('shows a partial member only the granted part of the tree', async () => {
    const partial = await as('partial');
    const tree = await partial.get('/projects/1');
    expect(tree.text).toContain('Fire');
    expect(tree.text).toContain('Reports');
    expect(tree.text).not.toContain('Permits');
    expect(tree.text).not.toContain('/items/2000');
    const hidden = await partial.get('/items/2000');
    expect(hidden.status).toBe(404);
    expect(hidden.headers.get('content-type')).toMatch(/^text\/html/);
    expect((await partial.get('/items/2010')).status).toBe(200);
  });

  it('shows the item card: comments, answers, links, history', async () => {
    const page = await (await as('observer')).get('/items/1000');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Extinguishers checked');
    expect(page.text).toContain('On it');
    expect(page.text).toContain('Done, see act');
    expect(page.text).toContain('href="https://example.test/plan"');
    expect(page.text).toContain('data-testid="timeline-entry"');
    expect(page.text).not.toContain('Approve</button>');
    expect(page.text).not.toContain('Save verdict');
    expect(page.text).not.toContain('Return to rework</button>');
  });

  it('answers 404 pages in HTML for unknown or malformed ids', async () => {
    const web = await as('admin');
    for (const path of ['/items/999999', '/items/abc', '/projects/0', '/nowhere']) {
      const response = await web.get(path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.text).toContain('Page not found');
    }
  });
});
