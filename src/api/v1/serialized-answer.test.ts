import Fastify from 'fastify';
import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deflateAhead } from '../../http/gzip.js';
import { sendSerialized } from './operation-route.js';

describe('an answer serialized before (a cached card, a worker thread’s tree)', () => {
  const data = (items: number) =>
    Buffer.from(JSON.stringify({ items: Array.from({ length: items }, (_, id) => ({ id, title: `Пункт ${id}` })) }));
  const small = data(10);
  const large = data(5000);
  const app = Fastify();
  app.get('/small', (_request, reply) => sendSerialized(reply, small, 'W/"small"'));
  app.get('/large', (_request, reply) => sendSerialized(reply, large, 'W/"large"'));
  afterAll(() => app.close());

  it.each([
    ['/small', small],
    ['/large', large],
  ])('%s: the envelope around the bytes, its Content-Length and ETag, whether sent whole or in parts', async (url, bytes) => {
    expect(url === '/large' ? bytes.length >= 64 * 1024 : bytes.length < 64 * 1024).toBe(true);
    const response = await app.inject({ url });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers.etag).toBe(url === '/large' ? 'W/"large"' : 'W/"small"');
    expect(Number(response.headers['content-length'])).toBe(response.rawPayload.length);
    const body = response.json();
    expect(body).toEqual({ ok: true, data: JSON.parse(bytes.toString()), meta: expect.objectContaining({ api_version: 'v1' }) });
    const head = await app.inject({ url, method: 'HEAD' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['content-length']).toBe(response.headers['content-length']);
  });
});

describe('an answer deflated ahead (a tree from the worker), over real HTTP', () => {
  const data = Buffer.from(JSON.stringify({ items: Array.from({ length: 5000 }, (_, id) => ({ id, title: `Пункт ${id}` })) }));
  const app = Fastify();
  app.get('/tree', (_request, reply) => sendSerialized(reply, data, 'W/"tree"', deflateAhead(data)));
  let base = '';
  beforeAll(async () => {
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => app.close());

  /** The raw answer, as node:http gives it: no decoding. */
  const raw = (headers: Record<string, string>, method = 'GET') =>
    new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
      const req = httpRequest(`${base}/tree`, { method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.on('error', reject).end();
    });

  it('is gzip to a client that accepts it: the envelope, a fresh meta each time, a tenth of the bytes', async () => {
    const first = await raw({ 'accept-encoding': 'gzip, deflate, br' });
    expect(first.status).toBe(200);
    expect(first.headers['content-encoding']).toBe('gzip');
    expect(first.headers.vary).toBe('Accept-Encoding');
    expect(first.headers.etag).toBe('W/"tree"');
    expect(Number(first.headers['content-length'])).toBe(first.body.length);
    expect(first.body.length).toBeLessThan(data.length / 5);
    const envelope = JSON.parse(gunzipSync(first.body).toString());
    expect(envelope).toEqual({ ok: true, data: JSON.parse(data.toString()), meta: expect.objectContaining({ api_version: 'v1' }) });
    const second = JSON.parse(gunzipSync((await raw({ 'accept-encoding': 'gzip' })).body).toString());
    expect(second.meta.request_id).not.toBe(envelope.meta.request_id);
    // fetch (undici) decodes it as any client library does.
    expect((await (await fetch(`${base}/tree`)).json()).data).toEqual(JSON.parse(data.toString()));
  });

  it.each<Record<string, string>>([{}, { 'accept-encoding': 'identity' }, { 'accept-encoding': 'gzip;q=0, br' }])(
    'is plain JSON to a client that does not accept gzip (%j), with the same ETag and Vary',
    async (headers) => {
      const answer = await raw(headers);
      expect(answer.headers['content-encoding']).toBeUndefined();
      expect(answer.headers.vary).toBe('Accept-Encoding');
      expect(answer.headers.etag).toBe('W/"tree"');
      expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
      expect(JSON.parse(answer.body.toString()).data).toEqual(JSON.parse(data.toString()));
    },
  );

  it('answers HEAD with the headers of the gzip answer and no body', async () => {
    const head = await raw({ 'accept-encoding': 'gzip' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-encoding']).toBe('gzip');
    expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
    expect(head.body.length).toBe(0);
  });
});
