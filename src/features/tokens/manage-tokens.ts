import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { Scope } from '../../domain/scopes.js';
import { notFound } from '../../shared/errors.js';
import type { RecordAudit } from '../audit/audit.service.js';
import { parseProjectIds, type TokensDeps, tokenState, type TokenView } from './token-values.js';

/** A user's tokens as the Profile and the CLI list them. */
export async function listTokens({ repo, clock }: TokensDeps, userId: number): Promise<TokenView[]> {
  const now = clock.now();
  const rows = await repo.listOfUser(userId);
  return rows.map((r) => ({
    ...r,
    scopes: JSON.parse(r.scopes) as Scope[],
    project_ids: parseProjectIds(r.project_ids),
    state: tokenState(r, now),
  }));
}

export interface RevokeTokenOptions {
  ownerId?: number;
  executor?: Kysely<Database>;
  recordAudit?: RecordAudit;
}

/**
 * Revokes a token, for the web's Profile, the CLI and OAuth alike: in one transaction the token, the OAuth
 * grant it was issued for (its refresh tokens stop too) and `recordAudit`. With `ownerId`, only a token of
 * that user (anything else is not found). Revoking a revoked token again changes nothing.
 */
export async function revokeToken({ repo, clock, cache }: TokensDeps, id: number, options: RevokeTokenOptions = {}): Promise<void> {
  const { ownerId, executor, recordAudit } = options;
  const at = clock.now().toISOString();
  await repo.transaction(async (trx) => {
    const existing = await repo.findState(id, trx);
    if (!existing || (ownerId !== undefined && existing.user_id !== ownerId)) throw notFound('The token');
    if (!existing.revoked_at) await repo.revoke(id, at, ownerId, trx);
    await repo.endGrantOfToken(id, at, trx);
    await recordAudit?.(trx, { type: 'token', id });
  }, executor);
  // Immediate on this node (docs/design.md §4); other nodes drop their cached state within CACHE_TTL_MS.
  cache.evictToken(id);
}
