import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3 } from '../../test/helpers/s3.js';
import { openBlobStore } from './index.js';
import { parseS3Url, S3BlobStore } from './s3-blob-store.js';

let s3: Awaited<ReturnType<typeof startS3>>;
let store: S3BlobStore;

beforeAll(async () => {
  s3 = await startS3();
  store = openBlobStore(`${s3.url.replace('s3://punchlist', 's3://punchlist/tenant-a')}`, s3.credentials) as S3BlobStore;
});
afterAll(async () => {
  store.close();
  await s3.close();
});

describe('parseS3Url', () => {
  it('reads bucket, prefix and options', () => {
    expect(parseS3Url('s3://bucket/some/prefix/?endpoint=http%3A%2F%2F127.0.0.1%3A9000&region=eu-west-1&forcePathStyle=true')).toEqual({
      bucket: 'bucket',
      prefix: 'some/prefix/',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
    });
    expect(parseS3Url('s3://bucket')).toMatchObject({ prefix: '', region: 'us-east-1', forcePathStyle: false, endpoint: undefined });
  });
});

describe('S3BlobStore against a real S3-compatible server', () => {
  it('puts, streams back, overwrites, lists and deletes', async () => {
    await store.check();
    await store.put('items/1/a.webp', Buffer.from('first'), 'image/webp');
    await store.put('items/1/b.webp', Buffer.from('second'), 'image/webp');
    await store.put('answers/7/c.webp', Buffer.from('third'), 'image/webp');
    const got = await store.get('items/1/a.webp');
    expect(got?.size).toBe(5);
    expect(await text(got!.stream)).toBe('first');
    await store.put('items/1/a.webp', Buffer.from('replaced'), 'image/webp');
    expect(await text((await store.get('items/1/a.webp'))!.stream)).toBe('replaced');
    const keys: string[] = [];
    for await (const key of store.list('items/')) keys.push(key);
    expect(keys.sort()).toEqual(['items/1/a.webp', 'items/1/b.webp']);
    await store.delete('items/1/a.webp');
    await store.delete('items/1/never-there.webp');
    expect(await store.get('items/1/a.webp')).toBeNull();
  });

  it('refuses keys that could escape', async () => {
    await expect(store.put('../x.webp', Buffer.from('x'), 'image/webp')).rejects.toThrow(/Invalid blob key/);
  });

  it('fails the readiness check for a missing bucket', async () => {
    const missing = openBlobStore(s3.url.replace('s3://punchlist', 's3://no-such-bucket'), s3.credentials) as S3BlobStore;
    await expect(missing.check()).rejects.toThrow();
    missing.close();
  });
});
