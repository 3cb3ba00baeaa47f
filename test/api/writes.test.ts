import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../src/domain/scopes.js';
import { expectError, expectOk, ISO_DATE_TIME, type CallResult } from '../helpers/envelope.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { scopesExcept, type UserKey, USERS } from '../helpers/workspace.js';

/** The v1 writes 7–11: status, planning, comments, answers, links — through real HTTP. */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

type Method = 'PATCH' | 'POST' | 'PUT';
const STATUS = `${V1}/items/status.php`;
const PLANNING = `${V1}/items/planning.php`;
const COMMENT = `${V1}/comments/create.php`;
const ANSWER = `${V1}/answers/create.php`;
const LINKS = `${V1}/items/links.php`;

const ENDPOINTS: Record<string, { method: Method; path: string; scope: Scope; ok: (id: number) => Record<string, unknown> }> = {
  status: { method: 'PATCH', path: STATUS, scope: 'items:status.write', ok: (id) => ({ id, status: 'blocked' }) },
  planning: { method: 'PATCH', path: PLANNING, scope: 'items:planning.write', ok: (id) => ({ id, priority: 'low' }) },
  comment: { method: 'POST', path: COMMENT, scope: 'comments:write', ok: (id) => ({ item_id: id, text: 'A comment' }) },
  answer: { method: 'POST', path: ANSWER, scope: 'answers:write', ok: (id) => ({ item_id: id, text: 'An answer' }) },
  links: {
    method: 'PUT',
    path: LINKS,
    scope: 'items:materials.write',
    ok: (id) => ({ id, document_links: [{ title: 'Spec', url: 'https://example.test/spec' }] }),
  },
};

/** Request ids of every successful write, checked against the audit log at the end. */
const successfulWrites: { requestId: string; method: Method; path: string; status: number; itemId: number; userId: number }[] = [];

async function write(method: Method, path: string, user: UserKey | string, json: unknown): Promise<CallResult> {
  const token = user in USERS ? server.tokens[user as UserKey] : user;
  const res = await server.call(path, { method, token, json });
  if (res.status === 200 || res.status === 201) {
    const body = json as { id?: number; item_id?: number };
    const userId = user in USERS ? USERS[user as UserKey] : -1;
    successfulWrites.push({
      requestId: res.body.meta.request_id,
      method,
      path,
      status: res.status,
      itemId: (body.id ?? body.item_id)!,
      userId,
    });
  }
  return res;
}

const patchStatus = (user: UserKey | string, json: unknown) => write('PATCH', STATUS, user, json);
const patchPlanning = (user: UserKey | string, json: unknown) => write('PATCH', PLANNING, user, json);
const postComment = (user: UserKey | string, json: unknown) => write('POST', COMMENT, user, json);
const postAnswer = (user: UserKey | string, json: unknown) => write('POST', ANSWER, user, json);
const putLinks = (user: UserKey | string, json: unknown) => write('PUT', LINKS, user, json);

/** The item card as the admin sees it. */
async function card(id: number) {
  return expectOk(await server.call(`${V1}/items/get.php?id=${id}`, { token: server.tokens.admin })).item;
}

/** Runs a refused request and checks the item card did not change at all. */
async function refused(itemId: number, run: () => Promise<CallResult>, status: number, code: string): Promise<CallResult> {
  const before = await card(itemId);
  const res = await run();
  expectError(res, status, code);
  expect(await card(itemId)).toEqual(before);
  return res;
}

