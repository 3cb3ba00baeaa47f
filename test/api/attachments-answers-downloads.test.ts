import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solid, uploadForm } from '../helpers/images.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { PASSWORD, USERS } from '../helpers/workspace.js';
import { uploadHelpers } from './upload-helpers.js';

/** Image uploads to answers, downloads by token and by web session, slow and idempotent uploads (items: attachments.test.ts). */

let server: TestServer;
let png16: Buffer;

beforeAll(async () => {
  server = await startTestServer();
  png16 = await solid(16, 16, 'png');
});
afterAll(() => server.close());
const { upload, attachmentCount } = uploadHelpers(() => server);

describe('POST answers/attachments.php', () => {
  it('resets an approved answer to pending, recording the reset', async () => {
    const res = await upload('executor', 'answers/attachments.php', { answer_id: '7000' }, [
      { name: 'act.jpg', bytes: await solid(32, 32, 'jpeg') },
    ]);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ status_reset: true, answer_status: 'pending' });
    expect(res.body.data.attachments[0].path).toMatch(/^answers\/7000\/.+\.webp$/);
    expect(res.body.data.attachments[0].url).toContain('/api/answers/file.php?id=');
    const reviews = await server.ctx.db.kysely.selectFrom('answer_reviews').selectAll().where('answer_id', '=', 7000).execute();
    expect(reviews).toMatchObject([{ from_status: 'approved', to_status: 'pending', reason: 'attachments_added', user_id: 3 }]);
    const card = await server.call(`${V1}/items/get.php?id=1000`, { token: server.tokens.manager });
    const answer = card.body.data.item.answers.find((a: { id: number }) => a.id === 7000);
    expect(answer.status).toBe('pending');
    expect(answer.attachments).toHaveLength(1);
    const again = await upload('executor', 'answers/attachments.php', { answer_id: '7000' }, [{ name: 'more.png', bytes: png16 }]);
    expect(again.body.data).toMatchObject({ status_reset: false, answer_status: 'pending' });
  });

  it('resets a rejected answer to pending as well, after the review that rejected it', async () => {
    const created = await server.call(`${V1}/answers/create.php`, {
      method: 'POST',
      token: server.tokens.executor,
      json: { item_id: 1000, text: 'Redone' },
    });
    expect(created.status).toBe(201);
    const answerId: number = created.body.data.answer.id;
    await server.ctx.review.reviewAnswer({ id: USERS.manager, role: 'member' }, answerId, 'rejected');
    const res = await upload('executor', 'answers/attachments.php', { answer_id: String(answerId) }, [{ name: 'fixed.png', bytes: png16 }]);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ status_reset: true, answer_status: 'pending' });
    const reviews = await server.ctx.db.kysely
      .selectFrom('answer_reviews')
      .selectAll()
      .where('answer_id', '=', answerId)
      .orderBy('id')
      .execute();
    expect(reviews).toMatchObject([
      { from_status: 'pending', to_status: 'rejected', reason: 'review', user_id: USERS.manager },
      { from_status: 'rejected', to_status: 'pending', reason: 'attachments_added', user_id: USERS.executor },
    ]);
    const card = await server.call(`${V1}/items/get.php?id=1000`, { token: server.tokens.manager });
    expect(card.body.data.item.answers.find((a: { id: number }) => a.id === answerId)).toMatchObject({
      status: 'pending',
      attachments: [{ original_name: 'fixed.png' }],
    });
  });

  it('lets the answer author or a participant add images, and nobody else', async () => {
    expect((await upload('partial', 'answers/attachments.php', { answer_id: '7001' }, [{ name: 'a.png', bytes: png16 }])).status).toBe(201);
    expect(
      (await upload('bystander', 'answers/attachments.php', { answer_id: '7001' }, [{ name: 'a.png', bytes: png16 }])).body.error.code,
    ).toBe('forbidden');
    expect(
      (await upload('observer', 'answers/attachments.php', { answer_id: '7001' }, [{ name: 'a.png', bytes: png16 }])).body.error.code,
    ).toBe('forbidden');
    expect((await upload('outsider', 'answers/attachments.php', { answer_id: '7001' }, [{ name: 'a.png', bytes: png16 }])).status).toBe(
      404,
    );
    expect((await upload('manager', 'answers/attachments.php', { answer_id: '99999' }, [{ name: 'a.png', bytes: png16 }])).status).toBe(
      404,
    );
  });
});

