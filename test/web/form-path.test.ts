import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { ApiError, type FieldError } from '../../src/shared/errors.js';
import { commentOf, planningOf, statusOf } from '../../src/web/pages/item-forms.js';
import { decode, signedInClients } from './web-client.js';

/**
 * The one form path (STYLE.md 15, issue 41 item 5): a form parsed with its v1 twin's schema, refusing what v1
 * refuses under the same field names; the audit queue written once per write, whatever the write touches.
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

/** The fields (and messages) a web form's parse refuses. */
/** A form's refusal as v1 would send it: each field and its English message (its reason's key is the web's own). */
function refusedByForm(parse: (form: URLSearchParams) => unknown, fields: Record<string, string>): FieldError[] {
  try {
    parse(new URLSearchParams(fields));
  } catch (err) {
    if (err instanceof ApiError && err.status === 422) return (err.details ?? []).map(({ field, message }) => ({ field, message }));
    throw err;
  }
  throw new Error('the form accepted it');
}

async function refusedByV1(method: string, path: string, json: Record<string, unknown>): Promise<FieldError[]> {
  const response = await server.call(`${V1}${path}`, { method, token: server.tokens.manager, json });
  expect(response.status).toBe(422);
  return response.body.error.details;
}

describe('a web form and its v1 twin', () => {
  it('refuse the same bad input with the same field names and messages', async () => {
    const cases = [
      [statusOf, { status: 'finished' }, 'PATCH', '/items/status.php', { id: 1001, status: 'finished' }],
      [statusOf, {}, 'PATCH', '/items/status.php', { id: 1001 }],
      [planningOf, { priority: 'urgent', deadline: '' }, 'PATCH', '/items/planning.php', { id: 1001, priority: 'urgent', deadline: '' }],
      [commentOf, {}, 'POST', '/comments/create.php', { item_id: 1001 }],
    ] as const;
    for (const [parse, form, method, path, json] of cases) {
      const web = refusedByForm(parse, form);
      expect(web.length).toBeGreaterThan(0);
      expect(web).toEqual(await refusedByV1(method, path, json));
    }
  });

  it('the refused web form is shown again (422), its summary linking the schema’s message to the field', async () => {
    const web = await as('manager');
    const page = await web.get('/items/1001');
    const refused = await web.post('/items/1001/planning', { deadline: '', priority: 'urgent' }, page.text);
    expect(refused.status).toBe(422);
    expect(decode(refused.text)).toContain('<a href="#planning-priority">Priority: must be one of low, medium, high</a>');
  });
});
