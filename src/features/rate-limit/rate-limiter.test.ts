import { describe, expect, it } from 'vitest';
import { createInMemoryRateLimiter } from './rate-limiter.js';

describe('in-memory rate limiter', () => {
  it('allows `limit` requests per key and window, then refuses until the window ends', async () => {
    let now = 1_000_000;
    const limiter = createInMemoryRateLimiter({ limit: 2, windowSeconds: 60, now: () => now });
    expect(await limiter.consume('a')).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 60, windowSeconds: 60 });
    now += 10_500;
    expect(await limiter.consume('a')).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 50 });
    expect(await limiter.consume('a')).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 50 });
    expect(await limiter.consume('b')).toMatchObject({ allowed: true, remaining: 1, resetSeconds: 60 });
    now += 49_499;
    expect(await limiter.consume('a')).toMatchObject({ allowed: false, resetSeconds: 1 });
    now += 1;
    expect(await limiter.consume('a')).toMatchObject({ allowed: true, remaining: 1, resetSeconds: 60 });
  });

  it('refused requests do not extend the window', async () => {
    let now = 0;
    const limiter = createInMemoryRateLimiter({ limit: 1, now: () => now });
    await limiter.consume('a');
    for (let i = 0; i < 5; i++) {
      now += 10_000;
      expect((await limiter.consume('a')).allowed).toBe(false);
    }
    now = 60_000;
    expect((await limiter.consume('a')).allowed).toBe(true);
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => createInMemoryRateLimiter({ limit: 0 })).toThrow();
    expect(() => createInMemoryRateLimiter({ limit: 1.5 })).toThrow();
  });
});
