import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVALID_DATA_MESSAGE } from '../../src/shared/errors.js';
import { refuseInserts } from '../helpers/database.js';
import { expectError } from '../helpers/envelope.js';
import { isWebp, pngBomb, solid } from '../helpers/images.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { uploadHelpers } from './upload-helpers.js';

/** Image uploads to items: formats, limits, validation, access, audit, names, atomicity (answers and downloads: attachments-answers-downloads.test.ts). */

let server: TestServer;
let png16: Buffer;

beforeAll(async () => {
  server = await startTestServer();
  png16 = await solid(16, 16, 'png');
});
afterAll(() => server.close());
const { upload, blobKeys, attachmentCount } = uploadHelpers(() => server);

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
      expect(download.headers.get('cache-control')).toBe('private, no-cache');
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
