/** docs/design.md §12: Punchlist as the authorization server of v1 and /mcp, as one module. */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { OAuthDeps } from './oauth-grants.js';
import { createOAuthRepository } from './oauth.repository.js';
import { createOAuthService } from './oauth.service.js';

export function createOAuthModule(deps: { db: Kysely<Database> } & Omit<OAuthDeps, 'repo'>) {
  const { db, ...rest } = deps;
  return { oauth: createOAuthService({ repo: createOAuthRepository(db), ...rest }) };
}

export type OAuthModule = ReturnType<typeof createOAuthModule>;