async function tokenWith(userId: number, scopes: Scope[]) {
  return (await server.ctx.tokens.createToken({ userId, name: 'limited', scopes, expiresAt: null })).token;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PATCH /items/status.php', () => {
  it('changes the status, records a status_changed entry and moves updated_at', async () => {
    const before = await card(1010);
    expect(before.status).toBe('done');
    const res = await patchStatus('manager', { id: 1010, status: 'in_progress' });
    const data = expectOk(res);
    expect(data).toEqual({ item: { id: 1010, status: 'in_progress', updated_at: expect.stringMatching(ISO_DATE_TIME) }, changed: true });
    expect(data.item.updated_at > before.updated_at).toBe(true);
    const after = await card(1010);
    expect(after.status).toBe('in_progress');
    expect(after.updated_at).toBe(data.item.updated_at);
    expect(after.status_history).toHaveLength(before.status_history.length + 1);
    expect(after.status_history.at(-1)).toEqual({
      kind: 'status_changed',
      from: 'done',
      to: 'in_progress',
      at: data.item.updated_at,
      user: { id: USERS.manager, name: 'Manager' },
      note: null,
    });
  });

  it('same status again: 200, changed false, no history entry, updated_at kept', async () => {
    const before = await card(1010);
    const data = expectOk(await patchStatus('manager', { id: 1010, status: 'in_progress' }));
    expect(data).toEqual({ item: { id: 1010, status: 'in_progress', updated_at: before.updated_at }, changed: false });
    expect(await card(1010)).toEqual(before);
  });

  it('accepts each of the four statuses; unknown fields are refused with 422 naming each, nothing applied', async () => {
    const refusedTypo = await refused(
      1010,
      () => patchStatus('admin', { id: 1010, status: 'done', text: 'never applied', description: 'no' }),
      422,
      'validation_error',
    );
    expect(refusedTypo.body.error.details.map((d: { field: string }) => d.field)).toEqual(['text', 'description']);
    expect(refusedTypo.body.error.message).toContain('text, description');
    for (const status of ['pending', 'in_progress', 'done', 'blocked']) {
      const data = expectOk(await patchStatus('admin', { id: 1010, status }));
      expect(data.item.status).toBe(status);
    }
    const after = await card(1010);
    expect(after.text).toBe('Item 1010');
    expect(after.description).toBe('Description of item 1010');
  });

  it('lets a participating executor (also a partially limited one) change the status', async () => {
    expect(expectOk(await patchStatus('executor', { id: 1000, status: 'in_progress' })).changed).toBe(true);
    expect(expectOk(await patchStatus('partial', { id: 1000, status: 'pending' })).changed).toBe(true);
    const history = (await card(1000)).status_history.slice(-2);
    expect(history.map((h: any) => [h.from, h.to, h.user.id])).toEqual([
      ['pending', 'in_progress', USERS.executor],
      ['in_progress', 'pending', USERS.partial],
    ]);
  });

  it('refuses invalid input with 422 before looking the item up', async () => {
    const cases: [unknown, string][] = [
      [{ id: 1010, status: 'archived' }, 'status'],
      [{ id: 1010, status: 'DONE' }, 'status'],
      [{ id: 1010, status: null }, 'status'],
      [{ id: 1010 }, 'status'],
      [{ status: 'done' }, 'id'],
      [{ id: '1010', status: 'done' }, 'id'],
      [{ id: 0, status: 'done' }, 'id'],
      [{ id: -5, status: 'done' }, 'id'],
      [{ id: 1010.5, status: 'done' }, 'id'],
      [{ id: null, status: 'done' }, 'id'],
      [[{ id: 1010, status: 'done' }], 'body'],
    ];
    for (const [json, field] of cases) {
      const res = await refused(1010, () => patchStatus('manager', json), 422, 'validation_error');
      expect(res.body.error.details?.[0]?.field, JSON.stringify(json)).toBe(field);
      expect(res.body.error.message).toContain(field);
    }
    // Invisible item with a bad body: the 422 comes first.
    await refused(4000, () => patchStatus('manager', { id: 4000, status: 'nope' }), 422, 'validation_error');
  });

  it('refuses with 403 forbidden whoever sees the item but may not change its status', async () => {
    await refused(1000, () => patchStatus('observer', { id: 1000, status: 'done' }), 403, 'forbidden');
    await refused(1000, () => patchStatus('bystander', { id: 1000, status: 'done' }), 403, 'forbidden');
    await refused(1001, () => patchStatus('partial', { id: 1001, status: 'done' }), 403, 'forbidden');
    // Archived project: read-only for everybody, even with the same status.
    await refused(3000, () => patchStatus('manager', { id: 3000, status: 'pending' }), 403, 'forbidden');
    await refused(3000, () => patchStatus('executor', { id: 3000, status: 'done' }), 403, 'forbidden');
    await refused(3000, () => patchStatus('admin', { id: 3000, status: 'pending' }), 403, 'forbidden');
  });

  it('answers 404 for items the user cannot see or that do not exist', async () => {
    await refused(1000, () => patchStatus('outsider', { id: 1000, status: 'done' }), 404, 'not_found');
    await refused(2000, () => patchStatus('partial', { id: 2000, status: 'pending' }), 404, 'not_found');
    await refused(4000, () => patchStatus('manager', { id: 4000, status: 'done' }), 404, 'not_found');
    expectError(await patchStatus('admin', { id: 999999, status: 'done' }), 404, 'not_found');
  });
});

