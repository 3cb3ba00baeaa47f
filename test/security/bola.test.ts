import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../helpers/envelope.js';
import { solid, uploadForm } from '../helpers/images.js';
import { operationsOf, type Sample, sampleFor } from '../helpers/operations.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { snapshot } from '../helpers/snapshot.js';
import type { UserKey } from '../helpers/workspace.js';
import { WebClient } from '../web/web-client.js';

/**
 * Object-level authorisation (OWASP API1, BOLA): for every endpoint that takes an id, and every kind of
 * id (project, item, answer, attachment, download URL), an object the user cannot see answers exactly
 * like one that does not exist: 404 not_found, the same message, the same body length, and nothing written
 * (tables and stored blobs). The probes are written by hand, but checked against the route table the
 * server registered: an operation taking an id without a probe fails. And the partial member of project 1
 * never reaches a hidden item through any endpoint, search totals included.
 */

let server: TestServer;
let png: Buffer;
let requests = 0;

/** Objects created for the test, by who may. */
const made = {
  /** Attachments of item 2000 (hidden from partial), of item 4000 (admin only), of item 1000 (visible to partial). */
  attachment2000: { id: 0, url: '' },
  attachment4000: { id: 0, url: '' },
  attachment1000: { id: 0, url: '' },
  /** An answer on item 2000 and its image; an answer on item 4000 and its image. */
  answer2000: 0,
  answerAttachment2000: { id: 0, url: '' },
  answer4000: 0,
  answerAttachment4000: { id: 0, url: '' },
};

const MISSING = 999_999;
/** Unlikely words written into the hidden parts: a search that finds them leaked. */
const MARK = 'zebracrossing';

type Kind = 'project' | 'item' | 'answer' | 'item-attachment' | 'answer-attachment' | 'plan';

interface Probe {
  name: string;
  kind: Kind;
  /** `METHOD path` as in the route table, and the id field the probed id goes in (both read off the request). */
  route: string;
  field: string;
  request(id: number, who: UserKey): Promise<{ status: number; body: any; headers: Headers }>;
}

async function call(path: string, init: RequestInit & { token?: string; json?: unknown } = {}) {
  requests++;
  return server.call(path, init);
}

const as = (who: UserKey) => server.tokens[who];
/** Where a probe's id goes in its request; the field holding it is found by looking for this value. */
const ID_SLOT = -1;
const json = (method: string, path: string, body: (id: number) => Record<string, unknown>) => ({
  route: `${method} ${V1}/${path}`,
  field: Object.entries(body(ID_SLOT)).find(([, v]) => v === ID_SLOT)![0],
  request: (id: number, who: UserKey) => call(`${V1}/${path}`, { method, token: as(who), json: body(id) }),
});
const upload = (path: string, field: string) => ({
  route: `POST ${V1}/${path}`,
  field,
  request: (id: number, who: UserKey) =>
    call(`${V1}/${path}`, { method: 'POST', token: as(who), body: uploadForm({ [field]: String(id) }, [{ name: 'x.png', bytes: png }]) }),
});
const get = (path: string) => {
  const [url, query] = path.split('?') as [string, string];
  return {
    route: `GET ${url}`,
    field: [...new URLSearchParams(query)].find(([, v]) => v === 'ID')![0],
    request: (id: number, who: UserKey) => call(path.replace('ID', String(id)), { token: as(who) }),
  };
};

const PROBES: Probe[] = [
  { name: 'projects/get', kind: 'project', ...get(`${V1}/projects/get.php?id=ID`) },
  { name: 'projects/tree', kind: 'project', ...get(`${V1}/projects/tree.php?id=ID`) },
  { name: 'projects/report', kind: 'project', ...get(`${V1}/projects/report.php?id=ID&format=pdf`) },
  { name: 'projects/search', kind: 'project', ...get(`${V1}/projects/search.php?id=ID&q=Item`) },
  { name: 'projects/search item_id', kind: 'project', ...get(`${V1}/projects/search.php?id=ID&item_id=1000`) },
  { name: 'items/get', kind: 'item', ...get(`${V1}/items/get.php?id=ID`) },
  { name: 'search item_id', kind: 'item', ...get(`${V1}/projects/search.php?id=1&item_id=ID`) },
  { name: 'search item_id + q', kind: 'item', ...get(`${V1}/projects/search.php?id=1&item_id=ID&q=e`) },
  { name: 'items/status', kind: 'item', ...json('PATCH', 'items/status.php', (id) => ({ id, status: 'blocked' })) },
  {
    name: 'items/planning',
    kind: 'item',
    ...json('PATCH', 'items/planning.php', (id) => ({ id, priority: 'low', deadline: '2030-01-01' })),
  },
  { name: 'items/links', kind: 'item', ...json('PUT', 'items/links.php', (id) => ({ id, document_links: [] })) },
  { name: 'comments/create', kind: 'item', ...json('POST', 'comments/create.php', (id) => ({ item_id: id, text: 'bola' })) },
  { name: 'answers/create', kind: 'item', ...json('POST', 'answers/create.php', (id) => ({ item_id: id, text: 'bola' })) },
  { name: 'items/attachments', kind: 'item', ...upload('items/attachments.php', 'item_id') },
  { name: 'answers/attachments', kind: 'answer', ...upload('answers/attachments.php', 'answer_id') },
  { name: 'items/file', kind: 'item-attachment', ...get('/api/items/file.php?id=ID') },
  { name: 'answers/file', kind: 'answer-attachment', ...get('/api/answers/file.php?id=ID') },
  // The other kind's download path: an item image asked for as an answer image and the reverse.
  { name: 'answers/file of an item image', kind: 'item-attachment', ...get('/api/answers/file.php?id=ID') },
  { name: 'items/file of an answer image', kind: 'answer-attachment', ...get('/api/items/file.php?id=ID') },
  { name: 'plans/list', kind: 'project', ...get(`${V1}/plans/list.php?project_id=ID`) },
  { name: 'plans/get', kind: 'plan', ...get(`${V1}/plans/get.php?id=ID`) },
  { name: 'plans/file', kind: 'plan', ...get('/api/plans/file.php?id=ID') },
];

