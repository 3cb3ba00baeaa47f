import type { Scope } from '../../domain/scopes.js';
import { OAuthError, parseScopeString, sha256 } from './oauth-protocol.js';
import {
  checkResource,
  endGrant,
  grantLive,
  invalidGrant,
  issueOnce,
  type OAuthDeps,
  type Params,
  registeredClient,
  type TokenResponse,
} from './oauth-grants.js';

/** The scopes a refresh keeps: those granted, or fewer when the client asks for fewer (never more). */
function narrowed(granted: Scope[], scope: string | undefined): Scope[] {
  if (scope === undefined) return granted;
  const asked = parseScopeString(scope);
  if (asked.unknown.length || !asked.scopes.length || asked.scopes.some((s) => !granted.includes(s))) {
    throw new OAuthError('invalid_scope', 'scope may only narrow the scopes granted');
  }
  return granted.filter((s) => asked.scopes.includes(s));
}

/** Rotation: each refresh token works once; a second use ends the whole grant (OAuth 2.1 §4.3.1). */
export async function refreshGrant(deps: OAuthDeps, params: Params): Promise<TokenResponse> {
  const { repo } = deps;
  const found = await registeredClient(deps, params.client_id);
  if (!params.refresh_token) throw new OAuthError('invalid_request', 'refresh_token is required');
  checkResource(deps, params.resource);
  const row = await repo.findRefreshToken(sha256(params.refresh_token));
  const grant = row ? await repo.findGrant(row.grant_id) : undefined;
  if (!row || !grant || grant.client_id !== found.id) throw invalidGrant('The refresh token is not valid');
  if (row.used_at) {
    await endGrant(deps, grant, 'refresh_token_reused');
    throw invalidGrant('The refresh token was already used: the authorization is revoked');
  }
  const now = deps.clock.now();
  if (!grantLive(grant, now)) throw invalidGrant('The authorization has been revoked or has expired');
  if (!(await repo.userActive(grant.user_id))) throw invalidGrant('The authorization is no longer valid');
  if (grant.token_id !== null && (await repo.tokenRevoked(grant.token_id))) {
    // A token revoked before revokeToken ended its grant too: the grant ends now.
    await repo.revokeGrant(grant.id, 'token_revoked', now.toISOString());
    throw invalidGrant('The authorization has been revoked');
  }
  const scopes = narrowed(JSON.parse(grant.scopes) as Scope[], params.scope);
  return issueOnce(deps, grant, { name: found.client_name, scopes }, (trxRepo) => trxRepo.useRefreshToken(row.id, now.toISOString()), {
    reason: 'refresh_token_reused',
    message: 'The refresh token was already used: the authorization is revoked',
  });
}