describe('PATCH /items/planning.php', () => {
  it('sets deadline, priority and requires_answer together', async () => {
    const before = await card(1011);
    const data = expectOk(await patchPlanning('manager', { id: 1011, deadline: '2026-09-30', priority: 'high', requires_answer: true }));
    expect(data).toEqual({
      item: { id: 1011, deadline: '2026-09-30', priority: 'high', requires_answer: true, updated_at: expect.stringMatching(ISO_DATE_TIME) },
    });
    expect(data.item.updated_at > before.updated_at).toBe(true);
    const after = await card(1011);
    expect(after).toMatchObject({ deadline: '2026-09-30', priority: 'high', requires_answer: true, updated_at: data.item.updated_at });
    expect(after.status_history).toEqual(before.status_history);
  });

  it('a misspelt field (dedline) is 422 naming it and changes nothing', async () => {
    const res = await refused(1011, () => patchPlanning('manager', { id: 1011, dedline: '2026-12-01' }), 422, 'validation_error');
    expect(res.body.error.details).toEqual([{ field: 'dedline', message: expect.stringContaining('not a field') }]);
  });

  it('applies only the fields given and never text or description', async () => {
    await refused(
      1011,
      () => patchPlanning('manager', { id: 1011, priority: 'low', text: 'Renamed', description: 'Rewritten', status: 'done' }),
      422,
      'validation_error',
    );
    const data = expectOk(await patchPlanning('manager', { id: 1011, priority: 'low' }));
    expect(data.item).toMatchObject({ deadline: '2026-09-30', priority: 'low', requires_answer: true });
    const after = await card(1011);
    expect(after).toMatchObject({ text: 'Item 1011', description: 'Description of item 1011', status: 'blocked', priority: 'low' });
    expectOk(await patchPlanning('admin', { id: 1011, requires_answer: false }));
    expect(await card(1011)).toMatchObject({ deadline: '2026-09-30', priority: 'low', requires_answer: false });
  });

  it('clears the deadline with null and with ""', async () => {
    expect(expectOk(await patchPlanning('manager', { id: 1011, deadline: null })).item.deadline).toBeNull();
    expect((await card(1011)).deadline).toBeNull();
    expectOk(await patchPlanning('manager', { id: 1011, deadline: '2028-02-29' }));
    expect((await card(1011)).deadline).toBe('2028-02-29');
    expect(expectOk(await patchPlanning('manager', { id: 1011, deadline: '' })).item.deadline).toBeNull();
    expect((await card(1011)).deadline).toBeNull();
  });

  it('the same values again change nothing, not even updated_at', async () => {
    const before = await card(1011);
    const data = expectOk(await patchPlanning('manager', { id: 1011, deadline: null, priority: before.priority, requires_answer: false }));
    expect(data.item.updated_at).toBe(before.updated_at);
    expect(await card(1011)).toEqual(before);
  });

  it('refuses invalid input with 422', async () => {
    const cases: [unknown, string][] = [
      [{ id: 1011 }, 'body'],
      [{ id: 1011, text: 'only text' }, 'text'],
      [{ id: 1011, priority: 'urgent' }, 'priority'],
      [{ id: 1011, priority: null }, 'priority'],
      [{ id: 1011, requires_answer: 'yes' }, 'requires_answer'],
      [{ id: 1011, requires_answer: 1 }, 'requires_answer'],
      [{ id: 1011, requires_answer: null }, 'requires_answer'],
      [{ id: 1011, deadline: '2026-02-30' }, 'deadline'],
      [{ id: 1011, deadline: '2027-02-29' }, 'deadline'],
      [{ id: 1011, deadline: '2026-2-3' }, 'deadline'],
      [{ id: 1011, deadline: '30.09.2026' }, 'deadline'],
      [{ id: 1011, deadline: '2026-09-30T00:00:00Z' }, 'deadline'],
      [{ id: 1011, deadline: 20260930 }, 'deadline'],
      [{ id: '1011', priority: 'low' }, 'id'],
      [{ priority: 'low' }, 'id'],
    ];
    for (const [json, field] of cases) {
      const res = await refused(1011, () => patchPlanning('manager', json), 422, 'validation_error');
      expect(res.body.error.details?.[0]?.field, JSON.stringify(json)).toBe(field);
    }
  });

  it('is for managers and admins only: 403 for executors (even participants) and observers, 404 when unseen', async () => {
    await refused(1000, () => patchPlanning('executor', { id: 1000, priority: 'high' }), 403, 'forbidden');
    await refused(1000, () => patchPlanning('partial', { id: 1000, priority: 'high' }), 403, 'forbidden');
    await refused(1000, () => patchPlanning('observer', { id: 1000, priority: 'high' }), 403, 'forbidden');
    await refused(3000, () => patchPlanning('manager', { id: 3000, priority: 'high' }), 403, 'forbidden');
    await refused(1000, () => patchPlanning('outsider', { id: 1000, priority: 'high' }), 404, 'not_found');
    await refused(2001, () => patchPlanning('partial', { id: 2001, priority: 'high' }), 404, 'not_found');
    expectOk(await patchPlanning('admin', { id: 4000, priority: 'high' }));
  });
});

