import type { RateLimitRepository } from './rate-limit.repository.js';

/**
 * Per-key request quotas (the key is an API token id). A fixed window per key, opened by the key's
 * first request: at most `limit` requests in `windowSeconds`, then a 429 until the window ends.
 *
 * Behind an interface so that the in-memory implementation (one process) can be swapped for a
 * shared one (database or Redis) when the service runs on several nodes; `consume` is async for that.
 */
export interface RateLimitDecision {
  /** False when this request is over the quota (it was not counted). */
  allowed: boolean;
  limit: number;
  /** Requests left in the current window after this one. */
  remaining: number;
  /** Whole seconds until the window ends and the quota is restored (at least 1). */
  resetSeconds: number;
  windowSeconds: number;
}

export interface RateLimiter {
  readonly limit: number;
  readonly windowSeconds: number;
  /** Counts one request for `key` and says whether it may proceed. */
  consume(key: string): Promise<RateLimitDecision>;
}

interface Window {
  startedAt: number;
  count: number;
}

/** One process's quotas, in a Map. Windows that ended are swept at most once per window length. */
export function createInMemoryRateLimiter(options: { limit: number; windowSeconds?: number; now?: () => number }): RateLimiter {
  const { limit } = options;
  const windowSeconds = options.windowSeconds ?? 60;
  const windowMs = windowSeconds * 1000;
  const now = options.now ?? Date.now;
  if (!Number.isInteger(limit) || limit < 1) throw new Error('rate limit must be a positive integer');
  const windows = new Map<string, Window>();
  let sweptAt = now();

  const sweep = (at: number) => {
    if (at - sweptAt < windowMs) return;
    sweptAt = at;
    for (const [key, window] of windows) if (at - window.startedAt >= windowMs) windows.delete(key);
  };

  return {
    limit,
    windowSeconds,
    async consume(key) {
      const at = now();
      sweep(at);
      let window = windows.get(key);
      if (!window || at - window.startedAt >= windowMs) {
        window = { startedAt: at, count: 0 };
        windows.set(key, window);
      }
      const resetSeconds = Math.max(1, Math.ceil((window.startedAt + windowMs - at) / 1000));
      if (window.count >= limit) return { allowed: false, limit, remaining: 0, resetSeconds, windowSeconds };
      window.count += 1;
      return { allowed: true, limit, remaining: limit - window.count, resetSeconds, windowSeconds };
    },
  };
}

/**
 * Quotas shared by every node on one database: fixed windows aligned to the clock (so all nodes agree
 * on the window without talking), one atomic upsert per request. Refused requests are counted too
 * (the upsert is the check); the quota still resets when the window ends.
 */
export function createDatabaseRateLimiter(
  counters: RateLimitRepository,
  options: { limit: number; windowSeconds?: number; now?: () => number },
): RateLimiter {
  const { limit } = options;
  const windowSeconds = options.windowSeconds ?? 60;
  const windowMs = windowSeconds * 1000;
  const now = options.now ?? Date.now;
  if (!Number.isInteger(limit) || limit < 1) throw new Error('rate limit must be a positive integer');
  let purgedWindow = 0;

  return {
    limit,
    windowSeconds,
    async consume(key) {
      const at = now();
      const windowStart = at - (at % windowMs);
      if (windowStart !== purgedWindow) {
        purgedWindow = windowStart;
        await counters.deleteBefore(windowStart);
      }
      const count = await counters.increment(key, windowStart);
      const resetSeconds = Math.max(1, Math.ceil((windowStart + windowMs - at) / 1000));
      return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds, windowSeconds };
    },
  };
}

/**
 * The configured limiter, or null when RATE_LIMIT_PER_MINUTE is 0: over the counters the nodes share
 * (rate-limit.repository.ts, `sharedRateLimitCounters`), or in memory when there are none to share.
 */
export function createRateLimiter(perMinute: number, shared: RateLimitRepository | null): RateLimiter | null {
  if (perMinute === 0) return null;
  return shared ? createDatabaseRateLimiter(shared, { limit: perMinute }) : createInMemoryRateLimiter({ limit: perMinute });
}
