import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { signedInClients, type WebClient } from './web-client.js';

/**
 * Issue 41: the web's project page, its text filter and its bulk form build the project's tree in the worker pool
 * (as v1's trees), not on the event loop, once the pool runs; before it has started (a test server's first pages)
 * inline.
 */
let server: TestServer;
const as = signedInClients(() => server.url);
const rowIds = (page: string) => [...page.matchAll(/data-testid="item-row" data-item-id="(\d+)"/g)].map((m) => Number(m[1]));
const keyOf = (page: string) => /<form id="bulk"[\s\S]*?name="_key" value="([^"]+)"/.exec(page)![1]!;

/** The bulk form of project 1 posted by `web` with the form page's CSRF token and idempotency key; `read` runs between. */
async function postBulk(web: WebClient, fields: Record<string, string | string[]>, read: () => void) {
  const form = (await web.get('/projects/1')).text;
  read();
  return web.post('/projects/1/bulk', { _key: keyOf(form), ...fields }, form);
}

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('the project page', () => {
  it('builds its tree on the main thread only until the worker pool runs, then in the pool, filtered or not', async () => {
    const projects = server.ctx.projects;
    const getTree = projects.getTree;
    let onMainThread = 0;
    projects.getTree = (...args) => {
      onMainThread++;
      return getTree(...args);
    };
    try {
      const web = await as('manager');
      const inline = [(await web.get('/projects/1')).text, (await web.get('/projects/1?q=extinguisher')).text];
      expect(onMainThread).toBe(2);
      // The bulk form's scope is the tree as the user sees it (item 4000 is another project's): built here too.
      const inlineBulk = await postBulk(web, { items: ['4000'], priority: 'low' }, () => (onMainThread = 0));
      expect(inlineBulk.location).toContain('changed=&unchanged=&refused=4000%3Anot_found');
      expect(onMainThread).toBe(1);

      server.ctx.offload.start();
      for (const started = Date.now(); server.ctx.offload.stats().workers === 0; await new Promise((r) => setTimeout(r, 20))) {
        if (Date.now() - started > 60_000) throw new Error('the worker pool did not start');
      }
      onMainThread = 0;
      const pooled = [(await web.get('/projects/1')).text, (await web.get('/projects/1?q=extinguisher')).text];
      expect(onMainThread).toBe(0);
      // The same rows either way: the worker answers what the inline service answered.
      expect(pooled.map(rowIds)).toEqual(inline.map(rowIds));
      expect(rowIds(pooled[0]!).length).toBeGreaterThan(rowIds(pooled[1]!).length);

      // The bulk form: its scope from the pool, the items changed, the others' refused as before.
      const pooledBulk = await postBulk(web, { items: ['1010', '2000', '4000'], priority: 'low' }, () => (onMainThread = 0));
      expect(pooledBulk.status).toBe(303);
      expect(pooledBulk.location).toContain('changed=1010%2C2000&unchanged=&refused=4000%3Anot_found');
      // A form refused as a whole (nothing to change) shows the project's list again, read in the pool as well.
      const refused = await postBulk(web, { items: ['1010'] }, () => {});
      expect(refused.status).toBe(422);
      expect(rowIds(refused.text)).toEqual(rowIds(pooled[0]!));
      expect(onMainThread).toBe(0);
    } finally {
      projects.getTree = getTree;
    }
  });
});
