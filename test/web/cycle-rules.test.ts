import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/shared/clock.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { USERS, type UserKey } from '../helpers/workspace.js';
import { decode, signedInClients } from './web-client.js';

/**
 * The punch-list cycle's rules as the web forms apply them (issue 46, item 7), over real HTTP: one deadline rule
 * for "Add item", planning, bulk changes and "Return to rework"; the navigation's counts on the pages a refused
 * form shows.
 */
let server: TestServer;
const as = signedInClients(() => server.url);
// 09:00 UTC: still the 9th in the earliest time zone (UTC−12), so the 9th is the earliest deadline a form takes.
const now = new Date('2027-03-10T09:00:00.000Z');
const clock: Clock = { now: () => new Date(now) };

const card = async (id: number) => (await server.call(`${V1}/items/get.php?id=${id}`, { token: server.tokens.admin })).body.data.item;
/** The message shown beside the field `id` of a re-rendered form. */
const messageOf = (page: string, id: string) =>
  decode(new RegExp(`<p class="field-error" id="${id}-error">([^<]*)</p>`).exec(page)?.[1] ?? '');

async function submit(user: UserKey, pagePath: string, action: string, fields: Record<string, string | string[]>) {
  const web = await as(user);
  const page = await web.get(pagePath);
  return web.post(action, fields, page.text);
}

async function addItem(fields: Record<string, string>) {
  const web = await as('manager');
  const page = await web.get('/projects/1/items/new');
  const form = new FormData();
  for (const [name, value] of Object.entries({ text: 'Door closer loose', checklist: '100', ...fields })) form.append(name, value);
  return web.postMultipart('/projects/1/items', form, page.text);
}

beforeAll(async () => {
  server = await startTestServer({ clock });
  // The notifications consumer starts from the events recorded after its first pass.
  await server.ctx.notificationWorker.drainNow();
});
afterAll(() => server.close());

describe('one deadline rule for every form', () => {
  it('refuses a date that has passed everywhere, with the same message in each form, and changes nothing', async () => {
    const passed = '2027-03-08';
    const before = await card(1001);
    const create = await addItem({ deadline: passed });
    const planning = await submit('manager', '/items/1001', '/items/1001/planning', { deadline: passed, priority: 'low' });
    const bulk = await submit('manager', '/projects/1', '/projects/1/bulk', { items: '1001', deadline: passed });
    const rework = await submit('manager', '/items/1010', '/items/1010/rework', { reason: 'Redo', deadline: passed });
    expect([create.status, planning.status, bulk.status, rework.status]).toEqual([422, 422, 422, 422]);
    const messages = [
      messageOf(create.text, 'item-deadline'),
      messageOf(planning.text, 'planning-deadline'),
      messageOf(bulk.text, 'bulk-deadline'),
      messageOf(rework.text, 'rework-deadline'),
    ];
    expect(messages).toEqual(Array(4).fill('must be today or later (2027-03-09 or after)'));
    expect(await card(1001)).toEqual(before);
    expect((await card(1010)).status).toBe('done');
  });

  it('refuses a date that is not a real one the same way everywhere, and takes one written with spaces around', async () => {
    const bad = '2027-02-30';
    const create = await addItem({ deadline: bad });
    const planning = await submit('manager', '/items/1001', '/items/1001/planning', { deadline: bad, priority: 'low' });
    const bulk = await submit('manager', '/projects/1', '/projects/1/bulk', { items: '1001', deadline: bad });
    const rework = await submit('manager', '/items/1010', '/items/1010/rework', { reason: 'Redo', deadline: bad });
    const messages = [
      messageOf(create.text, 'item-deadline'),
      messageOf(planning.text, 'planning-deadline'),
      messageOf(bulk.text, 'bulk-deadline'),
      messageOf(rework.text, 'rework-deadline'),
    ];
    expect(messages).toEqual(Array(4).fill('must be a real date written YYYY-MM-DD, or empty to clear it'));

    const created = await addItem({ deadline: ' 2027-03-09 ' });
    expect(created.status).toBe(303);
    expect((await card(Number(/\/items\/(\d+)/.exec(created.location!)![1]))).deadline).toBe('2027-03-09');
    expect((await submit('manager', '/items/1000', '/items/1000/planning', { deadline: ' 2027-04-01', priority: 'low' })).status).toBe(303);
    expect((await card(1000)).deadline).toBe('2027-04-01');
  });

  it("keeps an item's passed deadline when its other planning changes; v1 keeps its contract (any real date)", async () => {
    // The fixture's 1001 is due 2026-06-30, long passed by the clock.
    expect((await card(1001)).deadline).toBe('2026-06-30');
    const kept = await submit('manager', '/items/1001', '/items/1001/planning', { deadline: '2026-06-30', priority: 'low' });
    expect(kept.status).toBe(303);
    expect(await card(1001)).toMatchObject({ deadline: '2026-06-30', priority: 'low' });
    const v1 = await server.call(`${V1}/items/planning.php`, {
      token: server.tokens.admin,
      method: 'PATCH',
      json: { id: 1011, deadline: '2026-01-05' },
    });
    expect(v1.status).toBe(200);
    expect((await card(1011)).deadline).toBe('2026-01-05');
  });

  it('requires a rework deadline, and the date inputs offer no earlier day than the rule takes', async () => {
    const empty = await submit('manager', '/items/1010', '/items/1010/rework', { reason: 'Redo', deadline: ' ' });
    expect(empty.status).toBe(422);
    expect(messageOf(empty.text, 'rework-deadline')).toBe('give a date written YYYY-MM-DD');
    expect(empty.text).toMatch(/id="rework-deadline" type="date" name="deadline" required min="2027-03-09"/);
  });
});

