import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solid } from '../helpers/images.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { USERS, type UserKey } from '../helpers/workspace.js';
import { decode, signedInClients } from './web-client.js';

/**
 * The punch-list cycle's forms (docs/design.md §14), role by role: managers and admins raise, edit and structure;
 * executors and observers see none of it and get the 403 page; refusals are 422 with what was typed.
 */
let server: TestServer;
const as = signedInClients(() => server.url);
const admin = { id: USERS.admin, role: 'admin' as const };

async function submit(user: UserKey, pagePath: string, action: string, fields: Record<string, string | string[]>) {
  const web = await as(user);
  const page = await web.get(pagePath);
  return web.post(action, fields, page.text);
}

const card = async (id: number) => (await server.call(`${V1}/items/get.php?id=${id}`, { token: server.tokens.admin })).body.data.item;
const treeOf = async (id: number) => (await server.call(`${V1}/projects/tree.php?id=${id}`, { token: server.tokens.admin })).body.data;
const itemIds = async (projectId: number) =>
  (await treeOf(projectId)).sections.flatMap((s: any) => s.checklists.flatMap((c: any) => c.items.map((i: any) => i.id)));

/** The "Add item" form as a browser sends it: multipart, the page's CSRF token and idempotency key, a photo. */
async function addItem(user: UserKey, projectId: number, fields: Record<string, string | string[]>, photos = 1) {
  const web = await as(user);
  const page = await web.get(`/projects/${projectId}/items/new`);
  const form = new FormData();
  const key = /name="_key" value="([^"]+)"/.exec(page.text)?.[1];
  if (key) form.append('_key', key);
  for (const [name, value] of Object.entries(fields)) for (const v of [value].flat()) form.append(name, v);
  for (let i = 0; i < photos; i++) {
    form.append('attachments[]', new Blob([new Uint8Array(await solid(40, 30, 'png'))], { type: 'image/png' }), `defect-${i}.png`);
  }
  return { page, send: () => web.postMultipart(`/projects/${projectId}/items`, form, page.text) };
}

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('the project page offers structure to managers and admins only', () => {
  it('shows Add item, Add section and Add checklist to them, nothing to executors and observers', async () => {
    for (const user of ['admin', 'manager'] as const) {
      const page = (await (await as(user)).get('/projects/1')).text;
      expect(page).toContain('href="/projects/1/items/new">Add item</a>');
      expect(page).toContain('>Add section</a>');
      expect(page).toContain('>Add checklist</a>');
    }
    for (const user of ['executor', 'observer', 'partial'] as const) {
      const web = await as(user);
      expect((await web.get('/projects/1')).text).not.toContain('data-testid="structure-links"');
      expect((await web.get('/projects/1/items/new')).status).toBe(403);
      expect((await web.get('/projects/1/structure')).status).toBe(403);
      expect((await web.get('/items/1000')).text).not.toContain('action="/items/1000/edit"');
    }
    expect((await (await as('outsider')).get('/projects/1/items/new')).status).toBe(404);
    // An archived project is read-only: no structure links, the forms refused.
    expect((await (await as('manager')).get('/projects/2')).text).not.toContain('data-testid="structure-links"');
    expect((await (await as('manager')).get('/projects/2/items/new')).status).toBe(403);
  });
});

