import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
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
