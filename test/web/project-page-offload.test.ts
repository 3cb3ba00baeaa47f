import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { signedInClients } from './web-client.js';

/**
 * Issue 41: the web's project page and its text filter build the project's tree in the worker pool (as v1's trees),
 * not on the event loop, once the pool runs; before it has started (a test server's first pages) inline.
 */
let server: TestServer;
const as = signedInClients(() => server.url);
const rowIds = (page: string) => [...page.matchAll(/data-testid="item-row" data-item-id="(\d+)"/g)].map((m) => Number(m[1]));

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
    } finally {
      projects.getTree = getTree;
    }
  });
});
