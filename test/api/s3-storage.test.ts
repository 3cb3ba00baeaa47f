import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWebp, solid, uploadForm } from '../helpers/images.js';
import { startS3 } from '../helpers/s3.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';

let s3: Awaited<ReturnType<typeof startS3>>;
let server: TestServer;

beforeAll(async () => {
  s3 = await startS3();
  server = await startTestServer({
    env: { STORAGE_URL: s3.url, AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey },
  });
});
afterAll(async () => {
  await server.close();
  await s3.close();
});

describe('attachments on S3-compatible storage', () => {
  it('stores the WebP in the bucket and streams it back', async () => {
    const form = uploadForm({ item_id: '1000' }, [{ name: 'photo.png', bytes: await solid(64, 48, 'png') }]);
    const res = await server.call(`${V1}/items/attachments.php`, { method: 'POST', token: server.tokens.manager, body: form });
    expect(res.status).toBe(201);
    const attachment = res.body.data.attachments[0];
    const keys: string[] = [];
    for await (const key of server.ctx.blobs.list('items/1000/')) keys.push(key);
    expect(keys).toEqual([attachment.path]);
    const download = await fetch(attachment.url, { headers: { authorization: `Bearer ${server.tokens.executor}` } });
    expect(download.status).toBe(200);
    const bytes = Buffer.from(await download.arrayBuffer());
    expect(isWebp(bytes)).toBe(true);
    expect(await sharp(bytes).metadata()).toMatchObject({ width: 64, height: 48 });
  });
});