describe('POST /comments/create.php', () => {
  it('adds a trimmed comment, shaped like the card, and moves updated_at', async () => {
    const before = await card(1000);
    const data = expectOk(await postComment('executor', { item_id: 1000, text: '  Checked the east wing \n' }), 201);
    expect(data).toEqual({
      comment: {
        id: expect.any(Number),
        text: 'Checked the east wing',
        author: { id: USERS.executor, name: 'Executor' },
        created_at: expect.stringMatching(ISO_DATE_TIME),
      },
    });
    const after = await card(1000);
    expect(after.comments).toEqual([...before.comments, data.comment]);
    expect(after.updated_at).toBe(data.comment.created_at);
    expect(after.updated_at > before.updated_at).toBe(true);
    expect(after.status_history).toEqual(before.status_history);
  });

  it('is open to every member who sees the item (observers and non-participants included)', async () => {
    for (const user of ['observer', 'bystander', 'manager', 'admin'] as const) {
      const data = expectOk(await postComment(user, { item_id: 1001, text: `From ${user}` }), 201);
      expect(data.comment.author.id).toBe(USERS[user]);
    }
    expectOk(await postComment('partial', { item_id: 2010, text: 'In my granted checklist' }), 201);
  });

  it('counts the length in characters (code points), after trimming', async () => {
    const emoji = '😀'.repeat(20_000);
    expect(expectOk(await postComment('executor', { item_id: 1001, text: ` ${emoji} ` }), 201).comment.text).toBe(emoji);
    expectOk(await postComment('executor', { item_id: 1001, text: 'x'.repeat(20_000) }), 201);
    await refused(1001, () => postComment('executor', { item_id: 1001, text: 'x'.repeat(20_001) }), 422, 'validation_error');
  });

  it('refuses invalid input with 422', async () => {
    const cases: [unknown, string][] = [
      [{ item_id: 1000 }, 'text'],
      [{ text: 'hello' }, 'item_id'],
      [{ item_id: 1000, text: '' }, 'text'],
      [{ item_id: 1000, text: '   \n\t ' }, 'text'],
      [{ item_id: 1000, text: 42 }, 'text'],
      [{ item_id: 1000, text: null }, 'text'],
      [{ item_id: 1000, text: ['a'] }, 'text'],
      [{ item_id: '1000', text: 'hello' }, 'item_id'],
      [{ item_id: 1000, text: 'NUL \u0000 inside' }, 'text'],
    ];
    for (const [json, field] of cases) {
      const res = await refused(1000, () => postComment('executor', json), 422, 'validation_error');
      expect(res.body.error.details?.[0]?.field, JSON.stringify(json)).toBe(field);
    }
    // Validation before visibility.
    await refused(4000, () => postComment('outsider', { item_id: 4000, text: ' ' }), 422, 'validation_error');
  });

  it('403 on an archived project, 404 when the item is not visible', async () => {
    await refused(3000, () => postComment('manager', { item_id: 3000, text: 'Late note' }), 403, 'forbidden');
    await refused(1000, () => postComment('outsider', { item_id: 1000, text: 'Hi' }), 404, 'not_found');
    await refused(2000, () => postComment('partial', { item_id: 2000, text: 'Hi' }), 404, 'not_found');
    expectError(await postComment('manager', { item_id: 123456, text: 'Hi' }), 404, 'not_found');
  });
});