describe('downloads', () => {
  it('follows the item’s visibility and the token checks', async () => {
    const item = await upload('manager', 'items/attachments.php', { item_id: '1000' }, [{ name: 'a.png', bytes: png16 }]);
    const answer = await upload('manager', 'answers/attachments.php', { answer_id: '7001' }, [{ name: 'b.png', bytes: png16 }]);
    const itemId = item.body.data.attachments[0].id;
    const answerId = answer.body.data.attachments[0].id;
    const get = (path: string, token?: string) => server.call(path, { token });
    expect((await get(`/api/items/file.php?id=${itemId}`)).status).toBe(401);
    expect((await get(`/api/items/file.php?id=${itemId}`, 'plk_nonsense')).body.error.code).toBe('token_invalid');
    expect((await get(`/api/items/file.php?id=${itemId}`, server.tokens.outsider)).body.error.code).toBe('not_found');
    expect((await get(`/api/items/file.php?id=${itemId}`, server.tokens.partial)).status).toBe(200);
    expect((await get(`/api/answers/file.php?id=${answerId}`, server.tokens.partial)).status).toBe(200);
    // An id of the other kind is not found, like a missing one.
    expect((await get(`/api/answers/file.php?id=${itemId}`, server.tokens.manager)).status).toBe(404);
    expect((await get(`/api/items/file.php?id=${answerId}`, server.tokens.manager)).status).toBe(404);
    expect((await get(`/api/items/file.php?id=abc`, server.tokens.manager)).status).toBe(422);
    const limited = await server.ctx.tokens.createToken({ userId: 2, name: 'no read', scopes: ['auth:me'], expiresAt: null });
    expect((await get(`/api/items/file.php?id=${itemId}`, limited.token)).body.error.code).toBe('scope_missing');
  });
});