describe('Add item', () => {
  it('raises an item with participants, planning and a photo in one write; lands on its page', async () => {
    const before = await itemIds(1);
    const { page, send } = await addItem('manager', 1, {
      text: 'Crack above the fire door',
      checklist: '101',
      participants: [String(USERS.executor), String(USERS.bystander)],
      priority: 'high',
      deadline: '2099-03-01',
      requires_answer: '1',
      description: 'Photo from the stairs',
    });
    for (const label of ['Text', 'Checklist', 'Participants', 'Priority', 'Deadline', 'Answer required', 'Photos']) {
      expect(page.text, label).toMatch(new RegExp(`<label[^>]* for="[a-z-]+"[^>]*>(<input[^>]+> )?${label}</label>`));
    }
    expect(page.text).toContain('>Create item</button>');
    const response = await send();
    expect(response.status, decode(response.text)).toBe(303);
    const id = Number(/^\/items\/(\d+)\?saved=created$/.exec(response.location!)![1]);
    expect(await itemIds(1)).toEqual(expect.arrayContaining([...before, id]));
    const item = await card(id);
    expect(item).toMatchObject({
      text: 'Crack above the fire door',
      checklist_id: 101,
      priority: 'high',
      deadline: '2099-03-01',
      requires_answer: true,
      description: 'Photo from the stairs',
    });
    expect(item.participants.map((p: any) => p.id)).toEqual([USERS.executor, USERS.bystander]);
    expect(item.attachments).toHaveLength(1);
    expect(item.status_history).toMatchObject([{ kind: 'created', to: 'pending', user: { id: USERS.manager } }]);
    const landed = await (await as('manager')).get(response.location!);
    expect(landed.text).toContain('The item was created.');
    expect(landed.text).toMatch(/<strong>Manager<\/strong> raised the item for Executor, Bystander, with 1 photo/);
    const events = await server.call(`${V1}/events/list.php?item_id=${id}`, { token: server.tokens.manager });
    expect(events.body.data.events.map((e: any) => e.type)).toEqual(['item.created']);
    const records = await server.ctx.audit.list({ userId: USERS.manager, limit: 5 });
    expect(records.find((r) => r.path === '/projects/1/items')).toMatchObject({ status: 303, entity_type: 'project', entity_id: 1 });
  });

  it('is applied once when sent twice (the same form)', async () => {
    const before = (await itemIds(1)).length;
    const { send } = await addItem('admin', 1, { text: 'Sent twice', checklist: '100' });
    const [first, second] = [await send(), await send()];
    expect(first.status).toBe(303);
    expect(second.status).toBe(303);
    expect(second.location).toBe(first.location);
    expect((await itemIds(1)).length).toBe(before + 1);
  });

  it('refuses bad input with 422, what was typed kept beside the message, and creates nothing', async () => {
    const before = await itemIds(1);
    const cases: [Record<string, string | string[]>, RegExp][] = [
      [{ text: '   ', checklist: '100' }, /id="item-text-error"/],
      [{ text: 'Other project', checklist: '300' }, /id="item-checklist-error"[^>]*>[^<]*checklist of this project/],
      [{ text: 'Not a member', checklist: '100', participants: [String(USERS.outsider)] }, /id="item-participants-error"/],
      [{ text: 'Bad date', checklist: '100', deadline: '2099-02-30' }, /id="item-deadline-error"/],
      [{ text: 'No checklist', checklist: '' }, /id="item-checklist-error"/],
    ];
    for (const [fields, message] of cases) {
      const response = await (await addItem('manager', 1, fields, 0)).send();
      expect(response.status, JSON.stringify(fields)).toBe(422);
      expect(response.text).toMatch(message);
      if (String(fields.text).trim()) expect(response.text).toContain(`>${fields.text}</textarea>`);
    }
    // A file that is not an image refuses the whole item: all-or-nothing.
    const web = await as('manager');
    const page = await web.get('/projects/1/items/new');
    const form = new FormData();
    form.append('text', 'Fake photo');
    form.append('checklist', '100');
    form.append('attachments[]', new Blob(['not an image'], { type: 'image/png' }), 'fake.png');
    const refused = await web.postMultipart('/projects/1/items', form, page.text);
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('id="item-photos-error"');
    expect(await itemIds(1)).toEqual(before);
  });

  it('answers the 403 page to an executor or observer who posts it anyway, and creates nothing', async () => {
    const before = await itemIds(1);
    for (const user of ['executor', 'observer'] as const) {
      const web = await as(user);
      const page = await web.get('/items/1001');
      const form = new FormData();
      form.append('text', 'Forged');
      form.append('checklist', '100');
      const response = await web.postMultipart('/projects/1/items', form, page.text);
      expect(response.status).toBe(403);
      expect(response.text).toContain('<h1>Not allowed</h1>');
    }
    expect(await itemIds(1)).toEqual(before);
  });
});