describe('POST /answers/create.php', () => {
  it('adds a pending answer with its links, shaped like the card', async () => {
    const before = await card(1000);
    const res = await postAnswer('executor', {
      item_id: 1000,
      text: ' The act is signed ',
      document_links: [
        { title: ' Act ', url: 'https://example.test/act.pdf' },
        { kind: 'spreadsheet', title: 'Register', url: 'http://example.test/register' },
      ],
    });
    const data = expectOk(res, 201);
    expect(data).toEqual({
      answer: {
        id: expect.any(Number),
        text: 'The act is signed',
        status: 'pending',
        author: { id: USERS.executor, name: 'Executor' },
        document_links: [
          { id: expect.any(Number), kind: 'document', title: 'Act', url: 'https://example.test/act.pdf' },
          { id: expect.any(Number), kind: 'spreadsheet', title: 'Register', url: 'http://example.test/register' },
        ],
        attachments: [],
        created_at: expect.stringMatching(ISO_DATE_TIME),
        updated_at: expect.stringMatching(ISO_DATE_TIME),
      },
    });
    const after = await card(1000);
    expect(after.answers).toEqual([...before.answers, data.answer]);
    // The answer's links are its own, not the item's.
    expect(after.document_links).toEqual(before.document_links);
    expect(after.updated_at).toBe(data.answer.created_at);
  });

  it('takes text alone, and an empty links list', async () => {
    expect(expectOk(await postAnswer('manager', { item_id: 1001, text: 'Plain' }), 201).answer.document_links).toEqual([]);
    expect(expectOk(await postAnswer('admin', { item_id: 1001, text: 'Plain', document_links: [] }), 201).answer.status).toBe('pending');
  });

  it('refuses invalid input with 422 and stores nothing', async () => {
    const links = (n: number) => Array.from({ length: n }, (_, i) => ({ title: `L${i}`, url: `https://example.test/${i}` }));
    const cases: [unknown, string][] = [
      [{ item_id: 1000 }, 'text'],
      [{ item_id: 1000, text: '  ' }, 'text'],
      [{ item_id: 1000, text: 'ok', document_links: [{ title: 'x', url: 'javascript:alert(1)' }] }, 'document_links[0].url'],
      [{ item_id: 1000, text: 'ok', document_links: [...links(2), { title: 'x', url: '/relative' }] }, 'document_links[2].url'],
      [{ item_id: 1000, text: 'ok', document_links: [{ title: '', url: 'https://example.test' }] }, 'document_links[0].title'],
      [{ item_id: 1000, text: 'ok', document_links: [{ kind: 'pdf', title: 'x', url: 'https://example.test' }] }, 'document_links[0].kind'],
      [{ item_id: 1000, text: 'ok', document_links: links(101) }, 'document_links'],
      [{ item_id: 1000, text: 'ok', document_links: 'https://example.test' }, 'document_links'],
      [{ item_id: 1000, text: 'x'.repeat(20_001) }, 'text'],
    ];
    for (const [json, field] of cases) {
      const res = await refused(1000, () => postAnswer('executor', json), 422, 'validation_error');
      expect(res.body.error.details?.[0]?.field, JSON.stringify(json).slice(0, 200)).toBe(field);
    }
  });

  it('403 for observers, non-participating executors and archived projects; 404 when unseen', async () => {
    await refused(1000, () => postAnswer('observer', { item_id: 1000, text: 'No' }), 403, 'forbidden');
    await refused(1000, () => postAnswer('bystander', { item_id: 1000, text: 'No' }), 403, 'forbidden');
    await refused(1001, () => postAnswer('partial', { item_id: 1001, text: 'No' }), 403, 'forbidden');
    await refused(3000, () => postAnswer('executor', { item_id: 3000, text: 'No' }), 403, 'forbidden');
    await refused(3000, () => postAnswer('manager', { item_id: 3000, text: 'No' }), 403, 'forbidden');
    await refused(1000, () => postAnswer('outsider', { item_id: 1000, text: 'No' }), 404, 'not_found');
    await refused(2001, () => postAnswer('partial', { item_id: 2001, text: 'No' }), 404, 'not_found');
    expectOk(await postAnswer('partial', { item_id: 1000, text: 'Partial participant' }), 201);
  });
});

