import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filterQuery } from '../../src/web/views/project-page.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { USERS, type UserKey } from '../helpers/workspace.js';
import { decode, signedInClients } from './web-client.js';

/**
 * The project page's lists (docs/design.md §14): sorting, the participant filter, the participants column, and
 * bulk changes of selected items for every role — one write, audit record and event per item, all or nothing
 * per item, refusals named in the summary, a double submission applied once, bad input answered 422.
 */
let server: TestServer;
const as = signedInClients(() => server.url);

const card = async (id: number) => (await server.call(`${V1}/items/get.php?id=${id}`, { token: server.tokens.admin })).body.data.item;
const rowIds = (page: string) => [...page.matchAll(/data-testid="item-row" data-item-id="(\d+)"/g)].map((m) => Number(m[1]));
const keyOf = (page: string) => /<form id="bulk"[\s\S]*?name="_key" value="([^"]+)"/.exec(page)![1]!;
const eventsOf = (itemIds: number[]) =>
  server.ctx.db.kysely.selectFrom('events').select(['type', 'item_id', 'actor_id']).where('item_id', 'in', itemIds).orderBy('id').execute();

/** Posts the bulk form of /projects/<project><query> as `user`, with the page's CSRF token and idempotency key. */
async function bulk(user: UserKey, fields: Record<string, string | string[]>, project = 1, query = '') {
  const web = await as(user);
  const page = await web.get(`/projects/${project}${query}`);
  const key = page.text.includes('id="bulk"') ? keyOf(page.text) : '00000000-0000-4000-8000-000000000000';
  const csrfFrom = page.text.includes('name="_csrf"') ? page.text : (await web.get('/profile')).text;
  return web.post(`/projects/${project}/bulk${query}`, { _key: key, ...fields }, csrfFrom);
}

beforeAll(async () => {
  server = await startTestServer();
  // Deadlines and an update to sort by: 2010 due first, 1001 next (fixture), the rest without one.
  for (const [id, deadline] of [[2010, '2026-05-01']] as const) {
    const set = await server.call(`${V1}/items/planning.php`, { token: server.tokens.admin, method: 'PATCH', json: { id, deadline } });
    expect(set.status).toBe(200);
  }
});
afterAll(() => server.close());

describe('sorting and filtering the project list', () => {
  it('keeps the tree order by default, grouped by checklist, with a participants column', async () => {
    const page = (await (await as('manager')).get('/projects/1')).text;
    expect(rowIds(page)).toEqual([1000, 1001, 1010, 1011, 2000, 2001, 2010]);
    expect(page).toContain('<label for="filter-sort">Sort by</label>');
    expect(page).toContain('<label for="filter-participant">Participant</label>');
    expect(page).toContain('<th scope="col">Participants</th>');
    const row1000 = /data-item-id="1000"[\s\S]*?<\/tr>/.exec(page)![0];
    expect(row1000).toContain('<td data-label="Participants" data-testid="item-participants">Executor, Partial</td>');
    // The participant filter offers the project's active members only.
    const select = /<select id="filter-participant"[\s\S]*?<\/select>/.exec(page)![0];
    expect(select).toContain(`<option value="${USERS.observer}" >Observer</option>`);
    expect(select).not.toContain('Inactive');
    expect(select).not.toContain('Outsider');
  });

  it('sorts into one flat list by deadline, priority, status and last update, ties in tree order', async () => {
    const web = await as('manager');
    const sorted = async (sort: string) => (await web.get(`/projects/1?sort=${sort}`)).text;
    const byDeadline = await sorted('deadline');
    expect(rowIds(byDeadline)).toEqual([2010, 1001, 1000, 1010, 1011, 2000, 2001]);
    expect(byDeadline).toContain('<th scope="col">Where</th>');
    expect(byDeadline.match(/<table>/g)).toHaveLength(1);
    expect(rowIds(await sorted('priority'))).toEqual([1001, 1000, 1010, 1011, 2000, 2001, 2010]);
    expect(rowIds(await sorted('status'))).toEqual([1011, 1001, 1000, 2001, 2010, 1010, 2000]);
    const touched = await server.call(`${V1}/items/planning.php`, {
      token: server.tokens.admin,
      method: 'PATCH',
      json: { id: 1011, priority: 'low' },
    });
    expect(touched.status).toBe(200);
    expect(rowIds(await sorted('updated'))[0]).toBe(1011);
    // An unknown sort is the tree order, not an error.
    expect(rowIds(await sorted('<script>'))).toEqual([1000, 1001, 1010, 1011, 2000, 2001, 2010]);
  });

  it('filters by participant, combined with the other filters, and keeps the filter in links and the bulk form', async () => {
    const web = await as('manager');
    expect(rowIds((await web.get(`/projects/1?participant=${USERS.executor}`)).text)).toEqual([1000, 1001]);
    expect(rowIds((await web.get(`/projects/1?participant=${USERS.partial}&status=pending`)).text)).toEqual([1000]);
    const none = await web.get(`/projects/1?participant=${USERS.observer}`);
    expect(none.text).toContain('No item matches these filters.');
    expect(rowIds((await web.get('/projects/1?participant=abc')).text)).toHaveLength(7);
    const query = filterQuery({ status: null, mine: false, overdue: false, q: null, participant: USERS.executor, sort: 'deadline' });
    expect(query).toBe(`?participant=${USERS.executor}&sort=deadline`);
    const page = decode((await web.get(`/projects/1${query}`)).text);
    expect(page).toContain(`action="/projects/1/bulk${query}"`);
    expect(page).toMatch(new RegExp(`<option value="${USERS.executor}" selected>Executor</option>`));
  });
});