describe('Edit item', () => {
  it('renames, reassigns and moves an item; the timeline and the feed show it', async () => {
    const response = await submit('manager', '/items/2001', '/items/2001/edit', {
      text: 'Permit renewed <b>',
      description: 'At the town hall',
      participants_sent: '1',
      participants: [String(USERS.bystander)],
      checklist: '201',
    });
    expect(response.status).toBe(303);
    const item = await card(2001);
    expect(item).toMatchObject({ text: 'Permit renewed <b>', checklist_id: 201, section_id: 20 });
    expect(item.participants.map((p: any) => p.id)).toEqual([USERS.bystander]);
    const page = await (await as('manager')).get('/items/2001');
    expect(page.text).toContain('Permit renewed &lt;b&gt;');
    expect(page.text).toMatch(/added Bystander as participants; moved the item from “Permits” to “Reports”/);
    const feed = await server.call(`${V1}/events/list.php?item_id=2001&types=item.updated`, { token: server.tokens.manager });
    expect(feed.body.data.events.at(-1).data.changes).toMatchObject({
      checklist: { from: 200, to: 201 },
      participants: { to: [USERS.bystander] },
    });
    // The partial executor sees checklist 201: the item (and its events) came into view with the move.
    expect((await (await as('partial')).get('/items/2001')).status).toBe(200);
  });

  it('refuses a participant who is not a member, a checklist of another project, an empty text: 422, nothing changed', async () => {
    const before = await card(1011);
    const cases: [Record<string, string | string[]>, string][] = [
      [{ participants_sent: '1', participants: [String(USERS.outsider)] }, 'participants'],
      [{ checklist: '300' }, 'checklist'],
      [{ text: ' ' }, 'text'],
    ];
    for (const [fields, field] of cases) {
      const response = await submit('manager', '/items/1011', '/items/1011/edit', fields);
      expect(response.status).toBe(422);
      expect(response.text).toContain(`id="edit-${field}-error"`);
      expect(response.text).toMatch(/<details class="card" open id="edit-item">/);
    }
    expect(await card(1011)).toEqual(before);
  });
});

describe('sections and checklists', () => {
  it('adds, renames and reorders, escaped everywhere; refusals keep what was typed', async () => {
    const created = await submit('admin', '/admin/projects', '/admin/projects', {
      name: 'Fit-out',
      description: 'Offices',
      deadline: '2099-12-31',
    });
    expect(created.status).toBe(303);
    const projectId = Number(/^\/admin\/projects\/(\d+)\?saved=created$/.exec(created.location!)![1]);
    expect((await (await as('admin')).get(created.location!)).text).toContain('The project was created.');
    const structurePage = `/projects/${projectId}/structure`;
    for (const name of ['Floor 1', 'Floor 2 <b>']) {
      const added = await submit('admin', structurePage, `/projects/${projectId}/sections`, { name });
      expect(added.location).toBe(`${structurePage}?saved=section`);
    }
    let structure = await server.ctx.structure.getStructure(admin, projectId);
    const [floor1, floor2] = structure.sections;
    await submit('admin', structurePage, `/sections/${floor2!.id}/move`, { direction: 'up' });
    await submit('admin', structurePage, `/sections/${floor1!.id}/rename`, { name: 'Ground floor' });
    for (const name of ['Electrics', 'Doors']) {
      expect(
        (await submit('admin', structurePage, `/projects/${projectId}/checklists`, { section: String(floor1!.id), name })).status,
      ).toBe(303);
    }
    structure = await server.ctx.structure.getStructure(admin, projectId);
    expect(structure.sections.map((s) => s.name)).toEqual(['Floor 2 <b>', 'Ground floor']);
    const [electrics, doors] = structure.checklists;
    await submit('admin', structurePage, `/checklists/${doors!.id}/move`, { direction: 'up' });
    await submit('admin', structurePage, `/checklists/${electrics!.id}/rename`, { name: 'Lighting <LED>' });
    const tree = await treeOf(projectId);
    expect(tree.sections.map((s: any) => [s.name, s.checklists.map((c: any) => c.name)])).toEqual([
      ['Floor 2 <b>', []],
      ['Ground floor', ['Doors', 'Lighting <LED>']],
    ]);
    const page = await (await as('admin')).get(`${structurePage}?saved=renamed`);
    expect(page.text).toContain('The name was saved.');
    expect(page.text).toContain('Floor 2 &lt;b&gt;');
    expect(page.text).not.toContain('Floor 2 <b>');

    const empty = await submit('admin', structurePage, `/checklists/${doors!.id}/rename`, { name: '\u0000' });
    expect(empty.status).toBe(422);
    expect(empty.text).toContain(`id="checklist-${doors!.id}-name-error"`);
    expect((await submit('admin', structurePage, `/projects/${projectId}/sections`, { name: ' ' })).status).toBe(422);
    expect((await submit('admin', structurePage, `/projects/${projectId}/checklists`, { section: '10', name: 'Elsewhere' })).status).toBe(
      422,
    );
    expect((await submit('admin', structurePage, `/sections/${floor1!.id}/move`, { direction: 'sideways' })).status).toBe(422);
    expect((await submit('admin', structurePage, '/checklists/999999/rename', { name: 'Ghost' })).status).toBe(404);
  });

  it('lets the project manager do it and refuses everybody else with the 403 page, changing nothing', async () => {
    const added = await submit('manager', '/projects/1/structure', '/projects/1/sections', { name: 'Handover' });
    expect(added.status).toBe(303);
    const before = await treeOf(1);
    for (const user of ['executor', 'observer', 'partial'] as const) {
      for (const [action, fields] of [
        ['/projects/1/sections', { name: 'Mine' }],
        ['/projects/1/checklists', { section: '10', name: 'Mine' }],
        ['/sections/10/rename', { name: 'Mine' }],
        ['/checklists/100/move', { direction: 'down' }],
        ['/items/1001/edit', { text: 'Mine' }],
      ] as const) {
        const response = await submit(user, '/items/1000', action, fields);
        expect(response.status, `${user} ${action}`).toBe(403);
      }
    }
    expect(await treeOf(1)).toEqual(before);
  });
});

