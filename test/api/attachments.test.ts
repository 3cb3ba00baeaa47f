import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVALID_DATA_MESSAGE } from '../../src/errors.js';
import { refuseInserts } from '../helpers/database.js';
import { expectError } from '../helpers/envelope.js';
import { isWebp, pngBomb, solid, uploadForm, type UploadFile } from '../helpers/images.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { PASSWORD, type UserKey, USERS } from '../helpers/workspace.js';

let server: TestServer;
let png16: Buffer;

beforeAll(async () => {
  server = await startTestServer();
  png16 = await solid(16, 16, 'png');
});
afterAll(() => server.close());

async function upload(who: UserKey, path: string, fields: Record<string, string>, files: UploadFile[]) {
  return server.call(`${V1}/${path}`, { method: 'POST', token: server.tokens[who], body: uploadForm(fields, files) });
}

async function blobKeys(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of server.ctx.blobs.list(prefix)) keys.push(key);
  return keys;
}

async function attachmentCount(): Promise<number> {
  const row = await server.ctx.db.kysely
    .selectFrom('attachments')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('POST items/attachments.php', () => {
  it('accepts PNG, JPEG, GIF and WebP, stores WebP and serves it back', async () => {
    const files = await Promise.all(
      (['png', 'jpeg', 'gif', 'webp'] as const).map(async (format) => ({ name: `photo.${format}`, bytes: await solid(40, 30, format) })),
    );
    const res = await upload('manager', 'items/attachments.php', { item_id: '1000' }, files);
    expect(res.status).toBe(201);
    expect(res.body.data.attachments).toHaveLength(4);
    for (const [i, a] of res.body.data.attachments.entries()) {
      expect(a).toMatchObject({ original_name: files[i]!.name, mime_type: 'image/webp', width: 40, height: 30 });
      expect(a.path).toMatch(/^items\/1000\/[0-9a-f-]{36}\.webp$/);
      expect(a.url).toBe(`${server.url}/api/items/file.php?id=${a.id}`);
      const download = await fetch(a.url, { headers: { authorization: `Bearer ${server.tokens.observer}` } });
      expect(download.status).toBe(200);
      expect(download.headers.get('content-type')).toBe('image/webp');
      expect(download.headers.get('x-content-type-options')).toBe('nosniff');
      expect(download.headers.get('cache-control')).toContain('max-age');
      const bytes = Buffer.from(await download.arrayBuffer());
      expect(isWebp(bytes)).toBe(true);
      expect(bytes.length).toBe(a.size);
      expect((await sharp(bytes).metadata()).format).toBe('webp');
      const etag = download.headers.get('etag')!;
      const again = await fetch(a.url, { headers: { authorization: `Bearer ${server.tokens.observer}`, 'if-none-match': etag } });
      expect(again.status).toBe(304);
    }
    const card = await server.call(`${V1}/items/get.php?id=1000`, { token: server.tokens.manager });
    expect(card.body.data.item.attachments.map((a: { id: number }) => a.id)).toEqual(
      res.body.data.attachments.map((a: { id: number }) => a.id),
    );
  });

  it('refuses images under 16×16 with the generic message and accepts 16×16', async () => {
    for (const [w, h] of [
      [1, 1],
      [15, 15],
      [15, 400],
    ] as const) {
      const res = await upload('manager', 'items/attachments.php', { item_id: '1001' }, [
        { name: 'tiny.png', bytes: await solid(w, h, 'png') },
      ]);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'validation_error', message: INVALID_DATA_MESSAGE });
    }
    const ok = await upload('manager', 'items/attachments.php', { item_id: '1001' }, [{ name: 'sixteen.png', bytes: png16 }]);
    expect(ok.status).toBe(201);
  });

  it('reads the format from the bytes, never the name or declared type', async () => {
    const before = await attachmentCount();
    const text = { name: 'notes.png', bytes: Buffer.from('just some text, not an image'), type: 'image/png' };
    const svg = {
      name: 'x.png',
      bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"/>'),
      type: 'image/png',
    };
    const truncated = { name: 'cut.jpg', bytes: (await solid(200, 200, 'jpeg')).subarray(0, 400) };
    for (const file of [text, svg, truncated, { name: 'bomb.png', bytes: pngBomb() }]) {
      const res = await upload('manager', 'items/attachments.php', { item_id: '1001' }, [file]);
      expect(res.status, file.name).toBe(422);
      expect(res.body.error.message).toBe(INVALID_DATA_MESSAGE);
    }
    const renamed = await upload('manager', 'items/attachments.php', { item_id: '1001' }, [
      { name: 'really-a-jpeg.gif', bytes: await solid(20, 20, 'jpeg'), type: 'text/plain' },
    ]);
    expect(renamed.status).toBe(201);
    expect(renamed.body.data.attachments[0].original_name).toBe('really-a-jpeg.gif');
    expect(await attachmentCount()).toBe(before + 1);
  });

  it('is all-or-nothing: one bad file stores nothing, no row and no blob', async () => {
    const rowsBefore = await attachmentCount();
    const blobsBefore = await blobKeys('items/1011/');
    const res = await upload('manager', 'items/attachments.php', { item_id: '1011' }, [
      { name: 'good.png', bytes: png16 },
      { name: 'good2.png', bytes: await solid(64, 64, 'png') },
      { name: 'bad.png', bytes: await solid(1, 1, 'png') },
    ]);
    expect(res.status).toBe(422);
    expect(await attachmentCount()).toBe(rowsBefore);
    expect(await blobKeys('items/1011/')).toEqual(blobsBefore);
  });

  it('enforces the count and size limits', async () => {
    const eleven = Array.from({ length: 11 }, (_, i) => ({ name: `${i}.png`, bytes: png16 }));
    const many = await upload('manager', 'items/attachments.php', { item_id: '1001' }, eleven);
    expect(many.status).toBe(422);
    const huge = await upload('manager', 'items/attachments.php', { item_id: '1001' }, [
      { name: 'huge.png', bytes: Buffer.alloc(21 * 1024 * 1024, 1) },
    ]);
    expect(huge.status).toBe(422);
    expect(huge.body.error.message).toBe(INVALID_DATA_MESSAGE);
  });

  it('validates the fields first', async () => {
    expect((await upload('manager', 'items/attachments.php', {}, [{ name: 'a.png', bytes: png16 }])).body.error.message).toBe(
      'item_id: is required',
    );
    expect((await upload('manager', 'items/attachments.php', { item_id: '01' }, [{ name: 'a.png', bytes: png16 }])).status).toBe(422);
    expect((await upload('manager', 'items/attachments.php', { item_id: '1000' }, [])).body.error.details[0].field).toBe('attachments[]');
    const json = await server.call(`${V1}/items/attachments.php`, {
      method: 'POST',
      token: server.tokens.manager,
      json: { item_id: 1000 },
    });
    expect(json.status).toBe(415);
    expect(json.body.error.code).toBe('unsupported_media_type');
  });

  it('applies the access policy before looking at image content', async () => {
    const bad = [{ name: 'tiny.png', bytes: await solid(1, 1, 'png') }];
    expect((await upload('outsider', 'items/attachments.php', { item_id: '1000' }, bad)).status).toBe(404);
    expect((await upload('partial', 'items/attachments.php', { item_id: '2000' }, bad)).status).toBe(404);
    expect((await upload('manager', 'items/attachments.php', { item_id: '999999' }, bad)).status).toBe(404);
    expect((await upload('observer', 'items/attachments.php', { item_id: '1000' }, bad)).body.error.code).toBe('forbidden');
    expect((await upload('bystander', 'items/attachments.php', { item_id: '1000' }, bad)).body.error.code).toBe('forbidden');
    expect((await upload('manager', 'items/attachments.php', { item_id: '3000' }, bad)).body.error.code).toBe('forbidden');
    const good = [{ name: 'ok.png', bytes: png16 }];
    expect((await upload('executor', 'items/attachments.php', { item_id: '1000' }, good)).status).toBe(201);
    expect((await upload('admin', 'items/attachments.php', { item_id: '4000' }, good)).status).toBe(201);
  });

  it('records each successful upload once in the audit log', async () => {
    const res = await upload('manager', 'items/attachments.php', { item_id: '1010' }, [{ name: 'a.png', bytes: png16 }]);
    const records = (await server.ctx.audit.list({ limit: 1000 })).filter((r) => r.request_id === res.body.meta.request_id);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ status: 201, method: 'POST', entity_type: 'item', entity_id: 1010, token_id: 2 });
  });

  it('keeps the sent name for display only: no path, no control characters, at most 255 characters', async () => {
    // `filename*` (RFC 7578 drops it, busboy still decodes it) carries any byte; CR and LF excepted: busboy skips such a part.
    const sent: Array<[header: string, expected: string]> = [
      ['filename="../../etc/passwd.png"', 'passwd.png'],
      ['filename="..\\..\\Windows\\win.ini.png"', 'win.ini.png'],
      ['filename=".."', 'image'],
      [`filename*=UTF-8''${encodeURIComponent('a\u0000b\tc\u0007\u001b[31m\u0085d\u202egnp.exe')}`, 'abc[31mdgnp.exe'],
      [`filename*=UTF-8''${encodeURIComponent('x/..\u0000/y\u0000.png')}`, 'y.png'],
      [`filename="${'a'.repeat(300)}.png"`, 'a'.repeat(255)],
      [`filename*=UTF-8''${encodeURIComponent('фото'.repeat(100))}`, 'фото'.repeat(64).slice(0, 255)],
    ];
    const boundary = 'punchlist-names-boundary';
    const parts = sent.map(
      ([header]) => `--${boundary}\r\nContent-Disposition: form-data; name="attachments[]"; ${header}\r\nContent-Type: image/png\r\n\r\n`,
    );
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="item_id"\r\n\r\n1011\r\n`),
      ...parts.flatMap((part) => [Buffer.from(part), png16, Buffer.from('\r\n')]),
      Buffer.from(`--${boundary}--\r\n`),
    ]);
    const res = await server.call(`${V1}/items/attachments.php`, {
      method: 'POST',
      token: server.tokens.manager,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
    });
    expect(res.status).toBe(201);
    const attachments: Array<{ original_name: string; path: string }> = res.body.data.attachments;
    expect(attachments.map((a) => a.original_name)).toEqual(sent.map(([, expected]) => expected));
    for (const a of attachments) {
      expect(Array.from(a.original_name).length).toBeLessThanOrEqual(255);
      // The storage key is the item and a fresh UUID, whatever the name said.
      expect(a.path).toMatch(/^items\/1011\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.webp$/);
    }
    expect(await blobKeys('items/1011/')).toEqual(expect.arrayContaining(attachments.map((a) => a.path)));
    // Nothing was written where the names pointed.
    expect(await blobKeys('etc/')).toEqual([]);
    const card = await server.call(`${V1}/items/get.php?id=1011`, { token: server.tokens.manager });
    expect(card.body.data.item.attachments.map((a: { original_name: string }) => a.original_name)).toEqual(
      sent.map(([, expected]) => expected),
    );
  });

  it('refuses an attachments[] part that is not a file, never dropping it', async () => {
    // Without a file name (and with a text type) a part is a plain field to the multipart parser.
    const boundary = 'punchlist-field-boundary';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="item_id"\r\n\r\n1011\r\n`),
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="attachments[]"; filename="ok.png"\r\nContent-Type: image/png\r\n\r\n`,
      ),
      png16,
      Buffer.from(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="attachments[]"\r\n\r\nnot a file\r\n`),
      Buffer.from(`--${boundary}--\r\n`),
    ]);
    const before = await blobKeys('items/1011/');
    const res = await server.call(`${V1}/items/attachments.php`, {
      method: 'POST',
      token: server.tokens.manager,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
    });
    expectError(res, 422, 'validation_error');
    expect(await blobKeys('items/1011/')).toEqual(before);
  });

  it('removes the stored blobs when the database write fails', async () => {
    const undo = await refuseInserts(server.ctx.db.kysely, 'attachments');
    try {
      const before = await blobKeys('items/2001/');
      const res = await upload('manager', 'items/attachments.php', { item_id: '2001' }, [
        { name: 'a.png', bytes: png16 },
        { name: 'b.png', bytes: png16 },
      ]);
      expect(res.status).toBe(500);
      expect(res.body.error.code).toBe('internal_error');
      expect(await blobKeys('items/2001/')).toEqual(before);
    } finally {
      await undo();
    }
  });
});

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
