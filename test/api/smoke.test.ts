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
    expect(list.body.data.projects.map((p: { id: number }) => p.id)).toContain(1);
    const tree = await server.call(`${V1}/projects/tree.php?id=1`, { token: server.tokens.partial });
    expect(tree.status).toBe(200);
    expect(tree.body.data.sections.length).toBeGreaterThan(0);
    const item = await server.call(`${V1}/items/get.php?id=1000`, { token: server.tokens.manager });
    expect(item.status).toBe(200);
    expect(item.body.data.item).toMatchObject({ id: 1000, project_id: 1, status: 'pending' });
  });
  it('answers each kind of error with its status and code', async () => {
    const cases = [
      [`${V1}/nope.php`, {}, 404, 'not_found', null],
      [`${V1}/auth/me.php`, { method: 'POST' }, 405, 'method_not_allowed', 'GET, HEAD'],
      [`${V1}/auth/me.php`, {}, 401, 'unauthorized', null],
      [`${V1}/items/get.php?id=abc`, { token: server.tokens.manager }, 422, 'validation_error', null],
      [`${V1}/items/get.php?id=4000`, { token: server.tokens.manager }, 404, 'not_found', null],
    ] as const;
    for (const [path, init, status, code, allow] of cases) {
      const res = await server.call(path, init as any);
      expect([path, res.status, res.body.ok, res.body.error?.code]).toEqual([path, status, false, code]);
      expect(res.headers.get('allow')).toBe(allow);
    }
  });
});
