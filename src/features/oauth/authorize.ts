import { type Scope, SCOPES } from '../../domain/scopes.js';
import type { RecordAudit } from '../audit/audit.service.js';
import { isS256Challenge, OAuthError, parseScopeString, randomSecret, redirectUriMatches, sha256 } from './oauth-protocol.js';
import { CODE_TTL_MS, knownResource, type OAuthDeps, type Params } from './oauth-grants.js';

/** A validated authorization request (RFC 6749 §4.1.1 with PKCE), what the consent page shows and posts back. */
export interface AuthorizationRequest {
  client: { id: string; name: string; clientUri: string | null };
  redirectUri: string;
  /** The host the user is sent back to (shown on the consent page). */
  redirectHost: string;
  state: string | null;
  codeChallenge: string;
  scopes: Scope[];
  resource: string | null;
}

/**
 * A refused authorization request. `returnTo` is null when the client or the redirect URI cannot be
 * trusted (never redirect there); otherwise the redirect URI carrying the error, offered as a link.
 */
export class AuthorizationError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly returnTo: string | null,
  ) {
    super(description);
  }
}

/**
 * Checks an authorization request (RFC 6749 §4.1.1, PKCE S256 required). An unknown client or a
 * redirect URI it did not register is refused without any link back; other errors carry the error
 * redirect for the user to follow.
 */
export async function checkAuthorization(deps: OAuthDeps, params: Params): Promise<AuthorizationRequest> {
  const found = params.client_id ? await deps.repo.findClient(params.client_id) : undefined;
  if (!found)
    throw new AuthorizationError('invalid_client', 'The application is not registered with this server (unknown client_id).', null);
  const registered = JSON.parse(found.redirect_uris) as string[];
  // Always named (OAuth 2.1 leaves it optional with one registered URI; the token request must then repeat it).
  const redirectUri = params.redirect_uri ?? '';
  if (!redirectUri || !redirectUriMatches(registered, redirectUri)) {
    throw new AuthorizationError('invalid_request', 'The redirect_uri is not one this application registered.', null);
  }
  const state = params.state ?? null;
  const back = (error: string, description: string) =>
    new AuthorizationError(error, description, errorRedirect(deps, redirectUri, state, error, description));
  if (params.response_type !== 'code') throw back('unsupported_response_type', 'response_type must be "code".');
  if (!params.code_challenge) throw back('invalid_request', 'code_challenge is required (PKCE, method S256).');
  if (params.code_challenge_method !== 'S256') throw back('invalid_request', 'code_challenge_method must be S256 (plain is not accepted).');
  if (!isS256Challenge(params.code_challenge))
    throw back('invalid_request', 'code_challenge must be the base64url SHA-256 of the code verifier (43 characters).');
  const asked = params.scope?.trim() || found.scope || SCOPES.join(' ');
  const { scopes, unknown } = parseScopeString(asked);
  if (unknown.length) throw back('invalid_scope', `Unknown scope ${unknown.join(', ')}.`);
  if (!scopes.length) throw back('invalid_scope', 'No scope was asked for.');
  if (params.resource && !knownResource(deps, params.resource))
    throw back('invalid_target', 'The resource is not served by this authorization server.');
  return {
    client: { id: found.id, name: found.client_name, clientUri: found.client_uri },
    redirectUri,
    redirectHost: new URL(redirectUri).host,
    state,
    codeChallenge: params.code_challenge,
    scopes: SCOPES.filter((s) => scopes.includes(s)),
    resource: params.resource || null,
  };
}

/** The redirect URI with the response parameters added (RFC 6749 §4.1.2, `iss` of RFC 9207). */
export function responseRedirect({ urls }: OAuthDeps, redirectUri: string, state: string | null, values: Record<string, string>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(values)) url.searchParams.append(name, value);
  if (state !== null) url.searchParams.append('state', state);
  url.searchParams.append('iss', urls.baseUrl);
  return url.href;
}

export function errorRedirect(deps: OAuthDeps, redirectUri: string, state: string | null, error: string, description: string): string {
  return responseRedirect(deps, redirectUri, state, { error, error_description: description });
}

export interface ConsentChoice {
  scopes: string[];
  expiresAt: Date | null;
  projectIds?: readonly number[] | null;
}

/**
 * The user allowed: a grant with the scopes kept (a subset of those asked for) and the expiry chosen,
 * and a code for it. Returns where to send the browser. `recordAudit` commits with the grant.
 */
export async function approve(
  deps: OAuthDeps,
  userId: number,
  request: AuthorizationRequest,
  choice: ConsentChoice,
  recordAudit?: RecordAudit,
): Promise<string> {
  const kept = request.scopes.filter((s) => choice.scopes.includes(s));
  if (!kept.length) throw new OAuthError('invalid_scope', 'Choose at least one scope to allow.');
  const now = deps.clock.now();
  if (choice.expiresAt && choice.expiresAt <= now) throw new OAuthError('invalid_request', 'The expiry must be in the future.');
  // The grant's project limit (docs/design.md §18), checked now; its tokens, refreshed or not, keep it.
  const projectIds = await deps.tokens.checkProjectLimit(userId, choice.projectIds);
  const code = randomSecret('plo_');
  const grantId = await deps.repo.transaction(async (trxRepo, trx) => {
    const grantId = await trxRepo.insertGrant({
      client_id: request.client.id,
      user_id: userId,
      scopes: JSON.stringify(kept),
      token_id: null,
      created_at: now.toISOString(),
      expires_at: choice.expiresAt?.toISOString() ?? null,
      revoked_at: null,
      revoked_reason: null,
      project_ids: projectIds === null ? null : JSON.stringify(projectIds),
    });
    await trxRepo.insertCode({
      code_hash: sha256(code),
      grant_id: grantId,
      redirect_uri: request.redirectUri,
      code_challenge: request.codeChallenge,
      resource: request.resource,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + CODE_TTL_MS).toISOString(),
      used_at: null,
    });
    await recordAudit?.(trx, { type: 'oauth_grant', id: grantId });
    return grantId;
  });
  deps.onConnected?.({ userId, grantId, clientName: request.client.name });
  return responseRedirect(deps, request.redirectUri, request.state, { code });
}

/** The user denied: `access_denied` to the client (RFC 6749 §4.1.2.1). */
export function deny(deps: OAuthDeps, request: AuthorizationRequest): string {
  return errorRedirect(deps, request.redirectUri, request.state, 'access_denied', 'The user denied the authorization request.');
}