describe('PUT /items/links.php', () => {
  it('replaces the whole list, in order, with kind defaulting to document', async () => {
    const before = await card(1001);
    const data = expectOk(
      await putLinks('manager', {
        id: 1001,
        document_links: [
          { title: '  Drawing ', url: 'https://example.test/drawing' },
          { kind: 'folder', title: 'Photos', url: 'https://example.test/photos/' },
          { kind: 'video', title: 'Walkthrough', url: 'http://example.test/video?t=1' },
        ],
      }),
    );
    expect(data.document_links).toEqual([
      { id: expect.any(Number), kind: 'document', title: 'Drawing', url: 'https://example.test/drawing' },
      { id: expect.any(Number), kind: 'folder', title: 'Photos', url: 'https://example.test/photos/' },
      { id: expect.any(Number), kind: 'video', title: 'Walkthrough', url: 'http://example.test/video?t=1' },
    ]);
    const after = await card(1001);
    expect(after.document_links).toEqual(data.document_links);
    expect(after.updated_at > before.updated_at).toBe(true);

    const again = expectOk(
      await putLinks('manager', { id: 1001, document_links: [{ kind: 'link', title: 'Only', url: 'https://example.test/only' }] }),
    );
    expect(again.document_links).toHaveLength(1);
    expect(data.document_links.map((l: any) => l.id)).not.toContain(again.document_links[0].id);
    expect((await card(1001)).document_links).toEqual(again.document_links);
  });

  it('[] clears the list; answers keep their own links', async () => {
    const answerLinks = (await card(1000)).answers.map((a: any) => a.document_links);
    expect(expectOk(await putLinks('executor', { id: 1000, document_links: [] }))).toEqual({ document_links: [] });
    const after = await card(1000);
    expect(after.document_links).toEqual([]);
    expect(after.answers.map((a: any) => a.document_links)).toEqual(answerLinks);
  });

  it('accepts 100 links; stores URLs in their normalized form', async () => {
    const links = Array.from({ length: 100 }, (_, i) => ({ title: `Sheet ${i}`, url: `https://example.test/${i}` }));
    expect(expectOk(await putLinks('admin', { id: 1001, document_links: links })).document_links).toHaveLength(100);
    const data = expectOk(await putLinks('admin', { id: 1001, document_links: [{ title: 'Case', url: ' HTTPS://Example.TEST/a b ' }] }));
    expect(data.document_links[0].url).toBe('https://example.test/a%20b');
  });

  it('one bad link refuses the request with 422 naming it, and the old list stays', async () => {
    expectOk(await putLinks('manager', { id: 1001, document_links: [{ title: 'Keep', url: 'https://example.test/keep' }] }));
    const good = (i: number) => ({ title: `Good ${i}`, url: `https://example.test/${i}` });
    const cases: [unknown[], string][] = [
      [[good(0), good(1), { title: 'XSS', url: 'javascript:alert(1)' }], 'document_links[2].url'],
      [[{ title: 'Data', url: 'data:text/html,<script>alert(1)</script>' }], 'document_links[0].url'],
      [[good(0), { title: 'Relative', url: '/relative' }], 'document_links[1].url'],
      [[{ title: 'Schemeless', url: 'example.test/page' }], 'document_links[0].url'],
      [[{ title: 'FTP', url: 'ftp://example.test/file' }], 'document_links[0].url'],
      [[{ title: 'Mail', url: 'mailto:someone@example.test' }], 'document_links[0].url'],
      [[{ title: 'File', url: 'file:///etc/passwd' }], 'document_links[0].url'],
      [[{ title: 'Empty', url: '' }], 'document_links[0].url'],
      [[{ title: 'Hostless', url: 'http://' }], 'document_links[0].url'],
      [[{ title: 'Number', url: 42 }], 'document_links[0].url'],
      [[{ title: 'No url' }], 'document_links[0].url'],
      [[good(0), { url: 'https://example.test' }], 'document_links[1].title'],
      [[{ title: '   ', url: 'https://example.test' }], 'document_links[0].title'],
      [[{ title: 'x'.repeat(501), url: 'https://example.test' }], 'document_links[0].title'],
      [[{ kind: 'pdf', title: 'Kind', url: 'https://example.test' }], 'document_links[0].kind'],
      [[{ kind: null, title: 'Kind', url: 'https://example.test' }], 'document_links[0].kind'],
      [['https://example.test'], 'document_links[0]'],
      [Array.from({ length: 101 }, (_, i) => good(i)), 'document_links'],
    ];
    for (const [links, field] of cases) {
      const res = await refused(1001, () => putLinks('manager', { id: 1001, document_links: links }), 422, 'validation_error');
      expect(res.body.error.details?.[0]?.field, JSON.stringify(links).slice(0, 200)).toBe(field);
      expect(res.body.error.message).toContain(field);
    }
    for (const json of [{ id: 1001 }, { id: 1001, document_links: null }, { id: 1001, document_links: {} }, { document_links: [] }]) {
      await refused(1001, () => putLinks('manager', json), 422, 'validation_error');
    }
    expect((await card(1001)).document_links.map((l: any) => l.title)).toEqual(['Keep']);
    // A title of exactly 500 characters (code points) is fine.
    expectOk(await putLinks('manager', { id: 1001, document_links: [{ title: 'é'.repeat(500), url: 'https://example.test' }] }));
  });

  it('403 for observers, non-participating executors and archived projects; 404 when unseen', async () => {
    const json = (id: number) => ({ id, document_links: [] });
    await refused(1000, () => putLinks('observer', json(1000)), 403, 'forbidden');
    await refused(1000, () => putLinks('bystander', json(1000)), 403, 'forbidden');
    await refused(1001, () => putLinks('partial', json(1001)), 403, 'forbidden');
    await refused(3000, () => putLinks('manager', json(3000)), 403, 'forbidden');
    await refused(1000, () => putLinks('outsider', json(1000)), 404, 'not_found');
    await refused(2000, () => putLinks('partial', json(2000)), 404, 'not_found');
  });
});

