import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import type { UserKey } from '../helpers/workspace.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  // A comment and an answer link with text worth finding.
  await server.call(`${V1}/comments/create.php`, {
    method: 'POST',
    token: server.tokens.manager,
    json: { item_id: 1001, text: 'Needs 100% check_of "quotes" and back\\slash' },
  });
  await server.call(`${V1}/answers/create.php`, {
    method: 'POST',
    token: server.tokens.executor,
    json: {
      item_id: 1001,
      text: 'Answer with a link',
      document_links: [{ kind: 'spreadsheet', title: 'Budget sheet', url: 'https://example.test/budget' }],
    },
  });
});
afterAll(() => server.close());

const search = (who: UserKey, query: string) => server.call(`${V1}/projects/search.php?${query}`, { token: server.tokens[who] });
const kinds = (hits: { entity_type: string; entity_id: number }[]) => hits.map((h) => `${h.entity_type}:${h.entity_id}`);

describe('GET projects/search.php', () => {
  it('finds every kind of entity with the docs/design.md hit shape', async () => {
    const cases: [string, string][] = [
      ['plant', 'project:1'],
      ['yearly audit', 'project:1'],
      ['safety', 'section:10'],
      ['permits', 'checklist:200'],
      ['extinguishers', 'item:1000'],
      ['description of item 1011', 'item:1011'],
      ['on it', 'comment:5000'],
      ['see act', 'answer:7000'],
      ['example.test/plan', 'link:1'],
      ['budget sheet', 'link:'],
    ];
    for (const [q, expected] of cases) {
      const res = await search('manager', `id=1&q=${encodeURIComponent(q)}`);
      expect(res.status, q).toBe(200);
      expect(
        kinds(res.body.data.hits).some((k) => k.startsWith(expected)),
        `${q} → ${kinds(res.body.data.hits)}`,
      ).toBe(true);
    }
    const item = (await search('manager', 'id=1&q=extinguishers')).body.data.hits[0];
    expect(item).toEqual({
      item_id: 1000,
      entity_type: 'item',
      entity_id: 1000,
      project_id: 1,
      title: 'Extinguishers checked',
      snippet: expect.any(String),
    });
    const project = (await search('manager', 'id=1&q=plant')).body.data.hits[0];
    expect(project.item_id).toBeNull();
  });

  it('folds case with Unicode lower-casing, Cyrillic included, ё and е distinct', async () => {
    const res = await search('manager', `id=1&q=${encodeURIComponent('ДОКУМЕНТ')}`);
    expect(kinds(res.body.data.hits)).toContain('item:2000');
    const short = await search('manager', `id=1&q=${encodeURIComponent('ПР')}`);
    expect(kinds(short.body.data.hits)).toContain('item:2000');
    const yo = await search('manager', `id=1&q=${encodeURIComponent('докумёнт')}`);
    expect(yo.body.data.total).toBe(0);
  });

  it('treats %, _, quotes and backslashes as literal characters', async () => {
    for (const q of ['100%', 'check_of', '"quotes"', 'back\\slash']) {
      const res = await search('manager', `id=1&q=${encodeURIComponent(q)}`);
      expect(kinds(res.body.data.hits), q).toEqual([expect.stringMatching(/^comment:/)]);
    }
    for (const q of ['%', '_', '%%%', "'", '"', '\\']) {
      const res = await search('manager', `id=1&q=${encodeURIComponent(q)}`);
      expect(res.status, q).toBe(200);
      for (const hit of res.body.data.hits) expect(`${hit.title} ${hit.snippet}`.toLowerCase(), q).toContain(q.toLowerCase());
    }
  });

  it('filters by entity type and narrows to one item, listing all of it without q', async () => {
    const items = await search('manager', 'id=1&q=item&entity_type=item');
    expect(items.body.data.hits.every((h: { entity_type: string }) => h.entity_type === 'item')).toBe(true);
    expect(items.body.data.total).toBeGreaterThan(3);
    const all = await search('manager', 'id=1&item_id=1000');
    expect(kinds(all.body.data.hits)).toEqual(expect.arrayContaining(['item:1000', 'comment:5000', 'answer:7000', 'answer:7001']));
    expect(kinds(all.body.data.hits)[0]).toBe('item:1000');
    const blank = await search('manager', 'id=1&item_id=1000&q=%20%20');
    expect(blank.body.data.total).toBe(all.body.data.total);
    const narrowed = await search('manager', 'id=1&item_id=1000&q=on%20it');
    expect(kinds(narrowed.body.data.hits)).toEqual(['comment:5000']);
  });

  it('pages with limit and offset and a stable order', async () => {
    const full = await search('manager', 'id=1&q=e&limit=200');
    const page = await search('manager', 'id=1&q=e&limit=3&offset=2');
    expect(page.body.data).toMatchObject({ total: full.body.data.total, limit: 3, offset: 2 });
    expect(page.body.data.hits).toEqual(full.body.data.hits.slice(2, 5));
    expect((await search('manager', 'id=1&q=e&limit=200')).body.data.hits).toEqual(full.body.data.hits);
  });

  it('shows only what the user can see, and counts only that', async () => {
    const partial = await search('partial', 'id=1&q=item&limit=200');
    const ids = partial.body.data.hits.map((h: { item_id: number | null }) => h.item_id).filter((id: number | null) => id !== null);
    for (const hidden of [2000, 2001]) expect(ids).not.toContain(hidden);
    expect(ids).toEqual(expect.arrayContaining([1000, 1001, 1010, 1011, 2010]));
    const manager = await search('manager', 'id=1&q=item&limit=200');
    expect(partial.body.data.total).toBeLessThan(manager.body.data.total);
    expect(kinds((await search('partial', `id=1&q=${encodeURIComponent('документ')}`)).body.data.hits)).toEqual([]);
    expect(kinds((await search('partial', 'id=1&q=permits')).body.data.hits)).toEqual([]);
    expect((await search('partial', 'id=1&item_id=2000')).status).toBe(404);
  });

  it('answers 422 and 404 as docs/design.md says', async () => {
    expect((await search('manager', 'id=1')).body.error).toMatchObject({
      code: 'validation_error',
      message: 'q: is required unless item_id is given',
    });
    expect((await search('manager', 'id=1&q=%20')).status).toBe(422);
    expect((await search('manager', 'q=plant')).status).toBe(422);
    expect((await search('manager', 'id=1&q=x&entity_type=widget')).status).toBe(422);
    expect((await search('manager', 'id=1&q=x&limit=0')).status).toBe(422);
    expect((await search('manager', 'id=1&item_id=abc')).status).toBe(422);
    expect((await search('outsider', 'id=1&q=plant')).status).toBe(404);
    expect((await search('manager', 'id=3&q=hidden')).status).toBe(404);
    expect((await search('manager', 'id=1&item_id=4000')).status).toBe(404);
    expect((await search('manager', 'id=1&item_id=3000')).status).toBe(404);
    const noScope = await server.ctx.tokens.createToken({ userId: 2, name: 'read only', scopes: ['projects:read'], expiresAt: null });
    expect((await server.call(`${V1}/projects/search.php?id=1&q=x`, { token: noScope.token })).body.error.code).toBe('scope_missing');
  });

  it('keeps the index in step with writes', async () => {
    await server.call(`${V1}/items/links.php`, {
      method: 'PUT',
      token: server.tokens.manager,
      json: { id: 1010, document_links: [{ title: 'Evacuation map', url: 'https://example.test/map' }] },
    });
    expect(kinds((await search('manager', 'id=1&q=evacuation')).body.data.hits)).toEqual([expect.stringMatching(/^link:/)]);
    await server.call(`${V1}/items/links.php`, { method: 'PUT', token: server.tokens.manager, json: { id: 1010, document_links: [] } });
    expect((await search('manager', 'id=1&q=evacuation')).body.data.total).toBe(0);
  });

  it('finds a comment by the very next search after its 201, while the indexer runs (docs/design.md §10)', async () => {
    // Back to back, faster than the background indexer's turn: each comment is found at once, and
    // only once, whether FTS5 already holds it or search reads it from the queue.
    for (let i = 0; i < 30; i += 1) {
      const word = `zq${i}marker${Date.now().toString(36)}`;
      const created = await server.call(`${V1}/comments/create.php`, {
        method: 'POST',
        token: server.tokens.manager,
        json: { item_id: 1001, text: `Found at once ${word}` },
      });
      expect(created.status).toBe(201);
      const found = await search('manager', `id=1&q=${word}`);
      expect(kinds(found.body.data.hits), word).toEqual([`comment:${created.body.data.comment.id}`]);
    }
  });
});
