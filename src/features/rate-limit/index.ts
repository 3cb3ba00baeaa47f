/** Rate limits as one module: per token or session, and per address on OAuth's open endpoints; null when set to 0. */
import type { Db } from '../../db/database.js';
import { sharedRateLimitCounters } from './rate-limit.repository.js';
import { createRateLimiter } from './rate-limiter.js';

export interface RateLimitModuleDeps {
  db: Db;
  perMinute: number;
  oauth: { registerPerMinute: number; tokenPerMinute: number };
}

export function createRateLimitModule(deps: RateLimitModuleDeps) {
  // On PostgreSQL the nodes share their counters in the database; a SQLite node counts in memory.
  const counters = () => sharedRateLimitCounters(deps.db);
  return {
    rateLimiter: createRateLimiter(deps.perMinute, counters()),
    oauthRateLimits: {
      register: createRateLimiter(deps.oauth.registerPerMinute, counters()),
      token: createRateLimiter(deps.oauth.tokenPerMinute, counters()),
    },
  };
}

export type RateLimitModule = ReturnType<typeof createRateLimitModule>;