/** The id fields of a request (`id`, `item_id`, `answer_id`, …) in its query, JSON body or form. */
function idFields(sample: Sample): string[] {
  const names = [...new URLSearchParams(sample.query ?? '').keys(), ...Object.keys(sample.json ?? {}), ...Object.keys(sample.form ?? {})];
  return [...new Set(names.filter((name) => /^(?:id|[a-z]+_id)$/.test(name)))];
}

/** What each user cannot see, per kind of id (the standard workspace plus what the test made). */
function hidden(): Record<string, Record<Kind, number[]>> {
  return {
    outsider: {
      project: [1, 2, 3],
      item: [1000, 2000, 3000, 4000],
      answer: [7000, made.answer2000, made.answer4000],
      'item-attachment': [made.attachment1000.id, made.attachment2000.id, made.attachment4000.id],
      'answer-attachment': [made.answerAttachment2000.id, made.answerAttachment4000.id],
      // The workspace's plan 1, of project 1 (test/helpers/plans.ts).
      plan: [1],
    },
    partial: {
      project: [2, 3],
      item: [2000, 2001, 3000, 4000],
      answer: [made.answer2000, made.answer4000],
      'item-attachment': [made.attachment2000.id, made.attachment4000.id],
      'answer-attachment': [made.answerAttachment2000.id, made.answerAttachment4000.id],
      plan: [],
    },
    executor: {
      project: [3],
      item: [4000],
      answer: [made.answer4000],
      'item-attachment': [made.attachment4000.id],
      'answer-attachment': [made.answerAttachment4000.id],
      plan: [],
    },
  };
}

/** The parts of a 404 that must not tell a hidden object from a missing one. */
function shape(res: { status: number; body: any; headers: Headers }) {
  return {
    status: res.status,
    error: res.body?.error,
    length: res.headers.get('content-length'),
    type: res.headers.get('content-type'),
    allow: res.headers.get('allow'),
    cache: res.headers.get('cache-control'),
    etag: res.headers.get('etag'),
  };
}

