import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { Clock } from '../../shared/clock.js';
import { authenticate } from './authenticate-token.js';
import { checkProjectLimit, createToken, type CreateTokenOptions, reissueToken } from './issue-token.js';
import { listTokens, revokeToken, type RevokeTokenOptions } from './manage-tokens.js';
import { createTokenCache } from './token-cache.js';
import { type AuthRow, CACHE_TTL_MS, type NewToken, type ProjectAccessCheck, type TokensDeps } from './token-values.js';
import type { TokensRepository } from './tokens.repository.js';

export { CACHE_TTL_MS, parseProjectIds, type Principal, type TokenState, type TokenView } from './token-values.js';

/** API tokens: issued, listed, revoked, and resolved from a request's bearer token. Each use case has its file. */
export function createTokensService(repo: TokensRepository, clock: Clock, projects: ProjectAccessCheck) {
  const cache = createTokenCache<AuthRow>(clock, { ttlMs: CACHE_TTL_MS });
  const deps: TokensDeps = { repo, clock, projects, cache };
  return {
    checkProjectLimit: (userId: number, projectIds: readonly number[] | null | undefined) => checkProjectLimit(deps, userId, projectIds),
    createToken: (input: NewToken, options?: CreateTokenOptions) => createToken(deps, input, options),
    reissueToken: (id: number, input: { expiresAt: Date | null; scopes: string[] }, executor?: Kysely<Database>) =>
      reissueToken(deps, id, input, executor),
    listTokens: (userId: number) => listTokens(deps, userId),
    revokeToken: (id: number, options?: RevokeTokenOptions) => revokeToken(deps, id, options),
    authenticate: (raw: string, ip: string) => authenticate(deps, raw, ip),
    /** Forgets what this node cached of a user's tokens: a deactivation is refused at the next request. */
    forgetUser: (userId: number): void => cache.evictUser(userId),
  };
}

export type TokensService = ReturnType<typeof createTokensService>;