describe('To review and answer required', () => {
  it('lists pending answers and done items without a verdict, oldest first, for reviewers; the nav shows the count', async () => {
    const manager = await as('manager');
    const page = await manager.get('/review');
    expect(page.status).toBe(200);
    const rows = [...page.text.matchAll(/data-testid="review-row"><td><a href="\/items\/(\d+)/g)].map((m) => Number(m[1]));
    expect(rows).toEqual(expect.arrayContaining([1000, 1010, 2000]));
    const count = Number(/data-testid="review-count">(\d+)</.exec(page.text)![1]);
    expect(count).toBe(rows.length);
    // Executors and observers review nowhere: no link.
    for (const user of ['executor', 'observer'] as const) {
      const own = await as(user);
      expect((await own.get('/projects')).text).not.toContain('href="/review"');
      expect((await own.get('/review')).text).toContain('Nothing waits for your review.');
    }
  });

  it('refuses to accept an item that requires an answer until one is approved (422 beside the verdict)', async () => {
    const { send } = await addItem('manager', 1, { text: 'Needs proof', checklist: '100', requires_answer: '1' }, 0);
    const id = Number(/\/items\/(\d+)/.exec((await send()).location!)![1]);
    // Done, so only the missing answer stands in the way (an item not done is never accepted: cycle-rules.test.ts).
    expect((await submit('manager', `/items/${id}`, `/items/${id}/status`, { status: 'done' })).status).toBe(303);
    const refused = await submit('manager', `/items/${id}`, `/items/${id}/verdict`, { verdict: 'accepted' });
    expect(refused.status).toBe(422);
    expect(decode(refused.text)).toMatch(/id="item-verdict-select-error"[^>]*>[^<]*approve one of its answers/);
    expect((await card(id)).verdict).toBeNull();
    expect((await submit('manager', `/items/${id}`, `/items/${id}/verdict`, { verdict: 'rejected' })).status).toBe(303);
    const answer = await server.call(`${V1}/answers/create.php`, {
      method: 'POST',
      token: server.tokens.manager,
      json: { item_id: id, text: 'Photo of the repair' },
    });
    const answerId = answer.body.data.answer.id;
    await submit('manager', `/items/${id}`, `/items/${id}/answers/${answerId}/review`, { decision: 'approved' });
    expect((await submit('manager', `/items/${id}`, `/items/${id}/verdict`, { verdict: 'accepted' })).status).toBe(303);
    expect((await card(id)).verdict).toBe('accepted');
  });
});
