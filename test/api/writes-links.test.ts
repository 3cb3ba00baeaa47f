import { describe, expect, it } from 'vitest';
import { expectError, expectOk } from '../helpers/envelope.js';
import { ENDPOINTS, STATUS, COMMENT, pause, useWritesServer } from '../helpers/v1-writes.js';
import { scopesExcept, USERS } from '../helpers/workspace.js';

/** The v1 write 11 through real HTTP (an item's document links), then what every write shares: authentication, scopes, concurrency, audit. */
const { server, successfulWrites, patchStatus, postComment, putLinks, card, refused, tokenWith, expectEveryWriteAudited } =
  useWritesServer();

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
    await expectEveryWriteAudited(50);
  });

  it('refused writes are recorded too, with their error code', async () => {
    const res = await patchStatus('observer', { id: 1000, status: 'done' });
    expectError(res, 403, 'forbidden');
    await pause(100);
    const record = (await server.ctx.audit.list({ userId: USERS.observer })).find((r) => r.request_id === res.body.meta.request_id);
    expect(record).toMatchObject({ status: 403, error_code: 'forbidden', entity_type: 'item', entity_id: 1000, method: 'PATCH' });
  });
});