describe('slow uploads', () => {
  it('do not stall other requests', async () => {
    const { request: httpRequest } = await import('node:http');
    const boundary = 'punchlist-slow-boundary';
    const { port } = new URL(server.url);
    const slow = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: `${V1}/items/attachments.php`,
      headers: { authorization: `Bearer ${server.tokens.manager}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    const finished = new Promise<number>((resolve, reject) => {
      slow.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      slow.on('error', reject);
    });
    slow.write(`--${boundary}\r\nContent-Disposition: form-data; name="item_id"\r\n\r\n1000\r\n`);
    slow.write(
      `--${boundary}\r\nContent-Disposition: form-data; name="attachments[]"; filename="slow.png"\r\nContent-Type: image/png\r\n\r\n`,
    );
    slow.write(png16.subarray(0, 20));
    // While the upload is stuck mid-file, the server keeps answering.
    const started = Date.now();
    const me = await server.call(`${V1}/auth/me.php`, { token: server.tokens.manager });
    expect(me.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(5000);
    slow.end(Buffer.concat([png16.subarray(20), Buffer.from(`\r\n--${boundary}--\r\n`)]));
    expect(await finished).toBe(201);
  });
});

describe('idempotent uploads', () => {
  it('replays a retried upload and refuses the key for other files', async () => {
    const send = (bytes: Buffer, key: string) =>
      server.call(`${V1}/items/attachments.php`, {
        method: 'POST',
        token: server.tokens.manager,
        headers: { 'idempotency-key': key },
        body: uploadForm({ item_id: '2010' }, [{ name: 'retry.png', bytes }]),
      });
    const rowsBefore = await attachmentCount();
    const first = await send(png16, 'upload-key-1');
    const second = await send(png16, 'upload-key-1');
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(await attachmentCount()).toBe(rowsBefore + 1);
    const other = await send(await solid(20, 20, 'png'), 'upload-key-1');
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_conflict');
    expect(await attachmentCount()).toBe(rowsBefore + 1);
  });
});

describe('downloads with the web session', () => {
  it('serve the signed-in user what they may see, and nothing else', async () => {
    const item = await upload('manager', 'items/attachments.php', { item_id: '2000' }, [{ name: 'permit.png', bytes: png16 }]);
    const url = `/api/items/file.php?id=${item.body.data.attachments[0].id}`;
    const cookieOf = async (who: string) => {
      const result = await server.ctx.sessions.signIn({ email: `${who}@punchlist.test`, password: PASSWORD, ip: '127.0.0.1' });
      if (!result.ok) throw new Error(`sign-in failed: ${result.reason}`);
      return `punchlist_session=${result.cookieValue}`;
    };
    expect((await server.call(url, { headers: { cookie: await cookieOf('observer') } })).status).toBe(200);
    // The partial member does not see checklist 200.
    expect((await server.call(url, { headers: { cookie: await cookieOf('partial') } })).status).toBe(404);
    expect((await server.call(url, { headers: { cookie: 'punchlist_session=forged' } })).status).toBe(401);
  });
});

describe('downloads revalidated by every browser (issue 46: one device, several users)', () => {
  it('answer no-cache with an ETag, and 304 only to whoever passes the access check', async () => {
    const item = await upload('manager', 'items/attachments.php', { item_id: '2000' }, [{ name: 'shared.png', bytes: png16 }]);
    const url = `/api/items/file.php?id=${item.body.data.attachments[0].id}`;
    const cookieOf = async (who: string) => {
      const result = await server.ctx.sessions.signIn({ email: `${who}@punchlist.test`, password: PASSWORD, ip: '127.0.0.1' });
      if (!result.ok) throw new Error(`sign-in failed: ${result.reason}`);
      return `punchlist_session=${result.cookieValue}`;
    };
    const observer = await cookieOf('observer');
    const first = await server.request(url, { headers: { cookie: observer } });
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    // Never kept as fresh: a browser asks again at every use, at a URL the same for every user.
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f-]{36}"$/);
    // The page's user, for the service worker (keeps the photo for them only).
    expect(first.headers.get('x-punchlist-user')).toBe(String(USERS.observer));

    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await server.request(url, { headers: { cookie: observer, 'if-none-match': header } });
      expect(again.status, header).toBe(304);
      expect(await again.text()).toBe('');
      expect(again.headers.get('etag')).toBe(etag);
      expect(again.headers.get('cache-control')).toBe('private, no-cache');
    }
    const changed = await server.request(url, { headers: { cookie: observer, 'if-none-match': '"other"' } });
    expect(changed.status).toBe(200);
    await changed.arrayBuffer();

    // The same conditional request from the next user of the browser: the access check answers first.
    const partial = await server.call(url, { headers: { cookie: await cookieOf('partial'), 'if-none-match': etag } });
    expect(partial.status).toBe(404);
    expect(partial.body.error.code).toBe('not_found');
    expect(partial.headers.get('x-punchlist-user')).toBe(String(USERS.partial));
    const signedOut = await server.call(url, { headers: { 'if-none-match': etag } });
    expect(signedOut.status).toBe(401);
    expect(signedOut.headers.get('x-punchlist-user')).toBeNull();
    const outsider = await server.call(url, { token: server.tokens.outsider, headers: { 'if-none-match': etag } });
    expect(outsider.status).toBe(404);
    const bearer = await server.request(url, { token: server.tokens.observer, headers: { 'if-none-match': etag } });
    expect(bearer.status).toBe(304);
    expect(bearer.headers.get('x-punchlist-user')).toBeNull();
  });
});
