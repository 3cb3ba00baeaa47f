import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { scopesExcept, USERS } from '../helpers/workspace.js';
import { WebClient } from '../web/web-client.js';

/** GET /events/list.php: the change feed over real HTTP, on both dialects (docs/design.md §11). */
let server: TestServer;
const list = (query: string, token = server.tokens.manager) => server.call(`${V1}/events/list.php${query ? `?${query}` : ''}`, { token });
const last = async () => (await list('limit=500')).body.data.events.at(-1)?.id ?? 0;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('events/list.php', () => {
  it('lists the changes made through the API and the web, with the token of API writes and none for the web', async () => {
    const after = await last();
    const status = await server.call(`${V1}/items/status.php`, {
      method: 'PATCH',
      token: server.tokens.executor,
      json: { id: 1001, status: 'blocked' },
    });
    expect(status.status).toBe(200);
    const web = new WebClient(server.url);
    await web.signIn('executor');
    const page = await web.get('/items/1001');
    expect((await web.post('/items/1001/comments', { text: 'From the site' }, page.text)).status).toBe(303);

    const feed = await list(`after=${after}`);
    expect(feed.status).toBe(200);
    expect(feed.body.data.events).toMatchObject([
      {
        type: 'item.status_changed',
        project_id: 1,
        item_id: 1001,
        actor: { id: USERS.executor, name: 'Executor' },
        token_id: USERS.executor,
        data: { from: 'in_progress', to: 'blocked' },
      },
      {
        type: 'comment.created',
        item_id: 1001,
        actor: { id: USERS.executor },
        token_id: null,
        data: { comment: { text: 'From the site' } },
      },
    ]);
    expect(feed.body.data).toMatchObject({ next_after: feed.body.data.events[1].id, has_more: false });
    // Audited like every call, with the project of the filter as entity.
    const filtered = await list(`after=${after}&project_id=1&types=comment.created`);
    expect(filtered.body.data.events.map((e: { type: string }) => e.type)).toEqual(['comment.created']);
    const records = await server.ctx.audit.list({ userId: USERS.manager, limit: 1 });
    expect(records[0]).toMatchObject({ path: `${V1}/events/list.php`, status: 200, entity_type: 'project', entity_id: 1 });
  });

  it('answers a long poll as soon as a matching change commits', async () => {
    const after = await last();
    const started = Date.now();
    const waiting = list(`after=${after}&wait=20&item_id=2001`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await server.call(`${V1}/comments/create.php`, {
      method: 'POST',
      token: server.tokens.manager,
      json: { item_id: 2010, text: 'elsewhere' },
    });
    await server.call(`${V1}/comments/create.php`, { method: 'POST', token: server.tokens.manager, json: { item_id: 2001, text: 'here' } });
    const answered = await waiting;
    expect(answered.status).toBe(200);
    expect(answered.body.data.events).toMatchObject([{ type: 'comment.created', item_id: 2001, data: { comment: { text: 'here' } } }]);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('shows only what the token’s user can see, and refuses bad input, an invisible filter and a missing scope', async () => {
    const all = (await list('limit=500')).body.data.events as { item_id: number | null; project_id: number }[];
    const partial = (await list('limit=500', server.tokens.partial)).body.data.events as { item_id: number | null }[];
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.every((e) => e.item_id === null || ![2000, 2001].includes(e.item_id))).toBe(true);
    expect(all.some((e) => e.item_id === 2001)).toBe(true);
    expect((await list('limit=500', server.tokens.outsider)).body.data.events).toEqual([]);

    expect((await list('project_id=3', server.tokens.partial)).status).toBe(404);
    expect((await list('item_id=2001', server.tokens.partial)).status).toBe(404);
    for (const bad of [
      'after=-1',
      'limit=501',
      'limit=0',
      'wait=31',
      'types=item.deleted',
      'types=comment.created,',
      'project_id=01',
      'since=1',
    ]) {
      const refused = await list(bad);
      expect(refused.status, bad).toBe(422);
      expect(refused.body.error.code).toBe('validation_error');
    }
    const token = await server.ctx.tokens.createToken({
      userId: USERS.manager,
      name: 'no events',
      scopes: scopesExcept('events:read'),
      expiresAt: null,
    });
    const missing = await list('', token.token);
    expect(missing.status).toBe(403);
    expect(missing.body.error.code).toBe('scope_missing');
  });
});
