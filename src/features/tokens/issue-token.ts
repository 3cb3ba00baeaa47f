import { invalidField } from '../../i18n/reasons.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import { requiredName } from '../../domain/inputs.js';
import type { Scope } from '../../domain/scopes.js';
import { generateToken, hashToken } from '../../domain/token-format.js';
import { MAX_NAME_LENGTH, type UserRole } from '../../domain/values.js';
import { notFound } from '../../shared/errors.js';
import type { RecordAudit } from '../audit/audit.service.js';
import { type NewToken, parseScopes, type TokensDeps } from './token-values.js';

/**
 * A project limit checked against what the user sees now (docs/design.md §18): deduplicated and sorted, or null
 * for none. A project that does not exist or that the user cannot see is refused alike (422 `project_ids`).
 */
export async function checkProjectLimit(
  { repo, projects }: TokensDeps,
  userId: number,
  projectIds: readonly number[] | null | undefined,
): Promise<number[] | null> {
  if (projectIds == null) return null;
  if (projectIds.length === 0) throw invalidField('project_ids', 'reason.chooseProjectIds');
  const ids = [...new Set(projectIds)].sort((a, b) => a - b);
  const bad = ids.find((id) => !Number.isSafeInteger(id) || id < 1);
  if (bad !== undefined) throw invalidField('project_ids', 'reason.notProjectId', { value: String(bad) });
  const user = await repo.findUser(userId);
  if (!user) throw notFound('The user');
  for (const id of ids) {
    const seen = await projects.access({ id: userId, role: user.role as UserRole }, id).then(
      () => true,
      () => false,
    );
    if (!seen) throw invalidField('project_ids', 'reason.projectUnseen', { id: String(id) });
  }
  return ids;
}

export interface CreateTokenOptions {
  executor?: Kysely<Database>;
  recordAudit?: RecordAudit;
}

/**
 * `executor`: a transaction the token is created in (OAuth creates it with its grant); the caller then passes
 * a project limit it checked before (checkProjectLimit). `recordAudit` commits with the new token (the web).
 */
export async function createToken(
  deps: TokensDeps,
  input: NewToken,
  options: CreateTokenOptions = {},
): Promise<{ id: number; token: string; expires_at: string | null; scopes: Scope[]; project_ids: number[] | null }> {
  const { repo } = deps;
  const { executor, recordAudit } = options;
  const name = requiredName('name', input.name, MAX_NAME_LENGTH);
  const scopes = parseScopes(input.scopes);
  const now = deps.clock.now();
  if (input.expiresAt && input.expiresAt <= now) throw invalidField('expires_at', 'reason.future');
  // In a caller's transaction (OAuth) the limit was checked before (checkProjectLimit reads outside it).
  const projectIds = executor ? (input.projectIds ?? null) : await checkProjectLimit(deps, input.userId, input.projectIds);
  const token = generateToken();
  const expires_at = input.expiresAt?.toISOString() ?? null;
  const id = await repo.transaction(async (trx) => {
    const id = await repo.insert(
      {
        user_id: input.userId,
        name,
        token_hash: hashToken(token),
        scopes: JSON.stringify(scopes),
        created_at: now.toISOString(),
        expires_at,
        project_ids: projectIds === null ? null : JSON.stringify([...projectIds]),
      },
      trx,
    );
    await recordAudit?.(trx, { type: 'token', id });
    return id;
  }, executor);
  return { id, token, expires_at, scopes, project_ids: projectIds === null ? null : [...projectIds] };
}

/**
 * A new raw value, expiry and scopes for an existing token (OAuth refresh: one token row per grant, so
 * the Profile shows one row per connection and the audit one token id). The previous value stops at
 * once on this node (other nodes: within CACHE_TTL_MS).
 */
export async function reissueToken(
  { repo, cache }: TokensDeps,
  id: number,
  input: { expiresAt: Date | null; scopes: string[] },
  executor?: Kysely<Database>,
): Promise<{ token: string; expires_at: string | null; scopes: Scope[] }> {
  const scopes = parseScopes(input.scopes);
  const token = generateToken();
  const expires_at = input.expiresAt?.toISOString() ?? null;
  await repo.reissue(id, { token_hash: hashToken(token), expires_at, scopes: JSON.stringify(scopes) }, executor);
  cache.evictToken(id);
  return { token, expires_at, scopes };
}
