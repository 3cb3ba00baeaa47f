import type { Clock } from '../../shared/clock.js';

/**
 * What authentication reads of a token and its user, kept per token hash for at most `ttlMs`
 * (docs/design.md §4: another node may serve a cached token state for at most 1 s). The tokens service
 * evicts an entry the moment this node revokes the token or deactivates its user, so revocation
 * through this node is immediate; a change made elsewhere (another node, the CLI, SQL) is seen
 * within `ttlMs`.
 */
interface TokenCache<T extends { id: number; user_id: number }> {
  get(hash: string): T | undefined;
  set(hash: string, row: T): void;
  /** Updates a cached row in place (last_used bookkeeping), keeping its age. */
  patch(hash: string, changes: Partial<T>): void;
  evictToken(tokenId: number): void;
  evictUser(userId: number): void;
  clear(): void;
  readonly size: number;
}

export function createTokenCache<T extends { id: number; user_id: number }>(
  clock: Clock,
  options: { ttlMs?: number; maxEntries?: number } = {},
): TokenCache<T> {
  const ttlMs = options.ttlMs ?? 1000;
  const maxEntries = options.maxEntries ?? 10_000;
  const entries = new Map<string, { row: T; fetchedAt: number }>();
  const evictWhere = (test: (row: T) => boolean) => {
    for (const [hash, entry] of entries) if (test(entry.row)) entries.delete(hash);
  };
  return {
    get(hash) {
      const entry = entries.get(hash);
      if (!entry) return undefined;
      const age = clock.now().getTime() - entry.fetchedAt;
      // A clock that went backwards makes the entry as suspect as an old one.
      if (age >= ttlMs || age < 0) {
        entries.delete(hash);
        return undefined;
      }
      return entry.row;
    },
    set(hash, row) {
      entries.delete(hash);
      // Oldest first in a Map: beyond the bound, drop the oldest (a flood of distinct tokens cannot grow it).
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(hash, { row, fetchedAt: clock.now().getTime() });
    },
    patch(hash, changes) {
      const entry = entries.get(hash);
      if (entry) entry.row = { ...entry.row, ...changes };
    },
    evictToken: (tokenId) => evictWhere((row) => row.id === tokenId),
    evictUser: (userId) => evictWhere((row) => row.user_id === userId),
    clear: () => entries.clear(),
    get size() {
      return entries.size;
    },
  };
}
