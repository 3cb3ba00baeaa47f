import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { USERS, type UserKey } from '../helpers/workspace.js';
import { signedInClients } from '../web/web-client.js';

/**
 * Search finds custom field values (docs/design.md §21, docs/search.md): v1 `projects/search` and the project page's
 * text filter find an item by the value of a text or choice field, with the same matching rule as the rest (Unicode
 * lower-casing, every character literal), within what the caller sees; number and date values and retired fields
 * are not searched; an item found in its own text too is one hit.
 */
let server: TestServer;
const as = signedInClients(() => server.url);
const admin = { id: USERS.admin, role: 'admin' as const, name: 'Admin' };

async function search(user: UserKey, q: string, extra = '') {
  const response = await server.call(`${V1}/projects/search.php?id=1&q=${encodeURIComponent(q)}${extra}`, { token: server.tokens[user] });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data as {
    hits: { item_id: number; entity_type: string; entity_id: number; title: string; snippet: string }[];
    total: number;
  };
}

beforeAll(async () => {
  server = await startTestServer();
  const vocabulary = server.ctx.vocabulary;
  const ref = await vocabulary.addField(admin, 1, { name: 'Trade ref', kind: 'text' });
  const severity = await vocabulary.addField(admin, 1, { name: 'Severity', kind: 'choice', options: 'low\nHIGH-risk' });
  const cost = await vocabulary.addField(admin, 1, { name: 'Cost', kind: 'number' });
  const old = await vocabulary.addField(admin, 1, { name: 'Old note', kind: 'text' });
  const set = (itemId: number, values: [number, string][]) =>
    server.ctx.itemEdits.updateItem(admin, itemId, { vocabulary: { values: new Map(values) } });
  await set(1010, [[ref, 'Ёлка Kabel_7%']]);
  await set(2001, [[severity, 'HIGH-risk']]);
  await set(1011, [[cost, '4242']]);
  await set(1000, [[old, 'zebra crossing']]);
  await set(2000, [[ref, 'документов нет']]);
  await vocabulary.retireField(admin, old, true);
});
afterAll(() => server.close());

describe('search by field values', () => {
  it('finds an item by a text field value, case-insensitively and literally, the snippet naming the field', async () => {
    for (const q of ['kabel', 'ЁЛКА', 'l_7%']) {
      const { hits, total } = await search('manager', q);
      expect(total, q).toBe(1);
      expect(hits[0], q).toMatchObject({
        entity_type: 'item',
        entity_id: 1010,
        item_id: 1010,
        title: 'Item 1010',
        snippet: 'Trade ref: Ёлка Kabel_7%',
      });
    }
    expect((await search('manager', 'l%7')).total).toBe(0);
  });

  it('finds by a choice value, within what the caller sees only', async () => {
    expect((await search('manager', 'high-RISK')).hits.map((h) => [h.entity_id, h.snippet])).toEqual([[2001, 'Severity: HIGH-risk']]);
    // The partial executor sees section 10 and checklist 201, not item 2001 (checklist 200).
    expect(await search('partial', 'high-risk')).toMatchObject({ hits: [], total: 0 });
    expect((await search('manager', 'high-risk', '&entity_type=comment')).total).toBe(0);
    expect((await search('manager', 'high-risk', '&entity_type=item')).total).toBe(1);
  });

  it('does not search numbers, dates or retired fields; an item found in its text too is one hit, ranked by its text', async () => {
    expect((await search('manager', '4242')).total).toBe(0);
    expect((await search('manager', 'zebra')).total).toBe(0);
    const { hits } = await search('manager', 'документов');
    expect(hits.filter((h) => h.entity_type === 'item').map((h) => [h.entity_id, h.snippet])).toEqual([[2000, 'Проверка документов']]);
  });

  it('is found by the item_id listing with q, and by the project page text filter', async () => {
    expect((await search('manager', 'kabel', '&item_id=1010')).hits.map((h) => h.entity_id)).toEqual([1010]);
    const web = await as('observer');
    const rowsOf = (text: string) => [...text.matchAll(/data-testid="item-row" data-item-id="(\d+)"/g)].map((m) => Number(m[1]));
    expect(rowsOf((await web.get('/projects/1?q=KABEL')).text)).toEqual([1010]);
    expect(rowsOf((await web.get('/projects/1?q=high-risk')).text)).toEqual([2001]);
    expect(rowsOf((await web.get('/projects/1?q=4242')).text)).toEqual([]);
  });
});
