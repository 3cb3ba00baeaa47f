import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { Clock } from '../../shared/clock.js';
import type { Actor } from '../../domain/policy.js';
import { requiredName } from '../../domain/inputs.js';
import { isScope, type Scope } from '../../domain/scopes.js';
import { generateToken, hashToken, isWellFormedToken } from '../../domain/token-format.js';
import { MAX_NAME_LENGTH, type UserRole } from '../../domain/values.js';
import { notFound, tokenExpired, tokenInvalid, tokenRevoked } from '../../shared/errors.js';
import { invalidField } from '../../i18n/reasons.js';
import type { RecordAudit } from '../audit/audit.service.js';
import { createTokenCache } from './token-cache.js';
import type { TokensRepository } from './tokens.repository.js';

export type TokenState = 'active' | 'expired' | 'revoked';

export interface TokenView {
  id: number;
  name: string;
  scopes: Scope[];
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  last_used_ip: string | null;
  /** The projects the token is limited to (docs/design.md §18); null: every project its user can see. */
  project_ids: number[] | null;
  state: TokenState;
}

/** Who a request acts as, resolved from its bearer token. */
export interface Principal {
  /** An Actor of the policy: `projectIds` is the token's project limit, so every access check applies it. */
  user: { id: number; name: string; email: string; role: UserRole; projectIds: number[] | null };
  token: { id: number; name: string; scopes: Scope[]; expires_at: string | null; project_ids: number[] | null };
}

interface NewToken {
  userId: number;
  name: string;
  scopes: string[];
  expiresAt: Date | null;
  /** Limit to these projects (each one the user must see); null or absent: every project of the user. */
  projectIds?: readonly number[] | null;
}

/** How the service learns whether a user sees a project: the projects service's access check (404 otherwise). */
interface ProjectAccessCheck {
  access(actor: Actor, projectId: number): Promise<unknown>;
}

// last_used_at is written at most this often per token: a write per request would cost more than the request.
const TOUCH_INTERVAL_MS = 1000;

/**
 * How long a token's state (revoked, expiry, scopes, user active) may be served from this node's cache
 * without reading the database: docs/design.md §4 allows other nodes at most 1 s. Revoking a token or
 * deactivating a user through this node evicts at once.
 */
export const CACHE_TTL_MS = 1000;

function tokenState(row: { revoked_at: string | null; expires_at: string | null }, now: Date): TokenState {
  if (row.revoked_at) return 'revoked';
  if (row.expires_at && row.expires_at <= now.toISOString()) return 'expired';
  return 'active';
}

/** The stored JSON list of a token's or grant's projects; null: no limit. */
export function parseProjectIds(stored: string | null): number[] | null {
  return stored === null ? null : (JSON.parse(stored) as number[]);
}

function parseScopes(scopes: readonly string[]): Scope[] {
  if (scopes.length === 0) throw invalidField('scopes', 'reason.chooseScope');
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length) throw invalidField('scopes', 'reason.unknownScope', { scopes: unknown.map((s) => `"${s}"`).join(', ') });
  return [...new Set(scopes as Scope[])];
}

/** What authentication needs of a token and its user: one row, cached for at most CACHE_TTL_MS. */
interface AuthRow {
  id: number;
  user_id: number;
  name: string;
  scopes: Scope[];
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  last_used_ip: string | null;
  user_name: string;
  user_email: string;
  user_role: string;
  user_active: number;
  project_ids: number[] | null;
}

export function createTokensService(repo: TokensRepository, clock: Clock, projects: ProjectAccessCheck) {
  const cache = createTokenCache<AuthRow>(clock, { ttlMs: CACHE_TTL_MS });
  const service = {
    /**
     * A project limit checked against what the user sees now (docs/design.md §18): deduplicated and sorted, or null
     * for none. A project that does not exist or that the user cannot see is refused alike (422 `project_ids`).
     */
    async checkProjectLimit(userId: number, projectIds: readonly number[] | null | undefined): Promise<number[] | null> {
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
    },

    /**
     * `executor`: a transaction the token is created in (OAuth creates it with its grant); the caller then passes
     * a project limit it checked before (checkProjectLimit). `recordAudit` commits with the new token (the web).
     */
    async createToken(
      input: NewToken,
      options: { executor?: Kysely<Database>; recordAudit?: RecordAudit } = {},
    ): Promise<{ id: number; token: string; expires_at: string | null; scopes: Scope[]; project_ids: number[] | null }> {
      const { executor, recordAudit } = options;
      const name = requiredName('name', input.name, MAX_NAME_LENGTH);
      const scopes = parseScopes(input.scopes);
      const now = clock.now();
      if (input.expiresAt && input.expiresAt <= now) throw invalidField('expires_at', 'reason.future');
      // In a caller's transaction (OAuth) the limit was checked before (checkProjectLimit reads outside it).
      const projectIds = executor ? (input.projectIds ?? null) : await service.checkProjectLimit(input.userId, input.projectIds);
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
    },

    /**
     * A new raw value, expiry and scopes for an existing token (OAuth refresh: one token row per grant, so
     * the Profile shows one row per connection and the audit one token id). The previous value stops at
     * once on this node (other nodes: within CACHE_TTL_MS).
     */
    async reissueToken(
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
    },

    async listTokens(userId: number): Promise<TokenView[]> {
      const now = clock.now();
      const rows = await repo.listOfUser(userId);
      return rows.map((r) => ({
        ...r,
        scopes: JSON.parse(r.scopes) as Scope[],
        project_ids: parseProjectIds(r.project_ids),
        state: tokenState(r, now),
      }));
    },

    /**
     * Revokes a token, for the web's Profile, the CLI and OAuth alike: in one transaction the token, the OAuth
     * grant it was issued for (its refresh tokens stop too) and `recordAudit`. With `ownerId`, only a token of
     * that user (anything else is not found). Revoking a revoked token again changes nothing.
     */
    async revokeToken(
      id: number,
      options: { ownerId?: number; executor?: Kysely<Database>; recordAudit?: RecordAudit } = {},
    ): Promise<void> {
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
    },

    /** Resolves a raw bearer token, in the check order of docs/design.md §4; throws the matching 401. */
    async authenticate(raw: string, ip: string): Promise<Principal> {
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
    },

    /** Forgets what this node cached of a user's tokens: a deactivation is refused at the next request. */
    forgetUser(userId: number): void {
      cache.evictUser(userId);
    },
  };
  return service;
}

export type TokensService = ReturnType<typeof createTokensService>;
