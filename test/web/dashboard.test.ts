import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { USERS } from '../helpers/workspace.js';
import { decode, signedInClients } from './web-client.js';

/**
 * The dashboards (docs/design.md §23) over HTTP, for each role: the navigation's link for those who manage, the
 * charts as `svg role="img"` named and beside a table of their numbers, each figure a link to a list of exactly
 * as many items, figures of what the reader sees only.
 */
let server: TestServer;
const as = signedInClients(() => server.url);

beforeAll(async () => {
  server = await startTestServer();
  // One item done and accepted, one overdue: every figure of the fixture's project 1 has something to count.
  const admin = { id: USERS.admin, role: 'admin' as const };
  await server.ctx.itemWrites.setStatus(admin, 1011, 'done');
  await server.ctx.review.setItemVerdict(admin, 1011, 'accepted');
  const planning = await server.call(`${V1}/items/planning.php`, {
    token: server.tokens.admin,
    method: 'PATCH',
    json: { id: 2010, deadline: '2020-01-01' },
  });
  expect(planning.status).toBe(200);
  // A company holding two items, a category on one with braces and spaces in its name (the link's query is encoded).
  const company = await server.ctx.companies.createCompany(admin, { name: 'Sparks Ltd', trade: 'Electrical' });
  for (const id of [1011, 2010]) await server.ctx.itemWrites.setCompany(admin, id, company.id);
  const category = await server.ctx.vocabulary.addCategory(admin, 1, 'Wiring & {sockets}');
  await server.ctx.itemEdits.updateItem(admin, 2010, { vocabulary: { categoryId: category } });
});
afterAll(() => server.close());

/** Every link of the page's charts and figures (bars, tables' cells, the headline) with the number it shows. */
function figureLinks(page: string): { href: string; value: number }[] {
  const bars = [...page.matchAll(/<g data-href="([^"]+)" data-value="(\d+)"/g)];
  // Not the median's cell: days, not items.
  const cells = [...page.matchAll(/<td(?! data-label="Median)[^>]*><a href="([^"]+)">([\d,]+)<\/a><\/td>/g)];
  const headline = [...page.matchAll(/<a href="([^"]+)"><strong>([\d,]+)<\/strong> (?:open|overdue|accepted)<\/a>/g)];
  return [...bars, ...cells, ...headline].map((m) => ({ href: decode(m[1]!), value: Number(m[2]!.replace(/,/g, '')) }));
}

/** How many items the project list shows for a link (its own count, or the rows of a one-page list). */
async function listed(web: Awaited<ReturnType<typeof as>>, href: string): Promise<number> {
  const page = (await web.get(href)).text;
  const total = /\((\d+) items?\)/.exec(page) ?? /<p class="muted">(\d+) items?\.<\/p>/.exec(page);
  if (total) return Number(total[1]);
  return page.includes('data-testid="item-row"') ? [...page.matchAll(/data-testid="item-row"/g)].length : 0;
}

describe('the dashboard pages', () => {
  it('shows "Dashboard" in the navigation to managers and admins, not to executors or observers', async () => {
    for (const [user, shown] of [
      ['admin', true],
      ['manager', true],
      ['executor', false],
      ['observer', false],
    ] as const) {
      const page = (await (await as(user)).get('/projects')).text;
      expect(page.includes('<a href="/dashboard"'), user).toBe(shown);
    }
  });

  it('draws each chart as a named svg beside a table of its numbers, and every figure opens a list of as many items', async () => {
    const web = await as('manager');
    const res = await web.get('/projects/1/dashboard');
    expect(res.status).toBe(200);
    const page = res.text;
    const charts = [...page.matchAll(/<svg role="img" aria-labelledby="([^"]+)"/g)].map((m) => m[1]);
    expect(charts).toEqual(['status-title', 'weeks-title', 'ball-title', 'company-title', 'category-title']);
    for (const id of charts) expect(page).toMatch(new RegExp(`id="${id}"><h2>[^<]+</h2>`));
    expect([...page.matchAll(/<table class="chart-numbers">/g)]).toHaveLength(5);
    const links = figureLinks(page);
    expect(links.length).toBeGreaterThan(20);
    const checked = new Map<string, number>();
    for (const { href, value } of links) {
      const count = checked.get(href) ?? (await listed(web, href));
      checked.set(href, count);
      expect(count, href).toBe(value);
    }
    expect(checked.get('/projects/1?accepted=all')).toBe(1);
    expect(checked.get('/projects/1?overdue=1')).toBeGreaterThanOrEqual(1);
    expect(checked.get('/projects/1?ball=none')).toBe(1);
    expect([...checked.keys()].filter((href) => /^\/projects\/1\?company=\d+$/.test(href)).map((href) => checked.get(href))).toEqual([2]);
    expect(checked.get('/projects/1?category=Wiring%20%26%20%7Bsockets%7D')).toBe(1);
    // No company, no category: a number without a link (no filter lists them).
    expect(page).toMatch(/<th scope="row">No company<\/th><td>\d+<\/td>/);
    expect(page).toContain('>Wiring &amp; {sockets}</text>');
    expect(page).toMatch(/<a href="\/projects\/1\?accepted=all"><strong>1<\/strong> accepted<\/a>/);
  });

  it('counts only what the reader sees, and a project they are not in is not found', async () => {
    const total = async (user: 'manager' | 'partial') =>
      Number(/([\d,]+) items you can see/.exec((await (await as(user)).get('/projects/1/dashboard')).text)![1]);
    expect(await total('partial')).toBeLessThan(await total('manager'));
    expect((await (await as('outsider')).get('/projects/1/dashboard')).status).toBe(404);
  });

  it("across projects: a chart and a row per project the reader sees, each figure a link to that project's list", async () => {
    const web = await as('manager');
    const page = (await web.get('/dashboard')).text;
    expect(page).toContain('aria-current="page">Dashboard</a>');
    expect(page).toContain('data-testid="chart-open"');
    expect(page).toContain('data-testid="dashboard-projects"');
    for (const table of ['ball', 'companies', 'categories']) expect(page).toContain(`data-testid="dashboard-${table}"`);
    expect(page).toContain('<a href="#companies">');
    // The totals open the table by project (#projects); each of its figures, and each bar, a project's list.
    const links = figureLinks(page).filter((l) => !l.href.startsWith('#'));
    expect(links.length).toBeGreaterThanOrEqual(8);
    for (const { href, value } of links) expect(await listed(web, href), href).toBe(value);
    const outsider = (await (await as('outsider')).get('/dashboard')).text;
    expect(outsider).toContain('You are not a member of an active project.');
  });

  it('keeps a dashboard filter in the project list\'s form, named, until "Clear"', async () => {
    const page = (await (await as('manager')).get('/projects/1?accepted=all')).text;
    expect(page).toContain('<input type="hidden" name="accepted" value="all">');
    expect(page).toContain('data-testid="dashboard-filter">Accepted');
  });
});
