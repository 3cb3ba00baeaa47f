import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/plans.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import type { UserKey } from '../helpers/workspace.js';
import { csrfOf, decode, signedInClients } from './web-client.js';

/**
 * The plans' web forms for every role (docs/design.md §19): "Upload plan" and "Upload version" (managers and admins
 * only; a file that is not a plan refused beside "Plan file", nothing kept), the plan's page and its controls,
 * "Place on plan" / "Remove from plan" through the item's write path, and "Add item here" creating the item with
 * its place. Plan 1 "Ground floor" of the workspace is in project 1.
 */
let server: TestServer;
let web: (user: UserKey) => ReturnType<ReturnType<typeof signedInClients>>;

beforeAll(async () => {
  server = await startTestServer();
  web = signedInClients(() => server.url);
});
afterAll(() => server.close());

const planCount = async () => (await server.ctx.db.kysely.selectFrom('plans').select('id').execute()).length;
const uploadCount = async () => (await server.ctx.db.kysely.selectFrom('plan_uploads').select('id').execute()).length;
const location = async (itemId: number) => {
  const response = await server.call(`${V1}/items/get.php?id=${itemId}`, { token: server.tokens.manager });
  return response.body.data.item.location;
};

async function uploadForm(user: UserKey, path: string, file: { bytes: Buffer | string; name: string; type: string }, name?: string) {
  const client = await web(user);
  const page = await client.get('/projects/1');
  const form = new FormData();
  form.append('file', new Blob([typeof file.bytes === 'string' ? file.bytes : new Uint8Array(file.bytes)], { type: file.type }), file.name);
  if (name !== undefined) form.append('name', name);
  form.append('_key', crypto.randomUUID());
  return client.postMultipart(path, form, page.text);
}

