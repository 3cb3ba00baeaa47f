import type { RecordAudit } from '../audit/audit.service.js';
import {
  approve,
  type AuthorizationRequest,
  checkAuthorization,
  type ConsentChoice,
  deny,
  errorRedirect,
  responseRedirect,
} from './authorize.js';
import { exchangeCode } from './exchange-code.js';
import type { OAuthDeps, Params, TokenResponse } from './oauth-grants.js';
import { OAuthError } from './oauth-protocol.js';
import { connectionsOf, revokeGrant } from './oauth-connections.js';
import { refreshGrant } from './refresh-grant.js';
import { registerClient } from './register-client.js';

export { AuthorizationError, type AuthorizationRequest } from './authorize.js';
export { CODE_TTL_MS, type OAuthDeps } from './oauth-grants.js';
export type { ConnectionState, OAuthConnection } from './oauth-connections.js';

/** The token endpoint (RFC 6749 §3.2): authorization_code with PKCE, or refresh_token with rotation. */
async function token(deps: OAuthDeps, params: Params): Promise<TokenResponse> {
  if (params.grant_type === 'authorization_code') return exchangeCode(deps, params);
  if (params.grant_type === 'refresh_token') return refreshGrant(deps, params);
  if (!params.grant_type) throw new OAuthError('invalid_request', 'grant_type is required');
  throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
}

/**
 * OAuth 2.1 for outside applications (docs/design.md §12): client registration, authorization with consent, the
 * token endpoint and revocation. Each use case is a function of its own file, given `deps`.
 */
export function createOAuthService(deps: OAuthDeps) {
  return {
    registerClient: (body: unknown) => registerClient(deps, body),
    checkAuthorization: (params: Params) => checkAuthorization(deps, params),
    responseRedirect: (redirectUri: string, state: string | null, values: Record<string, string>) =>
      responseRedirect(deps, redirectUri, state, values),
    errorRedirect: (redirectUri: string, state: string | null, error: string, description: string) =>
      errorRedirect(deps, redirectUri, state, error, description),
    approve: (userId: number, request: AuthorizationRequest, choice: ConsentChoice, recordAudit?: RecordAudit) =>
      approve(deps, userId, request, choice, recordAudit),
    deny: (request: AuthorizationRequest) => deny(deps, request),
    token: (params: Params) => token(deps, params),
    exchangeCode: (params: Params) => exchangeCode(deps, params),
    refresh: (params: Params) => refreshGrant(deps, params),
    revoke: (params: Params) => revokeGrant(deps, params),
    connectionsOf: (userId: number) => connectionsOf(deps, userId),
  };
}

export type OAuthService = ReturnType<typeof createOAuthService>;
