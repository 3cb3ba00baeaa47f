/** API tokens as one module: issued, listed, revoked, and the bearer's principal. */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { Clock } from '../../shared/clock.js';
import type { ProjectAccessCheck } from './token-values.js';
import { createTokensRepository } from './tokens.repository.js';
import { createTokensService } from './tokens.service.js';

export function createTokensModule(deps: { db: Kysely<Database>; clock: Clock; projects: ProjectAccessCheck }) {
  return { tokens: createTokensService(createTokensRepository(deps.db), deps.clock, deps.projects) };
}

export type TokensModule = ReturnType<typeof createTokensModule>;