describe('plans in the web, for every role', () => {
  it('shows the plans to members, the upload form to managers and admins only, nothing to outsiders', async () => {
    for (const user of ['admin', 'manager', 'executor', 'observer', 'partial'] as const) {
      const page = await (await web(user)).get('/projects/1/plans');
      expect(page.status, user).toBe(200);
      expect(decode(page.text)).toContain('Ground floor');
      expect(page.text.includes('Plan file'), user).toBe(user === 'admin' || user === 'manager');
    }
    expect((await (await web('outsider')).get('/projects/1/plans')).status).toBe(404);
    expect((await (await web('outsider')).get('/plans/1')).status).toBe(404);
  });

  it('refuses an upload from executors and observers (403) and a file that is not a plan (422 beside "Plan file"), keeping nothing', async () => {
    const [plans, uploads] = [await planCount(), await uploadCount()];
    const pdf = await makePdf();
    for (const user of ['executor', 'observer'] as const) {
      const response = await uploadForm(user, '/projects/1/plans', { bytes: pdf, name: 'floor.pdf', type: 'application/pdf' });
      expect(response.status, user).toBe(403);
    }
    const text = await uploadForm('manager', '/projects/1/plans', { bytes: 'not a drawing', name: 'notes.txt', type: 'text/plain' });
    expect(text.status).toBe(422);
    expect(text.text).toMatch(/class="field-error" id="plan-file-error"/);
    const broken = await uploadForm('manager', '/projects/1/plans', {
      bytes: pdf.subarray(0, 200),
      name: 'broken.pdf',
      type: 'application/pdf',
    });
    expect(broken.status).toBe(422);
    expect([await planCount(), await uploadCount()]).toEqual([plans, uploads]);
    const blobs: string[] = [];
    for await (const key of server.ctx.blobs.list('plans/u')) blobs.push(key);
    expect(blobs).toEqual([]);
  });

  it('uploads a plan for a manager: the progress page, then the plan listed with its page', async () => {
    const response = await uploadForm(
      'manager',
      '/projects/1/plans',
      { bytes: await makePdf(), name: 'level-2.pdf', type: 'application/pdf' },
      'Level 2',
    );
    expect(response.status).toBe(303);
    const uploadId = Number(/upload=(\d+)/.exec(response.location!)![1]);
    await server.ctx.planUploads.waitForUpload(uploadId);
    const list = await (await web('manager')).get(response.location!);
    expect(decode(list.text)).toContain('Plan uploaded: 1 sheet.');
    const planId = Number(new RegExp(`href="/plans/(\\d+)">Level 2<`).exec(list.text)![1]);
    const page = await (await web('manager')).get(`/plans/${planId}`);
    expect(page.text).toContain('data-testid="plan-view"');
    expect(page.text).toContain('Add item here');
    expect(page.text).toContain('Upload version');
    const executorPage = await (await web('executor')).get(`/plans/${planId}`);
    expect(executorPage.status).toBe(200);
    expect(executorPage.text).not.toContain('Add item here');
    expect(executorPage.text).not.toContain('Upload version');
  });

  it('places, moves and removes an item through its write path; executors are refused, a place off the sheet is 422', async () => {
    const manager = await web('manager');
    const item = await manager.get('/items/1000');
    expect(decode(item.text)).toContain('Place on plan');
    const placed = await manager.post('/items/1000/location', { plan_id: '1', x: '0.25', y: '0.75', _key: crypto.randomUUID() }, item.text);
    expect(placed.status).toBe(303);
    expect(await location(1000)).toEqual({ plan_id: 1, plan_name: 'Ground floor', x: 0.25, y: 0.75 });
    const executor = await web('executor');
    const executorItem = await executor.get('/items/1000');
    expect(decode(executorItem.text)).not.toContain('Place on plan');
    const refused = await executor.post(
      '/items/1000/location',
      { plan_id: '1', x: '0.5', y: '0.5', _key: crypto.randomUUID() },
      executorItem.text,
    );
    expect(refused.status).toBe(403);
    const off = await manager.post('/items/1000/location', { plan_id: '1', x: '1.5', y: '0.5', _key: crypto.randomUUID() }, item.text);
    expect(off.status).toBe(422);
    expect(await location(1000)).toMatchObject({ x: 0.25, y: 0.75 });
    const events = await server.ctx.db.kysely
      .selectFrom('events')
      .select(['type', 'data'])
      .where('item_id', '=', 1000)
      .orderBy('id', 'desc')
      .execute();
    expect(events[0]!.type).toBe('item.updated');
    expect(JSON.stringify(events[0]!.data)).toContain('location');
    const page = await manager.get('/items/1000');
    expect(decode(page.text)).toContain('placed the item on');
    const removed = await manager.post('/items/1000/location/remove', { _key: crypto.randomUUID() }, page.text);
    expect(removed.status).toBe(303);
    expect(await location(1000)).toBeNull();
  });

  it('"Add item here" opens the form with the place and creates the item on the plan', async () => {
    const manager = await web('manager');
    const form = await manager.get('/projects/1/items/new?plan=1&x=0.4&y=0.6');
    expect(form.status).toBe(200);
    expect(form.text).toContain('data-testid="item-place"');
    expect(form.text).toMatch(/name="plan_x" value="0.4"/);
    const body = new FormData();
    for (const [key, value] of Object.entries({ text: 'Raised on the plan', checklist: '100', plan_id: '1', plan_x: '0.4', plan_y: '0.6' }))
      body.append(key, value);
    body.append('_csrf', csrfOf(form.text));
    body.append('_key', crypto.randomUUID());
    const created = await manager.request('/projects/1/items', { method: 'POST', body });
    expect(created.status).toBe(303);
    const itemId = Number(/\/items\/(\d+)/.exec(created.location!)![1]);
    expect(await location(itemId)).toEqual({ plan_id: 1, plan_name: 'Ground floor', x: 0.4, y: 0.6 });
    const plan = await manager.get('/plans/1');
    expect(plan.text).toContain(`data-item-id="${itemId}"`);
    // A partial member (section 10 and checklist 201) sees the pin of an item of checklist 100 (section 10) only.
    const partial = await (await web('partial')).get('/plans/1');
    expect(partial.text).toContain(`data-item-id="${itemId}"`);
  });

  it('shows a partial member no pin of an item they cannot see', async () => {
    await server.ctx.itemLocations.placeItem({ id: 2, role: 'member' }, 2001, { planId: 1, x: 0.1, y: 0.1 });
    const manager = await (await web('manager')).get('/plans/1');
    expect(manager.text).toContain('data-item-id="2001"');
    const partial = await (await web('partial')).get('/plans/1');
    expect(partial.text).not.toContain('data-item-id="2001"');
    expect(decode(partial.text)).not.toContain('Item 2001');
  });
});