describe('bulk changes of selected items', () => {
  it('lets a manager change status, priority and deadline of several items: one write, audit record and event each', async () => {
    const ids = [1010, 2000, 2010];
    const before = await eventsOf(ids);
    const response = await bulk('manager', { items: ids.map(String), status: 'blocked', priority: 'high', deadline: '2027-01-15' });
    expect(response.status).toBe(303);
    expect(response.location).toMatch(/^\/projects\/1\?changed=1010%2C2000%2C2010&unchanged=&refused=$/);
    for (const id of ids) expect(await card(id)).toMatchObject({ status: 'blocked', priority: 'high', deadline: '2027-01-15' });
    const events = (await eventsOf(ids)).slice(before.length);
    expect(events).toEqual(
      ids.flatMap((id) => [
        { type: 'item.status_changed', item_id: id, actor_id: USERS.manager },
        { type: 'item.planning_changed', item_id: id, actor_id: USERS.manager },
      ]),
    );
    const audit = await server.ctx.db.kysely
      .selectFrom('audit_log')
      .select(['entity_type', 'entity_id', 'path', 'status', 'user_id'])
      .where('path', '=', '/projects/1/bulk')
      .orderBy('id')
      .execute();
    expect(audit).toEqual(
      ids.map((id) => ({ entity_type: 'item', entity_id: id, path: '/projects/1/bulk', status: 303, user_id: USERS.manager })),
    );

    const summary = decode((await (await as('manager')).get(response.location!)).text);
    expect(summary).toMatch(/data-testid="bulk-summary"[\s\S]*3 changed; 0 refused\./);
  });

  it('adds and removes a participant on several items, with the item.updated event "Edit item" emits', async () => {
    const ids = [1000, 1001, 1010];
    const page = (await (await as('manager')).get('/projects/1')).text;
    expect(page).toContain('<label for="bulk-add-participant">Add participant</label>');
    expect(page).toContain('<label for="bulk-remove-participant">Remove participant</label>');
    const before = (await eventsOf(ids)).length;
    const response = await bulk('manager', {
      items: ids.map(String),
      add_participant: String(USERS.bystander),
      remove_participant: String(USERS.executor),
    });
    expect(response.status).toBe(303);
    for (const id of ids) {
      const names = (await card(id)).participants.map((p: { id: number }) => p.id);
      expect(names).toContain(USERS.bystander);
      expect(names).not.toContain(USERS.executor);
    }
    const events = await server.ctx.db.kysely
      .selectFrom('events')
      .select(['type', 'item_id', 'data'])
      .where('item_id', 'in', ids)
      .orderBy('id')
      .execute();
    const added = events.slice(before);
    expect(added.map((e) => [e.type, e.item_id])).toEqual(ids.map((id) => ['item.updated', id]));
    expect(JSON.parse(added[0]!.data)).toEqual({
      changes: { participants: { from: [USERS.executor, USERS.partial], to: [USERS.bystander, USERS.partial] } },
    });
    // Someone outside the project cannot be added (422 beside the select); an executor may not change participants (403).
    const outsider = await bulk('manager', { items: ['1000'], add_participant: String(USERS.outsider) });
    expect(outsider.status).toBe(422);
    expect(decode(outsider.text)).toContain('id="bulk-add-participant-error">must be a member of the project</p>');
    expect((await bulk('executor', { items: ['1000'], remove_participant: String(USERS.bystander) })).status).toBe(403);
    expect((await (await as('executor')).get('/projects/1')).text).not.toContain('bulk-add-participant');
    // Back as they were for the tests that follow.
    expect((await bulk('admin', { items: ['1000', '1001'], add_participant: String(USERS.executor) })).status).toBe(303);
    expect((await bulk('admin', { items: ids.map(String), remove_participant: String(USERS.bystander) })).status).toBe(303);
  });

  it('applies a double submission once and shows the same summary', async () => {
    const web = await as('admin');
    const page = await web.get('/projects/1');
    const fields = { _key: keyOf(page.text), items: ['2001'], clear_deadline: '1', priority: 'low' };
    const first = await web.post('/projects/1/bulk', fields, page.text);
    const before = await eventsOf([2001]);
    const second = await web.post('/projects/1/bulk', fields, page.text);
    expect([first.status, second.status]).toEqual([303, 303]);
    expect(second.location).toBe(first.location);
    expect(await eventsOf([2001])).toEqual(before);
    expect(await card(2001)).toMatchObject({ deadline: null, priority: 'low' });
  });

  it('lets an executor change the status of the items they take part in and names the others refused', async () => {
    const page = (await (await as('executor')).get('/projects/1')).text;
    expect(page).toContain('<label for="bulk-status">New status</label>');
    expect(page).not.toContain('bulk-priority');
    expect(page).toMatch(/<label for="select-1000" class="sr-only">Select “Extinguishers checked”<\/label>/);
    const response = await bulk('executor', { items: ['1001', '2001'], status: 'done' });
    expect(response.status).toBe(303);
    expect(await card(1001)).toMatchObject({ status: 'done' });
    expect(await card(2001)).toMatchObject({ status: 'pending' });
    const summary = decode((await (await as('executor')).get(response.location!)).text);
    expect(summary).toContain('1 changed; 1 refused:');
    expect(summary).toContain('#2001 ‘Item 2001’</a> — You are not allowed to perform this operation on this item');
  });

  it('answers 403 and changes nothing when a role posts a change it may not make', async () => {
    const cases: [UserKey, Record<string, string>][] = [
      ['executor', { priority: 'low' }],
      ['bystander', { deadline: '2027-02-02' }],
      ['observer', { status: 'done' }],
      ['partial', { clear_deadline: '1' }],
    ];
    for (const [user, change] of cases) {
      const events = await eventsOf([1000, 2010]);
      const response = await bulk(user, { items: ['1000', '2010'], ...change });
      expect(response.status, user).toBe(403);
      expect(await eventsOf([1000, 2010]), user).toEqual(events);
    }
    expect((await (await as('observer')).get('/projects/1')).text).not.toContain('id="bulk"');
    // Outside the project it does not exist; in an archived one nothing can change.
    expect((await bulk('outsider', { items: ['1000'], status: 'done' })).status).toBe(404);
    expect((await bulk('manager', { items: ['3000'], status: 'pending' }, 2)).status).toBe(403);
    expect(await card(3000)).toMatchObject({ status: 'done' });
  });

  it('refuses, item by item, what a limited member cannot see and changes the rest', async () => {
    const response = await bulk('admin', { items: ['1000', '4000'], status: 'in_progress' });
    expect(response.status).toBe(303);
    expect(response.location).toContain('changed=1000&unchanged=&refused=4000%3Anot_found');
    const summary = decode((await (await as('admin')).get(response.location!)).text);
    expect(summary).toContain('#4000 — The item was not found in this project');
    expect(await card(4000)).toMatchObject({ status: 'pending' });
    // Partial sees 1000 (section 10) but not 2000 (checklist 200): its participation in 1000 lets it change that one.
    const partial = await bulk('partial', { items: ['1000', '2000'], status: 'blocked' });
    expect(partial.location).toContain('changed=1000&unchanged=&refused=2000%3Anot_found');
    const same = await bulk('partial', { items: ['1000'], status: 'blocked' });
    expect(same.location).toContain('changed=&unchanged=1000&refused=');
  });

  it('shows a refused form again (422) with what was sent and the message beside the field', async () => {
    const cases: [Record<string, string | string[]>, string, RegExp][] = [
      [{ status: 'done' }, 'bulk-items', /select at least one item/],
      [{ items: ['1010'] }, 'bulk-change', /choose at least one change/],
      [{ items: ['1010', '1011'], deadline: '2027-02-30' }, 'bulk-deadline', /must be a real date/],
      [{ items: ['1010'], deadline: '2027-02-01', clear_deadline: '1' }, 'bulk-deadline', /not both/],
      [{ items: ['1010'], status: 'finished' }, 'bulk-status', /choose one of/],
    ];
    for (const [fields, id, message] of cases) {
      const events = await eventsOf([1010, 1011]);
      const response = await bulk('manager', fields);
      expect(response.status, id).toBe(422);
      expect(decode(response.text)).toMatch(new RegExp(`id="${id}-error">[^<]*${message.source}`));
      for (const item of [fields.items ?? []].flat())
        expect(response.text).toMatch(new RegExp(`id="select-${item}" name="items" value="${item}" form="bulk" checked`));
      if (typeof fields.deadline === 'string') expect(response.text).toContain(`value="${fields.deadline}"`);
      expect(await eventsOf([1010, 1011])).toEqual(events);
    }
  });
});
