import type { Scope } from '../../domain/scopes.js';
import { hashToken, isWellFormedToken } from '../../domain/token-format.js';
import type { UserRole } from '../../domain/values.js';
import { tokenExpired, tokenInvalid, tokenRevoked } from '../../shared/errors.js';
import { parseProjectIds, type Principal, type TokensDeps } from './token-values.js';

// last_used_at is written at most this often per token: a write per request would cost more than the request.
const TOUCH_INTERVAL_MS = 1000;

/** Resolves a raw bearer token, in the check order of docs/design.md §4; throws the matching 401. */
export async function authenticate({ repo, clock, cache }: TokensDeps, raw: string, ip: string): Promise<Principal> {
  if (!isWellFormedToken(raw)) throw tokenInvalid();
  const hash = hashToken(raw);
  let row = cache.get(hash);
  if (!row) {
    const found = await repo.findForAuthentication(hash);
    if (!found) throw tokenInvalid();
    row = { ...found, scopes: JSON.parse(found.scopes) as Scope[], project_ids: parseProjectIds(found.project_ids) };
    cache.set(hash, row);
  }
  const owner = { tokenId: row.id, userId: row.user_id };
  if (row.revoked_at || !row.user_active) throw tokenRevoked(owner);
  const now = clock.now();
  const nowIso = now.toISOString();
  if (row.expires_at && row.expires_at <= nowIso) throw tokenExpired(owner);
  const stale = !row.last_used_at || now.getTime() - Date.parse(row.last_used_at) >= TOUCH_INTERVAL_MS;
  if (stale || row.last_used_ip !== ip) {
    // At most once a second per token (or on a new IP): the cached row remembers the last write.
    cache.patch(hash, { last_used_at: nowIso, last_used_ip: ip });
    await repo.touch(row.id, nowIso, ip);
  }
  // A new object per request: the rate limiter keys its decision on it.
  return {
    user: {
      id: row.user_id,
      name: row.user_name,
      email: row.user_email,
      role: row.user_role as UserRole,
      projectIds: row.project_ids,
    },
    token: { id: row.id, name: row.name, scopes: row.scopes, expires_at: row.expires_at, project_ids: row.project_ids },
  };
}