beforeAll(async () => {
  server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  png = await solid(16, 16, 'png');
  const attach = async (who: UserKey, path: string, field: string, id: number) => {
    const res = await call(`${V1}/${path}`, {
      method: 'POST',
      token: as(who),
      body: uploadForm({ [field]: String(id) }, [{ name: 'p.png', bytes: png }]),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { id: attachmentId, url } = res.body.data.attachments[0];
    return { id: attachmentId as number, url: url as string };
  };
  const answer = async (who: UserKey, itemId: number) => {
    const res = await call(`${V1}/answers/create.php`, {
      method: 'POST',
      token: as(who),
      json: { item_id: itemId, text: `${MARK} answer`, document_links: [{ title: `${MARK} link`, url: `https://example.test/${MARK}` }] },
    });
    expect(res.status).toBe(201);
    return res.body.data.answer.id as number;
  };
  made.attachment2000 = await attach('manager', 'items/attachments.php', 'item_id', 2000);
  made.attachment4000 = await attach('admin', 'items/attachments.php', 'item_id', 4000);
  made.attachment1000 = await attach('manager', 'items/attachments.php', 'item_id', 1000);
  made.answer2000 = await answer('manager', 2000);
  made.answer4000 = await answer('admin', 4000);
  made.answerAttachment2000 = await attach('manager', 'answers/attachments.php', 'answer_id', made.answer2000);
  made.answerAttachment4000 = await attach('admin', 'answers/attachments.php', 'answer_id', made.answer4000);
  expect(
    (await call(`${V1}/comments/create.php`, { method: 'POST', token: as('manager'), json: { item_id: 2000, text: `${MARK} comment` } }))
      .status,
  ).toBe(201);
  expect(
    (
      await call(`${V1}/items/links.php`, {
        method: 'PUT',
        token: as('manager'),
        json: { id: 2001, document_links: [{ title: `${MARK} plan`, url: 'https://example.test/p' }] },
      })
    ).status,
  ).toBe(200);
});

afterAll(async () => {
  console.log(`BOLA: ${PROBES.length} probes × 3 users × hidden and missing ids, ${requests} requests`);
  await server.close();
});

describe('an object the user cannot see answers like one that does not exist', () => {
  it('the probes cover every operation that takes an id, read from the route table the server registered', () => {
    // Every operation with a scope: the v1 endpoints and the two downloads. Whether one takes an id, and in
    // which field, is read off its sample request (test/helpers/operations.ts, which the scope matrix
    // requires for every operation), so a new route with an id fails here until it has a probe. HEAD
    // answers as its GET does, through the same handler.
    const operations = operationsOf(server.app).filter((op) => op.method !== 'HEAD');
    const ids = { itemAttachmentId: made.attachment1000.id, answerAttachmentId: made.answerAttachment2000.id };
    const needed = operations.flatMap((op) => idFields(sampleFor(op, ids)).map((field) => `${op.method} ${op.url} ${field}`));
    const probed = new Set(PROBES.map((p) => `${p.route} ${p.field}`));
    expect(
      needed.filter((route) => !probed.has(route)),
      'operations taking an id without a BOLA probe',
    ).toEqual([]);
    // Not vacuous: the table holds the v1 operations and both downloads, and every probe is on one of them.
    expect(needed).toEqual(
      expect.arrayContaining([`PATCH ${V1}/items/status.php id`, 'GET /api/items/file.php id', 'GET /api/answers/file.php id']),
    );
    expect(needed.length).toBeGreaterThanOrEqual(13);
    const routes = new Set(operations.map((op) => `${op.method} ${op.url}`));
    expect(
      PROBES.map((p) => p.route).filter((route) => !routes.has(route)),
      'probes on no registered route',
    ).toEqual([]);
  });

  it('for every endpoint and every kind of id: 404 not_found, same message, same length; nothing written', async () => {
    const before = await snapshot(server.ctx.db.kysely, server.ctx.db.dialect, server.ctx.blobs);
    let compared = 0;
    for (const [who, kinds] of Object.entries(hidden()) as [UserKey, Record<Kind, number[]>][]) {
      for (const probe of PROBES) {
        const missing = await probe.request(MISSING, who);
        expectError(missing, 404, 'not_found');
        for (const id of kinds[probe.kind]) {
          const res = await probe.request(id, who);
          expect(shape(res), `${who} ${probe.name} id ${id}`).toEqual(shape(missing));
          expectError(res, 404, 'not_found');
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(100);
    expect(await snapshot(server.ctx.db.kysely, server.ctx.db.dialect, server.ctx.blobs)).toEqual(before);
  });

  it('the download URL of an attachment, with a token or a web session', async () => {
    const urls = [made.attachment2000.url, made.answerAttachment2000.url, made.attachment4000.url, made.answerAttachment4000.url];
    const missing = urls.map((u) => u.replace(/id=\d+$/, `id=${MISSING}`));
    for (const who of ['partial', 'outsider'] as const) {
      const web = new WebClient(server.url);
      expect((await web.signIn(who)).status).toBe(303);
      for (const [i, url] of urls.entries()) {
        requests += 4;
        const viaToken = await fetch(url, { headers: { authorization: `Bearer ${as(who)}` } });
        const viaTokenMissing = await fetch(missing[i]!, { headers: { authorization: `Bearer ${as(who)}` } });
        const a = await viaToken.json();
        const b = await viaTokenMissing.json();
        expect([viaToken.status, a.error, viaToken.headers.get('content-length')]).toEqual([
          404,
          b.error,
          viaTokenMissing.headers.get('content-length'),
        ]);
        const viaSession = await web.get(url.slice(server.url.length));
        const viaSessionMissing = await web.get(missing[i]!.slice(server.url.length));
        expect(viaSession.status).toBe(404);
        expect(JSON.parse(viaSession.text).error).toEqual(JSON.parse(viaSessionMissing.text).error);
      }
      // Control: what they may see downloads.
      if (who === 'partial') {
        requests += 2;
        expect((await fetch(made.attachment1000.url, { headers: { authorization: `Bearer ${as(who)}` } })).status).toBe(200);
        expect((await web.get(made.attachment1000.url.slice(server.url.length))).status).toBe(200);
      }
    }
  });

  it('the owners still reach all of it (the ids above are real)', async () => {
    for (const url of [made.attachment2000.url, made.answerAttachment2000.url]) {
      expect((await fetch(url, { headers: { authorization: `Bearer ${as('manager')}` } })).status).toBe(200);
    }
    expect((await call(`${V1}/items/get.php?id=4000`, { token: as('admin') })).status).toBe(200);
    expect((await call(`${V1}/items/get.php?id=2000`, { token: as('bystander') })).status).toBe(200);
  });
});

describe('the partial member never reaches a hidden item', () => {
  // partial: section 10 whole (items 1000, 1001, 1010, 1011) and checklist 201 (item 2010) of section 20.
  const VISIBLE_ITEMS = [1000, 1001, 1010, 1011, 2010];
  const HIDDEN_TEXT = [MARK, 'Проверка документов', 'Item 2001', 'Permits'];

  const expectNothingHidden = (what: string, body: unknown) => {
    const text = JSON.stringify(body);
    for (const marker of HIDDEN_TEXT) expect(text, `${what} shows "${marker}"`).not.toContain(marker);
    expect(text, what).not.toMatch(/"(?:id|item_id|entity_id)":(?:2000|2001|3000|4000)\b/);
  };

  it('list, card and tree count and show only the visible part', async () => {
    const list = await call(`${V1}/projects/list.php?archived=all`, { token: as('partial') });
    expect(list.body.data.projects.map((p: { id: number }) => p.id)).toEqual([1]);
    expect(list.body.data.total).toBe(1);
    const card = (await call(`${V1}/projects/get.php?id=1`, { token: as('partial') })).body.data.project;
    expect(card.counters).toMatchObject({ sections: 2, checklists: 3, items: VISIBLE_ITEMS.length });
    expect(card.progress.total).toBe(VISIBLE_ITEMS.length);
    expect(list.body.data.projects[0].counters).toEqual(card.counters);
    const tree = (await call(`${V1}/projects/tree.php?id=1`, { token: as('partial') })).body;
    const items = tree.data.sections.flatMap((s: any) => s.checklists.flatMap((c: any) => c.items.map((i: { id: number }) => i.id)));
    expect(items.sort()).toEqual(VISIBLE_ITEMS);
    for (const [what, body] of [
      ['list', list.body],
      ['card', card],
      ['tree', tree],
    ] as const)
      expectNothingHidden(what, body);
    for (const id of VISIBLE_ITEMS)
      expectNothingHidden(`item ${id}`, (await call(`${V1}/items/get.php?id=${id}`, { token: as('partial') })).body);
  });

  it('search hits and totals hold only the visible part, whatever the query', async () => {
    const search = (who: UserKey, query: string) => call(`${V1}/projects/search.php?id=1&limit=200&${query}`, { token: as(who) });
    // Control: the manager finds the hidden entities, so the searches below can find something.
    const seen = await search('manager', `q=${MARK}`);
    expect(seen.status).toBe(200);
    expect(seen.body.data.total).toBeGreaterThanOrEqual(4);
    const queries = [
      `q=${MARK}`,
      'q=Проверка',
      'q=проверка',
      'q=Permits',
      'q=2001',
      'q=Item',
      'q=e',
      'q=%25',
      'q=_',
      'q=Documents',
      ...['project', 'section', 'checklist', 'item', 'comment', 'answer', 'link'].map((t) => `q=e&entity_type=${t}`),
      ...VISIBLE_ITEMS.map((id) => `item_id=${id}`),
    ];
    let hits = 0;
    for (const query of queries) {
      const res = await search('partial', query);
      expect(res.status, `${query}: ${JSON.stringify(res.body).slice(0, 200)}`).toBe(200);
      const data = res.body.data;
      expect(data.total, query).toBe(data.hits.length);
      for (const hit of data.hits) {
        if (hit.item_id !== null) expect(VISIBLE_ITEMS, `${query} → ${JSON.stringify(hit)}`).toContain(hit.item_id);
      }
      expectNothingHidden(`search ${query}`, res.body);
      hits += data.hits.length;
    }
    expect(hits).toBeGreaterThan(10);
    for (const query of [`q=${MARK}`, 'q=Permits', 'q=Проверка']) expect((await search('partial', query)).body.data.total, query).toBe(0);
  });

  it('write endpoints and uploads refuse the hidden items as missing, and the web item page too', async () => {
    const web = new WebClient(server.url);
    await web.signIn('partial');
    const hiddenPage = await web.get('/items/2000');
    const missingPage = await web.get(`/items/${MISSING}`);
    expect(hiddenPage.status).toBe(404);
    expect(hiddenPage.text.replace(/[0-9a-f-]{36}/g, '')).toBe(missingPage.text.replace(/[0-9a-f-]{36}/g, ''));
    expect(hiddenPage.text).not.toContain('Проверка');
  });
});