describe('the navigation on a refused form', () => {
  it('keeps "To review" and the unread count on the 422 page', async () => {
    // Something to review (1010 is done without a verdict) and an unread notification for the manager.
    await server.ctx.itemWrites.setStatus({ id: USERS.executor, role: 'member' }, 1000, 'blocked');
    await server.ctx.notificationWorker.drainNow();
    const web = await as('manager');
    const shown = await web.get('/items/1000');
    const counts = (page: string) => ({
      review: /data-testid="review-count">(\d+)</.exec(page)?.[1],
      unread: /data-notification-count\s*>.*?<span data-count>(\d+)<\/span>/.exec(page)?.[1],
    });
    const expected = counts(shown.text);
    expect(Number(expected.review)).toBeGreaterThan(0);
    expect(expected.unread).toBe('1');
    const refused = await web.post('/items/1000/comments', { text: ' ' }, shown.text);
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('>To review <span class="nav-count"');
    expect(counts(refused.text)).toEqual(expected);
    // An error page of a POST (a form the policy refuses) keeps them too.
    const forbidden = await submit('manager', '/items/1000', '/items/3000/status', { status: 'done' });
    expect(forbidden.status).toBe(403);
    expect(counts(forbidden.text)).toEqual(expected);
  });
});

describe('forms and words on every page', () => {
  it('a refused form starts with an error summary linking to each field', async () => {
    const planning = await submit('manager', '/items/1001', '/items/1001/planning', { deadline: '2027-02-30', priority: 'low' });
    expect(planning.status).toBe(422);
    const form = planning.text.slice(planning.text.indexOf('<form method="post" action="/items/1001/planning"'));
    // The summary comes right after the form's hidden guards, before any field.
    expect(form).toMatch(
      /^<form[^>]*>\n<input type="hidden" name="_csrf"[^>]*><input type="hidden" name="_key"[^>]*>\n<div class="error-summary" role="alert"/,
    );
    expect(decode(form)).toMatch(/<li><a href="#planning-deadline">Deadline: must be a real date/);
    // Another page's form, through the same helper: a section name.
    const structure = await submit('manager', '/projects/1/structure', '/projects/1/sections', { name: ' ' });
    expect(structure.status).toBe(422);
    expect(structure.text).toMatch(/<div class="error-summary"[\s\S]*?<a href="#new-section-name">Section name: /);
  });

  it('says "1 item", and the Report page\'s breadcrumb ends on its last link', async () => {
    // partial takes part in one item (1000).
    const mine = await (await as('partial')).get('/my-items');
    expect(mine.text).toContain('<p class="muted">1 item.</p>');
    const report = await (await as('manager')).get('/projects/1/report');
    expect(report.text).toContain(
      '<nav aria-label="Breadcrumb" class="crumbs"><ol><li><a href="/projects">Projects</a></li><li><a href="/projects/1">Plant audit</a></li></ol></nav>',
    );
    expect(report.text).not.toMatch(/›\s*<\/p>/);
  });

  it('"Photos" on Add item is the item page\'s photo control', async () => {
    const add = await (await as('manager')).get('/projects/1/items/new');
    expect(add.text).toContain('<div class="photo-pick"><label for="item-photos" class="button secondary">Photos</label>');
  });
});
