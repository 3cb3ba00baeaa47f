import { describe, expect, it } from 'vitest';
import { createResponseCache } from './response-cache.js';

describe('response cache: the bytes it keeps', () => {
  it('keeps its own copy of bytes cut from a larger buffer (a short Buffer.from is a slice of the shared pool)', () => {
    const cache = createResponseCache(1024 * 1024)!;
    const pooled = Buffer.from('{"id":1,"title":"a card"}');
    expect(pooled.buffer.byteLength).toBeGreaterThan(pooled.length);
    cache.set('card', 'v1', { data: pooled, etag: 'W/"a"' });
    const hit = cache.get('card', 'v1')!;
    expect(hit.data.equals(pooled)).toBe(true);
    expect(hit.data.buffer.byteLength).toBe(hit.data.length);
    expect(hit.etag).toBe('W/"a"');
  });

  it('keeps bytes that own their whole buffer as they are', () => {
    const cache = createResponseCache(1024 * 1024)!;
    const own = Buffer.alloc(10_000, 'x');
    cache.set('tree', 'v1', { data: own, etag: 'W/"t"' });
    expect(cache.get('tree', 'v1')!.data).toBe(own);
    expect(cache.get('tree', 'v2')).toBeUndefined();
  });
});
