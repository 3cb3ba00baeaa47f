import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('smoke', () => {
  it('answers auth/me', async () => {
    const res = await server.call(`${V1}/auth/me.php`, { token: server.tokens.manager });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, data: { user: { id: 2, name: 'Manager', role: 'member' } }, meta: { api_version: 'v1' } });
    expect(res.headers.get('x-request-id')).toBe(res.body.meta.request_id);
  });
  it('lists, gets, trees and reads an item', async () => {
    const list = await server.call(`${V1}/projects/list.php`, { token: server.tokens.partial });
    expect(list.status).toBe(200);
    const tree = await server.call(`${V1}/projects/tree.php?id=1`, { token: server.tokens.partial });
    expect(tree.status).toBe(200);
    const item = await server.call(`${V1}/items/get.php?id=1000`, { token: server.tokens.manager });
    expect(item.status).toBe(200);
    console.log(
      JSON.stringify(list.body.data.projects[0]),
      JSON.stringify(tree.body.data.sections.map((s: any) => [s.id, s.checklists.map((c: any) => c.id)])),
    );
    console.log(JSON.stringify(item.body.data.item).slice(0, 1500));
  });
  it('errors', async () => {
    for (const [path, init] of [
      [`${V1}/nope.php`, {}],
      [`${V1}/auth/me.php`, { method: 'POST' }],
      [`${V1}/auth/me.php`, {}],
      [`${V1}/items/get.php?id=abc`, { token: server.tokens.manager }],
      [`${V1}/items/get.php?id=4000`, { token: server.tokens.manager }],
    ] as const) {
      const res = await server.call(path, init as any);
      console.log(res.status, JSON.stringify(res.body), res.headers.get('allow'));
    }
  });
});
