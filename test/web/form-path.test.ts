import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { signedInClients } from './web-client.js';

/**
 * The one form path (STYLE.md 15, issue 41 item 5): the audit queue written once per write, whatever the write
 * touches.
 */
let server: TestServer;
const as = signedInClients(() => server.url);

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** Counts the audit service's flushes while `run` runs (the real service and database; only counted). */
async function flushesDuring(run: () => Promise<unknown>): Promise<number> {
  const audit = server.ctx.audit;
  const flush = audit.flush;
  let calls = 0;
  audit.flush = () => {
    calls++;
    return flush();
  };
  try {
    await run();
  } finally {
    audit.flush = flush;
  }
  return calls;
}

describe('the audit queue', () => {
  it('is flushed once per web write: an item form, and a bulk change of three items', async () => {
    const web = await as('manager');
    const page = await web.get('/items/1001');
    let comment = 0;
    const commentFlushes = await flushesDuring(async () => {
      comment = (await web.post('/items/1001/comments', { text: 'Flushed once' }, page.text)).status;
    });
    expect(comment).toBe(303);
    expect(commentFlushes).toBe(1);

    const list = await web.get('/projects/1');
    let bulk = 0;
    const bulkFlushes = await flushesDuring(async () => {
      bulk = (await web.post('/projects/1/bulk', { items: ['1000', '1001', '1010'], priority: 'low' }, list.text)).status;
    });
    expect(bulk).toBe(303);
    expect(bulkFlushes).toBe(1);
  });

  it('is flushed once per v1 write, and not for a read', async () => {
    let status = 0;
    const write = await flushesDuring(async () => {
      status = (
        await server.call(`${V1}/comments/create.php`, {
          method: 'POST',
          token: server.tokens.manager,
          json: { item_id: 1001, text: 'Once' },
        })
      ).status;
    });
    expect(status).toBe(201);
    expect(write).toBe(1);
    const read = await flushesDuring(() => server.call(`${V1}/items/get.php?id=1001`, { token: server.tokens.manager }));
    expect(read).toBe(0);
  });
});
