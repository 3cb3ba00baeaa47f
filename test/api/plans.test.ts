import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { USERS, type UserKey } from '../helpers/workspace.js';
import { signedInClients } from '../web/web-client.js';

/**
 * Plans over HTTP (both dialects): v1's plans/list and plans/get, the sheet (`/api/plans/file.php`) and the viewer's
 * tiles for every role, a token limited to another project, the session, revalidation; and `location` in items/get
 * and the tree, fresh right after a placement although both answers are cached (docs/design.md §10, §19).
 */
let server: TestServer;
const as = signedInClients(() => server.url);
const ROLES: UserKey[] = ['admin', 'manager', 'executor', 'bystander', 'observer', 'partial'];
const TILE = '/api/plans/tiles/1/1/sheet_files/0/0_0.webp';
const DZI = '/api/plans/tiles/1/1/sheet.dzi';

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  await server.close();
});

const get = (path: string, token?: string, headers: Record<string, string> = {}) =>
  server.request(path, { headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });

describe('v1 plans/list and plans/get', () => {
  it('answers every member of the project, each with the pins they can see; 404 for an outsider', async () => {
    const placed = await server.ctx.itemLocations.placeItem({ id: USERS.admin, role: 'admin' }, 2000, { planId: 1, x: 0.4, y: 0.6 });
    expect(placed.changed).toBe(true);
    for (const who of ROLES) {
      const list = await server.call(`${V1}/plans/list.php?project_id=1`, { token: server.tokens[who] });
      expect(list.status, who).toBe(200);
      const [plan] = (list.body as any).data.plans;
      expect(plan).toMatchObject({ id: 1, project_id: 1, name: 'Ground floor', version: 1, width: 1200, height: 800 });
      expect(plan.file_url).toBe(`${server.url}/api/plans/file.php?id=1`);
      // Item 2000 is in section 20, which the partial executor does not see: its pin is not there, nor counted.
      expect(plan.pins, who).toEqual(who === 'partial' ? [] : [{ item_id: 2000, x: 0.4, y: 0.6, status: expect.any(String) }]);
      const one = await server.call(`${V1}/plans/get.php?id=1`, { token: server.tokens[who] });
      expect((one.body as any).data.plan, who).toEqual(plan);
    }
    for (const path of [`${V1}/plans/list.php?project_id=1`, `${V1}/plans/get.php?id=1`, `${V1}/plans/get.php?id=999`]) {
      const res = await server.call(path, { token: server.tokens.outsider });
      expect([res.status, (res.body as any).error.code], path).toEqual([404, 'not_found']);
    }
    await server.ctx.itemLocations.removeFromPlan({ id: USERS.admin, role: 'admin' }, 2000);
  });

  it('refuses a token limited to another project like an invisible plan (404), and one without projects:read (403)', async () => {
    const limited = await server.ctx.tokens.createToken({
      userId: USERS.admin,
      name: 'project 3 only',
      scopes: ['projects:read', 'items:read'],
      expiresAt: null,
      projectIds: [3],
    });
    for (const path of [`${V1}/plans/list.php?project_id=1`, `${V1}/plans/get.php?id=1`, '/api/plans/file.php?id=1', TILE, DZI]) {
      expect((await get(path, limited.token)).status, path).toBe(404);
    }
    const itemsOnly = await server.ctx.tokens.createToken({
      userId: USERS.manager,
      name: 'items',
      scopes: ['items:read'],
      expiresAt: null,
    });
    for (const path of [`${V1}/plans/get.php?id=1`, '/api/plans/file.php?id=1', TILE]) {
      const res = await get(path, itemsOnly.token);
      expect(res.status, path).toBe(403);
    }
  });
});

