import { invalidField } from '../../i18n/reasons.js';
import type { Clock } from '../../shared/clock.js';
import type { Actor } from '../../domain/policy.js';
import { isScope, type Scope } from '../../domain/scopes.js';
import type { UserRole } from '../../domain/values.js';
import type { createTokenCache } from './token-cache.js';
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

export interface NewToken {
  userId: number;
  name: string;
  scopes: string[];
  expiresAt: Date | null;
  /** Limit to these projects (each one the user must see); null or absent: every project of the user. */
  projectIds?: readonly number[] | null;
}

/** How the service learns whether a user sees a project: the projects service's access check (404 otherwise). */
export interface ProjectAccessCheck {
  access(actor: Actor, projectId: number): Promise<unknown>;
}

/**
 * How long a token's state (revoked, expiry, scopes, user active) may be served from this node's cache
 * without reading the database: docs/design.md §4 allows other nodes at most 1 s. Revoking a token or
 * deactivating a user through this node evicts at once.
 */
export const CACHE_TTL_MS = 1000;

export function tokenState(row: { revoked_at: string | null; expires_at: string | null }, now: Date): TokenState {
  if (row.revoked_at) return 'revoked';
  if (row.expires_at && row.expires_at <= now.toISOString()) return 'expired';
  return 'active';
}

/** The stored JSON list of a token's or grant's projects; null: no limit. */
export function parseProjectIds(stored: string | null): number[] | null {
  return stored === null ? null : (JSON.parse(stored) as number[]);
}

export function parseScopes(scopes: readonly string[]): Scope[] {
  if (scopes.length === 0) throw invalidField('scopes', 'reason.chooseScope');
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length) throw invalidField('scopes', 'reason.unknownScope', { scopes: unknown.map((s) => `"${s}"`).join(', ') });
  return [...new Set(scopes as Scope[])];
}

/** What authentication needs of a token and its user: one row, cached for at most CACHE_TTL_MS. */
export interface AuthRow {
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

/** What every use case of tokens is given (features/tokens/tokens.service.ts wires it). */
export interface TokensDeps {
  repo: TokensRepository;
  clock: Clock;
  projects: ProjectAccessCheck;
  /** This node's cache of what authentication reads (CACHE_TTL_MS). */
  cache: ReturnType<typeof createTokenCache<AuthRow>>;
}