describe('authentication and scopes of the writes', () => {
  it('401 without a token, 403 scope_missing before any validation, on every write', async () => {
    for (const [name, endpoint] of Object.entries(ENDPOINTS)) {
      const noToken = await server.call(endpoint.path, { method: endpoint.method, json: endpoint.ok(1000) });
      expectError(noToken, 401, 'unauthorized');
      const token = await tokenWith(USERS.manager, scopesExcept(endpoint.scope));
      await refused(
        1000,
        () => server.call(endpoint.path, { method: endpoint.method, token, json: endpoint.ok(1000) }),
        403,
        'scope_missing',
      );
      // The scope comes before the body: an invalid body still gets scope_missing.
      const bad = await server.call(endpoint.path, { method: endpoint.method, token, json: { nonsense: true } });
      expectError(bad, 403, 'scope_missing');
      // With only that scope, the write goes through (reading is not needed for writing).
      const only = await tokenWith(USERS.manager, [endpoint.scope]);
      const res = await server.call(endpoint.path, { method: endpoint.method, token: only, json: endpoint.ok(1001) });
      expect([200, 201], `${name}: ${JSON.stringify(res.body)}`).toContain(res.status);
      successfulWrites.push({
        requestId: res.body.meta.request_id,
        method: endpoint.method,
        path: endpoint.path,
        status: res.status,
        itemId: 1001,
        userId: USERS.manager,
      });
    }
  });

  it('a wrong method on a write path is 405 with Allow; bodies must be JSON', async () => {
    const res = await server.call(STATUS, { method: 'POST', token: server.tokens.manager, json: { id: 1000, status: 'done' } });
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('PATCH');
    const form = await server.call(COMMENT, {
      method: 'POST',
      token: server.tokens.manager,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'item_id=1000&text=hi',
    });
    expectError(form, 415, 'unsupported_media_type');
  });
});

