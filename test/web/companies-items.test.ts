import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import type { UserKey } from '../helpers/workspace.js';
import { signedInClients } from './web-client.js';

/**
 * The item's "Company" (docs/design.md §20) in the web for every role, the project page's column, filter and sort, and
 * cached v1 reads (card and tree) showing a change at once.
 */
let server: TestServer;
const as = signedInClients(() => server.url);
const admin = { id: 1, role: 'admin' as const };
let sparks: { id: number; name: string };
let dry: { id: number; name: string };

const card = async (id: number, user: UserKey = 'manager') =>
  (await server.call(`${V1}/items/get.php?id=${id}`, { token: server.tokens[user] })).body.data.item;
const treeItem = async (id: number) => {
  const tree = (await server.call(`${V1}/projects/tree.php?id=1`, { token: server.tokens.manager })).body.data;
  return tree.sections.flatMap((s: any) => s.checklists.flatMap((c: any) => c.items)).find((i: any) => i.id === id);
};

beforeAll(async () => {
  server = await startTestServer();
  const ref = ({ id, name }: { id: number; name: string }) => ({ id, name });
  sparks = ref(await server.ctx.companies.createCompany(admin, { name: 'Sparks Ltd', trade: 'Electrical' }));
  dry = ref(await server.ctx.companies.createCompany(admin, { name: 'Drywall Co', trade: 'Drywall' }));
});
afterAll(() => server.close());

describe('the item forms’ "Company"', () => {
  it('is offered to managers and admins in "Edit item" and "Add item", and saved through the write path', async () => {
    for (const user of ['manager', 'admin'] as const) {
      const web = await as(user);
      const page = await web.get('/items/1001');
      expect(page.text).toMatch(/<label for="edit-company">Company<\/label>\s*<select id="edit-company" name="company"/);
      expect(page.text).toContain('<option value="">No company</option>');
      const company = user === 'manager' ? sparks : dry;
      const saved = await web.post('/items/1001/edit', { text: 'Item 1001', company: String(company.id) }, page.text);
      expect(saved.status).toBe(303);
      expect((await card(1001)).responsible_company).toEqual(company);
      expect((await web.get('/items/1001')).text).toMatch(new RegExp(`data-testid="item-company">${company.name}<`));
    }
    const web = await as('manager');
    const form = await web.get('/projects/1/items/new');
    expect(form.text).toMatch(/<label for="item-company">Company<\/label>/);
  });

  it('answers 422 beside the field for an unknown or retired company, changing nothing', async () => {
    const web = await as('manager');
    const before = await card(1001);
    for (const value of ['999999', 'abc']) {
      const page = await web.get('/items/1001');
      const refused = await web.post('/items/1001/edit', { text: 'Changed', company: value }, page.text);
      expect(refused.status).toBe(422);
      expect(refused.text).toContain('href="#edit-company"');
    }
    const after = await card(1001);
    expect(after.text).toBe(before.text);
    expect(after.responsible_company).toEqual(before.responsible_company);
  });

  it('is the 403 page for executors, observers and partial members, who are not offered it', async () => {
    const before = await card(1000);
    for (const user of ['executor', 'observer', 'partial'] as const) {
      const web = await as(user);
      const page = await web.get('/items/1000');
      expect(page.text).not.toContain('id="edit-company"');
      const forged = await web.post('/items/1000/edit', { company: String(sparks.id) }, page.text);
      expect(forged.status).toBe(403);
    }
    expect((await card(1000)).responsible_company).toEqual(before.responsible_company);
  });
});

