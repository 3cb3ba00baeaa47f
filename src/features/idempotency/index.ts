/** Idempotency keys (a retried write answers as the first did) as one module. */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { Clock } from '../../shared/clock.js';
import { createIdempotencyRepository } from './idempotency.repository.js';
import { createIdempotencyService } from './idempotency.service.js';

export function createIdempotencyModule(deps: { db: Kysely<Database>; clock: Clock }) {
  return { idempotency: createIdempotencyService(createIdempotencyRepository(deps.db), deps.clock) };
}

export type IdempotencyModule = ReturnType<typeof createIdempotencyModule>;