describe('concurrency', () => {
  it('parallel status changes on one item keep one consistent history chain', async () => {
    const before = await card(2001);
    const statuses = ['in_progress', 'done', 'blocked', 'pending'];
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => patchStatus(i % 2 ? 'manager' : 'admin', { id: 2001, status: statuses[i % 4] })),
    );
    for (const res of results) expectOk(res);
    const changed = results.filter((r) => r.body.data.changed).length;
    const after = await card(2001);
    const added = after.status_history.slice(before.status_history.length);
    expect(added).toHaveLength(changed);
    let previous = before.status;
    for (const entry of added) {
      expect(entry.kind).toBe('status_changed');
      expect(entry.from).toBe(previous);
      expect(entry.to).not.toBe(entry.from);
      previous = entry.to;
    }
    expect(after.status).toBe(previous);
  });

  it('parallel comments and link replacements all land, each whole', async () => {
    const before = await card(2010);
    const comments = await Promise.all(
      Array.from({ length: 15 }, (_, i) => postComment(i % 2 ? 'partial' : 'manager', { item_id: 2010, text: `Parallel ${i}` })),
    );
    for (const res of comments) expectOk(res, 201);
    const lists = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        putLinks('manager', {
          id: 2010,
          document_links: Array.from({ length: 3 }, (_, j) => ({ title: `Set ${i} link ${j}`, url: `https://example.test/${i}/${j}` })),
        }),
      ),
    );
    for (const res of lists) expectOk(res);
    const after = await card(2010);
    expect(after.comments).toHaveLength(before.comments.length + 15);
    // Exactly one of the replacements, never a mixture.
    const set = after.document_links[0].title.split(' ')[1];
    expect(after.document_links.map((l: any) => l.title)).toEqual([0, 1, 2].map((j) => `Set ${set} link ${j}`));
  });
});

describe('audit', () => {
  it('every successful write has exactly one audit record, committed before the response', async () => {
    const res = await postComment('manager', { item_id: 1001, text: 'Audited' });
    expectOk(res, 201);
    // No wait: the record is written in the write's own transaction.
    const immediate = await server.ctx.audit.list({ limit: 100_000 });
    expect(immediate.filter((r) => r.request_id === res.body.meta.request_id)).toHaveLength(1);

    await pause(100);
    const records = await server.ctx.audit.list({ limit: 100_000 });
    expect(successfulWrites.length).toBeGreaterThan(50);
    for (const w of successfulWrites) {
      const mine = records.filter((r) => r.request_id === w.requestId);
      expect(mine, `${w.method} ${w.path} ${w.requestId}`).toHaveLength(1);
      expect(mine[0]).toMatchObject({
        method: w.method,
        path: w.path,
        status: w.status,
        error_code: null,
        entity_type: 'item',
        entity_id: w.itemId,
        query: '',
      });
      if (w.userId > 0) expect(mine[0]!.user_id).toBe(w.userId);
      expect(mine[0]!.token_id).toBeTypeOf('number');
    }
  });

  it('refused writes are recorded too, with their error code', async () => {
    const res = await patchStatus('observer', { id: 1000, status: 'done' });
    expectError(res, 403, 'forbidden');
    await pause(100);
    const record = (await server.ctx.audit.list({ userId: USERS.observer })).find((r) => r.request_id === res.body.meta.request_id);
    expect(record).toMatchObject({ status: 403, error_code: 'forbidden', entity_type: 'item', entity_id: 1000, method: 'PATCH' });
  });
});