describe('the project page', () => {
  it('shows the company and whose move it is, filters by both and sorts by company', async () => {
    await server.ctx.itemWrites.setCompany(admin, 1010, sparks.id);
    const web = await as('manager');
    const page = await web.get('/projects/1');
    expect(page.text).toContain('<th scope="col">Company</th><th scope="col">Ball in court</th>');
    expect(page.text).toMatch(/<label for="filter-ball">Ball in court<\/label>/);
    const byCompany = await web.get(`/projects/1?company=${sparks.id}`);
    const ids = [...byCompany.text.matchAll(/data-testid="item-row" data-item-id="(\d+)"/g)].map((m) => Number(m[1]));
    expect(ids.sort()).toEqual([1010]);
    const review = await web.get('/projects/1?ball=review');
    const reviewIds = [...review.text.matchAll(/data-testid="item-row" data-item-id="(\d+)"/g)].map((m) => Number(m[1]));
    // Done without a verdict (1010, 2000) or an answer waiting for review (1000).
    expect(reviewIds.sort()).toEqual([1000, 1010, 2000]);
    const sorted = await web.get('/projects/1?sort=company');
    expect(sorted.status).toBe(200);
  });
});

describe('cached v1 reads', () => {
  it('show a new responsible company and whose move it is at once, in the card and in the tree', async () => {
    const first = await card(2001);
    const again = await card(2001);
    expect(again).toEqual(first);
    await treeItem(2001);
    await server.ctx.itemWrites.setCompany(admin, 2001, dry.id);
    expect((await card(2001)).responsible_company).toEqual(dry);
    expect(await treeItem(2001)).toMatchObject({ responsible_company: dry, ball_in_court: 'company' });
    await server.ctx.answers.addAnswer({ id: 2, role: 'member', name: 'Manager' }, 2001, { text: 'Fixed' });
    expect(await treeItem(2001)).toMatchObject({ ball_in_court: 'review' });
    expect((await card(2001)).ball_in_court).toBe('review');
  });
});

describe('"Dispute" and "Resolve dispute"', () => {
  it('lets the item’s executor dispute it and a manager resolve it; refuses everybody else with 403', async () => {
    await server.ctx.itemWrites.setCompany(admin, 1000, sparks.id);
    // Not on the item, or not an executor of it: no form, and a forged post is the 403 page.
    for (const user of ['bystander', 'observer', 'manager'] as const) {
      const web = await as(user);
      const page = await web.get('/items/1000');
      expect(page.text).not.toContain('Dispute item</button>');
      expect((await web.post('/items/1000/dispute', { reason: 'Not ours' }, page.text)).status).toBe(403);
    }
    const executor = await as('executor');
    let page = await executor.get('/items/1000');
    expect(page.text).toMatch(/<label for="dispute-reason">Reason<\/label>/);
    const empty = await executor.post('/items/1000/dispute', { reason: ' ' }, page.text);
    expect(empty.status).toBe(422);
    page = await executor.get('/items/1000');
    expect((await executor.post('/items/1000/dispute', { reason: 'Not electrical' }, page.text)).status).toBe(303);
    expect((await card(1000)).disputed).toMatchObject({ reason: 'Not electrical' });
    // An executor cannot resolve it.
    page = await executor.get('/items/1000');
    expect(page.text).not.toContain('Resolve dispute</button>');
    expect((await executor.post('/items/1000/resolve-dispute', { note: 'Mine', company: '' }, page.text)).status).toBe(403);

    const manager = await as('manager');
    page = await manager.get('/items/1000');
    expect(page.text).toMatch(/<label for="resolve-company">Company<\/label>/);
    expect(page.text).toMatch(/<label for="resolve-note">Note<\/label>/);
    const noNote = await manager.post('/items/1000/resolve-dispute', { note: '', company: String(dry.id) }, page.text);
    expect(noNote.status).toBe(422);
    page = await manager.get('/items/1000');
    const resolved = await manager.post('/items/1000/resolve-dispute', { note: 'Drywall then', company: String(dry.id) }, page.text);
    expect(resolved.status).toBe(303);
    expect(await card(1000)).toMatchObject({ disputed: null, responsible_company: dry });
    expect((await manager.get('/items/1000')).text).toContain('resolved the dispute');
  });
});
