import type { Scope } from '../../domain/scopes.js';
import { isCodeVerifier, OAuthError, s256, sha256 } from './oauth-protocol.js';
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

/** The token endpoint's authorization_code grant, with PKCE; a code used twice ends its grant. */
export async function exchangeCode(deps: OAuthDeps, params: Params): Promise<TokenResponse> {
  const { repo } = deps;
  const found = await registeredClient(deps, params.client_id);
  if (!params.code) throw new OAuthError('invalid_request', 'code is required');
  if (!params.code_verifier) throw new OAuthError('invalid_request', 'code_verifier is required (PKCE)');
  if (!isCodeVerifier(params.code_verifier))
    throw new OAuthError('invalid_request', 'code_verifier must be 43 to 128 unreserved characters');
  const resource = checkResource(deps, params.resource);
  const code = await repo.findCode(sha256(params.code));
  const grant = code ? await repo.findGrant(code.grant_id) : undefined;
  if (!code || !grant || grant.client_id !== found.id) throw invalidGrant('The authorization code is not valid');
  if (code.used_at) {
    // OAuth 2.1 §4.1.3: a code used twice ends what was issued with it.
    await endGrant(deps, grant, 'code_reused');
    throw invalidGrant('The authorization code was already used; the tokens issued with it are revoked');
  }
  const now = deps.clock.now();
  if (code.expires_at <= now.toISOString()) throw invalidGrant('The authorization code has expired');
  if (params.redirect_uri !== code.redirect_uri) throw invalidGrant('redirect_uri does not match the authorization request');
  if (s256(params.code_verifier) !== code.code_challenge) throw invalidGrant('code_verifier does not match the code_challenge');
  if (resource !== null && code.resource !== null && resource.replace(/\/$/, '') !== code.resource.replace(/\/$/, '')) {
    throw new OAuthError('invalid_target', 'resource differs from the authorization request');
  }
  if (!grantLive(grant, now) || !(await repo.userActive(grant.user_id))) throw invalidGrant('The authorization is no longer valid');
  return issueOnce(
    deps,
    grant,
    { name: found.client_name, scopes: JSON.parse(grant.scopes) as Scope[] },
    (trxRepo) => trxRepo.useCode(code.id, now.toISOString()),
    { reason: 'code_reused', message: 'The authorization code was already used; the tokens issued with it are revoked' },
  );
}
