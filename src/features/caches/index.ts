/** docs/design.md §10 as one module: the versions that validate cached answers, and the answers (null: size 0). */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import { createCacheVersionsRepository } from './cache-versions.repository.js';
import { createResponseCache } from './response-cache.js';

export function createCachesModule(deps: { db: Kysely<Database>; responseCacheBytes: number }) {
  return {
    cacheVersions: createCacheVersionsRepository(deps.db),
    responseCache: createResponseCache(deps.responseCacheBytes),
  };
}

export type CachesModule = ReturnType<typeof createCachesModule>;
