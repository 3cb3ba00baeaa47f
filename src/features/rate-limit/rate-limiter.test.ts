import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, testDialect } from '../../../test/helpers/database.js';
import { openDatabase } from '../../db/database.js';
import { migrateToLatest } from '../../db/migrate.js';
import { createRateLimitRepository } from './rate-limit.repository.js';
import { createDatabaseRateLimiter, createInMemoryRateLimiter } from './rate-limiter.js';

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

describe('createDatabaseRateLimiter', () => {
  it('shares one quota between limiters on the same database, window by window', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'punchlist-rl-'));
    const database = await createTestDatabase(dir, testDialect(), { migrated: true });
    const db = openDatabase(database.url);
    try {
      await migrateToLatest(db.kysely);
      let clock = 120_000;
      const nodeA = createDatabaseRateLimiter(createRateLimitRepository(db.kysely), { limit: 3, now: () => clock });
      const nodeB = createDatabaseRateLimiter(createRateLimitRepository(db.kysely), { limit: 3, now: () => clock });
      const decisions = [await nodeA.consume('7'), await nodeB.consume('7'), await nodeA.consume('7'), await nodeB.consume('7')];
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
      expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
      expect((await nodeA.consume('8')).allowed).toBe(true);
      clock += 45_000;
      expect((await nodeA.consume('7')).resetSeconds).toBe(15);
      clock += 15_000;
      expect((await nodeB.consume('7')).allowed).toBe(true);
    } finally {
      await db.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