describe('the sheet and the tiles', () => {
  it('serves them to every member by token, after the check, revalidated by ETag and never cached for another user', async () => {
    for (const who of ROLES) {
      for (const [path, type] of [
        ['/api/plans/file.php?id=1', 'image/webp'],
        [TILE, 'image/webp'],
        [DZI, 'application/xml'],
      ] as const) {
        const res = await get(path, server.tokens[who]);
        expect(res.status, `${who} ${path}`).toBe(200);
        expect(res.headers.get('content-type')).toBe(type);
        expect(res.headers.get('cache-control')).toBe('private, no-cache');
        const etag = res.headers.get('etag')!;
        expect(etag).toMatch(/^"plan-/);
        const bytes = Buffer.from(await res.arrayBuffer());
        if (type === 'image/webp') expect(bytes.subarray(8, 12).toString()).toBe('WEBP');
        else expect(bytes.toString()).toContain('TileSize="510"');
        const again = await get(path, server.tokens[who], { 'if-none-match': etag });
        expect(again.status).toBe(304);
      }
    }
    for (const path of ['/api/plans/file.php?id=1', TILE, DZI]) {
      const outsider = await get(path, server.tokens.outsider);
      expect(outsider.status, path).toBe(404);
      // A revalidation by somebody who may not see the plan is no 304: the browser's copy is not confirmed.
      expect((await get(path, server.tokens.outsider, { 'if-none-match': '"plan-1-sheet"' })).status).toBe(404);
      expect((await get(path)).status, path).toBe(401);
    }
  });

  it('serves them to the web session, and answers 404 for a version, a level or a file the plan does not have', async () => {
    const web = await as('observer');
    expect((await web.get('/api/plans/file.php?id=1')).status).toBe(200);
    expect((await web.get(TILE)).status).toBe(200);
    const outsider = await as('outsider');
    expect((await outsider.get(TILE)).status).toBe(404);
    for (const path of [
      '/api/plans/file.php?id=1&version=2',
      '/api/plans/tiles/1/2/sheet.dzi',
      '/api/plans/tiles/1/1/sheet_files/0/9_9.webp',
      '/api/plans/tiles/1/1/sheet_files/../../../p1/sheet.webp',
      '/api/plans/tiles/1/1/vips-properties.xml',
      '/api/plans/tiles/99/1/sheet.dzi',
    ]) {
      expect((await get(path, server.tokens.admin)).status, path).toBe(404);
    }
    expect((await get('/api/plans/file.php?id=abc', server.tokens.admin)).status).toBe(422);
  });
});

describe('location in the item card and the tree', () => {
  it('is fresh in items/get and projects/tree right after a placement, although both answers are cached', async () => {
    const admin = { id: USERS.admin, role: 'admin' as const };
    const card = async () => ((await server.call(`${V1}/items/get.php?id=1001`, { token: server.tokens.manager })).body as any).data.item;
    const treeItem = async () =>
      ((await server.call(`${V1}/projects/tree.php?id=1`, { token: server.tokens.manager })).body as any).data.sections
        .flatMap((s: any) => s.checklists)
        .flatMap((c: any) => c.items)
        .find((i: any) => i.id === 1001);
    expect((await card()).location).toBeNull();
    expect((await card()).location).toBeNull();
    expect((await treeItem()).location).toBeNull();
    expect((await treeItem()).location).toBeNull();
    await server.ctx.itemLocations.placeItem(admin, 1001, { planId: 1, x: 0.125, y: 0.5 });
    const placed = { plan_id: 1, plan_name: 'Ground floor', x: 0.125, y: 0.5 };
    expect((await card()).location).toEqual(placed);
    expect((await treeItem()).location).toEqual(placed);
    // A plan renamed (by hand, as an admin's SQL would) is seen at once too: the plan's name is part of both answers.
    await server.ctx.db.kysely.updateTable('plans').set({ name: 'Level 0' }).where('id', '=', 1).execute();
    expect((await card()).location.plan_name).toBe('Level 0');
    expect((await treeItem()).location.plan_name).toBe('Level 0');
    await server.ctx.itemLocations.removeFromPlan(admin, 1001);
    expect((await card()).location).toBeNull();
    expect((await treeItem()).location).toBeNull();
    await server.ctx.db.kysely.updateTable('plans').set({ name: 'Ground floor' }).where('id', '=', 1).execute();
  });

  it('reports item.updated with location in the event feed', async () => {
    const admin = { id: USERS.admin, role: 'admin' as const };
    await server.ctx.itemLocations.placeItem(admin, 2001, { planId: 1, x: 0.3, y: 0.7 });
    const feed = await server.call(`${V1}/events/list.php?item_id=2001&types=item.updated`, { token: server.tokens.manager });
    expect((feed.body as any).data.events.at(-1).data).toEqual({
      changes: { location: { from: null, to: { plan_id: 1, plan_name: 'Ground floor', x: 0.3, y: 0.7 } } },
    });
    await server.ctx.itemLocations.removeFromPlan(admin, 2001);
  });
});
