import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { USERS } from '../helpers/workspace.js';
import { signedInClients } from '../web/web-client.js';

/**
 * Search by company name (docs/design.md §20, docs/search.md): v1 `projects/search` and the project page's text filter
 * find items by the name of the company that holds them; a member limited to their company's items finds only those.
 */
let server: TestServer;
const admin = { id: USERS.admin, role: 'admin' as const };
const as = signedInClients(() => server.url);
let limitedToken = '';

const search = async (q: string, token = server.tokens.manager, extra = '') =>
  (await server.call(`${V1}/projects/search.php?id=1&q=${encodeURIComponent(q)}${extra}`, { token })).body.data;

beforeAll(async () => {
  server = await startTestServer();
  const sparks = await server.ctx.companies.createCompany(admin, { name: 'Sparks Électrique', trade: 'Electrical' });
  const dry = await server.ctx.companies.createCompany(admin, { name: 'Drywall Co', trade: 'Drywall' });
  await server.ctx.itemWrites.setCompany(admin, 1000, sparks.id);
  await server.ctx.itemWrites.setCompany(admin, 2001, sparks.id);
  await server.ctx.itemWrites.setCompany(admin, 1010, dry.id);
  // The bystander (executor of project 1) becomes a Drywall member limited to Drywall's items.
  await server.ctx.companies.setUserCompany(admin, USERS.bystander, dry.id);
  await server.ctx.members.setMember(admin, 1, {
    userId: USERS.bystander,
    role: 'executor',
    limited: false,
    sectionIds: [],
    checklistIds: [],
    companyItemsOnly: true,
  });
  limitedToken = server.tokens.bystander;
});
afterAll(() => server.close());

describe('search by company name', () => {
  it('v1 projects/search finds the items a company holds, case-insensitively, after the text matches, with the name as snippet', async () => {
    const found = await search('sparks é');
    expect(found.total).toBe(2);
    expect(found.hits.map((h: any) => [h.entity_type, h.entity_id, h.item_id, h.snippet])).toEqual([
      ['item', 1000, 1000, 'Sparks Électrique'],
      ['item', 2001, 2001, 'Sparks Électrique'],
    ]);
    expect((await search('SPARKS', server.tokens.manager, '&entity_type=comment')).total).toBe(0);
    expect((await search('drywall')).hits.map((h: any) => h.entity_id)).toEqual([1010]);
    // `%` and `_` are plain characters here too.
    expect((await search('%')).hits.filter((h: any) => h.snippet === 'Sparks Électrique')).toEqual([]);
  });

  it('finds an item once when its text matches too, ranked as a text match', async () => {
    await server.ctx.itemWrites.setCompany(
      admin,
      1001,
      (await server.ctx.companies.listCompanies()).find((c) => c.name === 'Drywall Co')!.id,
    );
    const found = await search('item');
    const ids = found.hits.filter((h: any) => h.entity_type === 'item').map((h: any) => h.entity_id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives a member limited to their company’s items only those', async () => {
    expect((await search('sparks', limitedToken)).total).toBe(0);
    const own = await search('drywall', limitedToken);
    expect(own.hits.map((h: any) => h.entity_id).sort()).toEqual([1001, 1010]);
  });

  it('the project page’s text filter finds the items by company name, and only the visible ones', async () => {
    const manager = await as('manager');
    const page = await manager.get('/projects/1?q=sparks');
    expect(page.status).toBe(200);
    expect(page.text).toContain('href="/items/1000"');
    expect(page.text).toContain('href="/items/2001"');
    expect(page.text).not.toContain('href="/items/1010"');
    const limited = await as('bystander');
    const mine = await limited.get('/projects/1?q=sparks');
    expect(mine.text).not.toContain('href="/items/1000"');
    const theirs = await limited.get('/projects/1?q=drywall');
    expect(theirs.text).toContain('href="/items/1010"');
  });
});
