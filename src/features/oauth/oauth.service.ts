import type { Kysely } from 'kysely';
import type { Clock } from '../../shared/clock.js';
import type { Database } from '../../db/tables.js';
import { type Scope, SCOPES } from '../../domain/scopes.js';
import { hashToken, isWellFormedToken } from '../../domain/token-format.js';
import type { RecordAudit } from '../audit/audit.service.js';
import { parseProjectIds, type TokensService } from '../tokens/tokens.service.js';
import { nameProblem } from '../../domain/inputs.js';
import {
  hasControlCharacter,
  isCodeVerifier,
  isS256Challenge,
  MAX_REDIRECT_URIS,
  MAX_URI_LENGTH,
  OAuthError,
  parseScopeString,
  randomSecret,
  redirectUriMatches,
  redirectUriProblem,
  s256,
  sha256,
} from './oauth-protocol.js';
import type { OAuthClientRow, OAuthGrantRow, OAuthRepository, OAuthStatements } from './oauth.repository.js';

/** Authorization codes live 60 s and are used once (OAuth 2.1 §4.1.2). */
export const CODE_TTL_MS = 60_000;
/** Access tokens are short-lived; the refresh token renews them until the grant's own expiry. */
const ACCESS_TOKEN_TTL_MS = 60 * 60 * 1000;
/** The name of a grant's token in the Profile and in `auth/me`: "OAuth: <client name>". */
const OAUTH_TOKEN_PREFIX = 'OAuth: ';
const MAX_CLIENT_NAME = 100;
const DEFAULT_CLIENT_NAME = 'Unnamed application';

export type ConnectionState = 'active' | 'expired' | 'revoked';

/** What the Profile shows of an OAuth token row: the grant's client, expiry and state. */
export interface OAuthConnection {
  grantId: number;
  clientName: string;
  expiresAt: string | null;
  state: ConnectionState;
}

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

interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

interface RegisteredClient {
  client_id: string;
  client_id_issued_at: number;
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'none';
  scope?: string;
  client_uri?: string;
  software_id?: string;
  software_version?: string;
}

type Params = Record<string, string | undefined>;

const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);
const invalidClient = () => new OAuthError('invalid_client', 'Unknown client_id: register the client first (RFC 7591)', 401);
const clientMetadata = (description: string) => new OAuthError('invalid_client_metadata', description);

function optionalString(body: Record<string, unknown>, field: string, max: number): string | null {
  const value = body[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > max || hasControlCharacter(value)) {
    throw clientMetadata(`${field} must be a string of at most ${max} characters without control characters`);
  }
  return value;
}

function stringList(body: Record<string, unknown>, field: string, fallback: string[], allowed: readonly string[]): string[] {
  const value = body[field];
  if (value === undefined) return fallback;
  if (!Array.isArray(value) || !value.every((v): v is string => typeof v === 'string'))
    throw clientMetadata(`${field} must be an array of strings`);
  const unknown = value.filter((v) => !allowed.includes(v));
  if (unknown.length) throw clientMetadata(`${field}: ${unknown.join(', ')} not supported (supported: ${allowed.join(', ')})`);
  return [...new Set(value)];
}

export function createOAuthService(deps: {
  repo: OAuthRepository;
  tokens: TokensService;
  clock: Clock;
  urls: { baseUrl: string };
  /** Called once a user allowed a client (the user is notified, docs/design.md §15). */
  onConnected?: (connection: { userId: number; grantId: number; clientName: string }) => void;
}) {
  const { repo, tokens, clock, urls } = deps;

  /** The resource indicators (RFC 8707) this server's tokens are good for: the whole site, /mcp, v1. */
  const resources = () => [urls.baseUrl, `${urls.baseUrl}/mcp`, `${urls.baseUrl}/api/external/v1`];
  const knownResource = (value: string) => resources().some((r) => value === r || value === `${r}/`);

  function tokenName(clientName: string) {
    return (OAUTH_TOKEN_PREFIX + clientName).slice(0, 200);
  }

  function accessExpiry(grant: Pick<OAuthGrantRow, 'expires_at'>, now: Date): Date {
    const short = new Date(now.getTime() + ACCESS_TOKEN_TTL_MS);
    return grant.expires_at && Date.parse(grant.expires_at) < short.getTime() ? new Date(grant.expires_at) : short;
  }

  function grantLive(grant: OAuthGrantRow, now: Date): boolean {
    return !grant.revoked_at && (!grant.expires_at || grant.expires_at > now.toISOString());
  }

  /** Ends a grant: marks it, and revokes its access token (refresh tokens check the grant). */
  async function endGrant(grant: OAuthGrantRow, reason: string): Promise<void> {
    await repo.revokeGrant(grant.id, reason, clock.now().toISOString());
    if (grant.token_id !== null) await tokens.revokeToken(grant.token_id).catch(() => undefined);
  }

  async function client(clientId: string | undefined): Promise<OAuthClientRow> {
    const found = clientId ? await repo.findClient(clientId) : undefined;
    if (!found) throw invalidClient();
    return found;
  }

  /** Issues the access token (a new row, or a new value of the grant's row) and a new refresh token. */
  async function issue(
    trxRepo: OAuthStatements,
    trx: Kysely<Database>,
    grant: OAuthGrantRow,
    clientName: string,
    scopes: Scope[],
  ): Promise<TokenResponse> {
    const now = clock.now();
    const expiresAt = accessExpiry(grant, now);
    let access: string;
    if (grant.token_id === null) {
      const projectIds = parseProjectIds(grant.project_ids);
      const created = await tokens.createToken(
        { userId: grant.user_id, name: tokenName(clientName), scopes, expiresAt, projectIds },
        { executor: trx },
      );
      await trxRepo.setGrantToken(grant.id, created.id);
      access = created.token;
    } else {
      access = (await tokens.reissueToken(grant.token_id, { expiresAt, scopes }, trx)).token;
    }
    const refresh = randomSecret('plr_');
    await trxRepo.insertRefreshToken({
      token_hash: sha256(refresh),
      grant_id: grant.id,
      created_at: now.toISOString(),
      expires_at: grant.expires_at,
      used_at: null,
    });
    return {
      access_token: access,
      token_type: 'Bearer',
      expires_in: Math.max(1, Math.round((expiresAt.getTime() - now.getTime()) / 1000)),
      refresh_token: refresh,
      scope: scopes.join(' '),
    };
  }

  function checkResource(resource: string | undefined): string | null {
    if (resource === undefined || resource === '') return null;
    if (!knownResource(resource)) throw new OAuthError('invalid_target', `resource must be one of ${resources().join(', ')}`);
    return resource;
  }

  const service = {
    /** RFC 7591: a public client (no secret), with https or loopback redirect URIs. */
    async registerClient(body: unknown): Promise<RegisteredClient> {
      if (!body || typeof body !== 'object' || Array.isArray(body))
        throw clientMetadata('the body must be a JSON object of client metadata');
      const fields = body as Record<string, unknown>;
      const uris = fields.redirect_uris;
      if (!Array.isArray(uris) || uris.length === 0 || !uris.every((u): u is string => typeof u === 'string')) {
        throw new OAuthError('invalid_redirect_uri', 'redirect_uris must be a non-empty array of URIs');
      }
      if (uris.length > MAX_REDIRECT_URIS) throw new OAuthError('invalid_redirect_uri', `at most ${MAX_REDIRECT_URIS} redirect_uris`);
      for (const uri of uris) {
        const problem = redirectUriProblem(uri);
        if (problem) throw new OAuthError('invalid_redirect_uri', `redirect_uri ${JSON.stringify(uri.slice(0, 200))} ${problem}`);
      }
      const grantTypes = stringList(
        fields,
        'grant_types',
        ['authorization_code', 'refresh_token'],
        ['authorization_code', 'refresh_token'],
      );
      if (!grantTypes.includes('authorization_code')) throw clientMetadata('grant_types must include authorization_code');
      const responseTypes = stringList(fields, 'response_types', ['code'], ['code']);
      const name = optionalString(fields, 'client_name', MAX_CLIENT_NAME)?.trim() || DEFAULT_CLIENT_NAME;
      // The consent page and the Profile show it as the application's name: the rule of every name.
      const nameRefused = nameProblem(name);
      if (nameRefused) throw clientMetadata(`client_name ${nameRefused}`);
      const clientUri = optionalString(fields, 'client_uri', MAX_URI_LENGTH);
      if (clientUri !== null && !/^https?:\/\/[^\s]+$/i.test(clientUri)) throw clientMetadata('client_uri must be an http(s) URL');
      const scope = optionalString(fields, 'scope', 1000);
      if (scope !== null) {
        const { unknown } = parseScopeString(scope);
        if (unknown.length) throw clientMetadata(`scope: unknown ${unknown.join(', ')} (supported: ${SCOPES.join(' ')})`);
      }
      const softwareId = optionalString(fields, 'software_id', 200);
      const softwareVersion = optionalString(fields, 'software_version', 200);
      const now = clock.now();
      const clientId = randomSecret('plc_');
      await repo.insertClient({
        id: clientId,
        client_name: name,
        redirect_uris: JSON.stringify([...new Set(uris)]),
        scope: scope?.trim() || null,
        client_uri: clientUri,
        software_id: softwareId,
        software_version: softwareVersion,
        created_at: now.toISOString(),
      });
      return {
        client_id: clientId,
        client_id_issued_at: Math.floor(now.getTime() / 1000),
        client_name: name,
        redirect_uris: [...new Set(uris)],
        grant_types: grantTypes,
        response_types: responseTypes,
        // Public clients only: a client asking for a secret method is registered as public (RFC 7591 §3.2.1 lets the server replace values).
        token_endpoint_auth_method: 'none',
        ...(scope?.trim() ? { scope: scope.trim() } : {}),
        ...(clientUri ? { client_uri: clientUri } : {}),
        ...(softwareId ? { software_id: softwareId } : {}),
        ...(softwareVersion ? { software_version: softwareVersion } : {}),
      };
    },

    /**
     * Checks an authorization request (RFC 6749 §4.1.1, PKCE S256 required). An unknown client or a
     * redirect URI it did not register is refused without any link back; other errors carry the error
     * redirect for the user to follow.
     */
    async checkAuthorization(params: Params): Promise<AuthorizationRequest> {
      const found = params.client_id ? await repo.findClient(params.client_id) : undefined;
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
        new AuthorizationError(error, description, service.errorRedirect(redirectUri, state, error, description));
      if (params.response_type !== 'code') throw back('unsupported_response_type', 'response_type must be "code".');
      if (!params.code_challenge) throw back('invalid_request', 'code_challenge is required (PKCE, method S256).');
      if (params.code_challenge_method !== 'S256')
        throw back('invalid_request', 'code_challenge_method must be S256 (plain is not accepted).');
      if (!isS256Challenge(params.code_challenge))
        throw back('invalid_request', 'code_challenge must be the base64url SHA-256 of the code verifier (43 characters).');
      const asked = params.scope?.trim() || found.scope || SCOPES.join(' ');
      const { scopes, unknown } = parseScopeString(asked);
      if (unknown.length) throw back('invalid_scope', `Unknown scope ${unknown.join(', ')}.`);
      if (!scopes.length) throw back('invalid_scope', 'No scope was asked for.');
      if (params.resource && !knownResource(params.resource))
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
    },

    /** The redirect URI with the response parameters added (RFC 6749 §4.1.2, `iss` of RFC 9207). */
    responseRedirect(redirectUri: string, state: string | null, values: Record<string, string>): string {
      const url = new URL(redirectUri);
      for (const [name, value] of Object.entries(values)) url.searchParams.append(name, value);
      if (state !== null) url.searchParams.append('state', state);
      url.searchParams.append('iss', urls.baseUrl);
      return url.href;
    },

    errorRedirect(redirectUri: string, state: string | null, error: string, description: string): string {
      return service.responseRedirect(redirectUri, state, { error, error_description: description });
    },

    /**
     * The user allowed: a grant with the scopes kept (a subset of those asked for) and the expiry chosen,
     * and a code for it. Returns where to send the browser. `recordAudit` commits with the grant.
     */
    async approve(
      userId: number,
      request: AuthorizationRequest,
      choice: { scopes: string[]; expiresAt: Date | null; projectIds?: readonly number[] | null },
      recordAudit?: RecordAudit,
    ): Promise<string> {
      const kept = request.scopes.filter((s) => choice.scopes.includes(s));
      if (!kept.length) throw new OAuthError('invalid_scope', 'Choose at least one scope to allow.');
      const now = clock.now();
      if (choice.expiresAt && choice.expiresAt <= now) throw new OAuthError('invalid_request', 'The expiry must be in the future.');
      // The grant's project limit (docs/design.md §18), checked now; its tokens, refreshed or not, keep it.
      const projectIds = await tokens.checkProjectLimit(userId, choice.projectIds);
      const code = randomSecret('plo_');
      const grantId = await repo.transaction(async (trxRepo, trx) => {
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
      return service.responseRedirect(request.redirectUri, request.state, { code });
    },

    /** The user denied: `access_denied` to the client (RFC 6749 §4.1.2.1). */
    deny(request: AuthorizationRequest): string {
      return service.errorRedirect(request.redirectUri, request.state, 'access_denied', 'The user denied the authorization request.');
    },

    /** The token endpoint (RFC 6749 §3.2): authorization_code with PKCE, or refresh_token with rotation. */
    async token(params: Params): Promise<TokenResponse> {
      if (params.grant_type === 'authorization_code') return service.exchangeCode(params);
      if (params.grant_type === 'refresh_token') return service.refresh(params);
      if (!params.grant_type) throw new OAuthError('invalid_request', 'grant_type is required');
      throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
    },

    async exchangeCode(params: Params): Promise<TokenResponse> {
      const found = await client(params.client_id);
      if (!params.code) throw new OAuthError('invalid_request', 'code is required');
      if (!params.code_verifier) throw new OAuthError('invalid_request', 'code_verifier is required (PKCE)');
      if (!isCodeVerifier(params.code_verifier))
        throw new OAuthError('invalid_request', 'code_verifier must be 43 to 128 unreserved characters');
      const resource = checkResource(params.resource);
      const code = await repo.findCode(sha256(params.code));
      const grant = code ? await repo.findGrant(code.grant_id) : undefined;
      if (!code || !grant || grant.client_id !== found.id) throw invalidGrant('The authorization code is not valid');
      if (code.used_at) {
        // OAuth 2.1 §4.1.3: a code used twice ends what was issued with it.
        await endGrant(grant, 'code_reused');
        throw invalidGrant('The authorization code was already used; the tokens issued with it are revoked');
      }
      const now = clock.now();
      if (code.expires_at <= now.toISOString()) throw invalidGrant('The authorization code has expired');
      if (params.redirect_uri !== code.redirect_uri) throw invalidGrant('redirect_uri does not match the authorization request');
      if (s256(params.code_verifier) !== code.code_challenge) throw invalidGrant('code_verifier does not match the code_challenge');
      if (resource !== null && code.resource !== null && resource.replace(/\/$/, '') !== code.resource.replace(/\/$/, '')) {
        throw new OAuthError('invalid_target', 'resource differs from the authorization request');
      }
      if (!grantLive(grant, now) || !(await repo.userActive(grant.user_id))) throw invalidGrant('The authorization is no longer valid');
      const issued = await repo.transaction(async (trxRepo, trx) => {
        if (!(await trxRepo.useCode(code.id, now.toISOString()))) return null;
        return issue(trxRepo, trx, grant, found.client_name, JSON.parse(grant.scopes) as Scope[]);
      });
      if (!issued) {
        await endGrant((await repo.findGrant(grant.id)) ?? grant, 'code_reused');
        throw invalidGrant('The authorization code was already used; the tokens issued with it are revoked');
      }
      return issued;
    },

    /** Rotation: each refresh token works once; a second use ends the whole grant (OAuth 2.1 §4.3.1). */
    async refresh(params: Params): Promise<TokenResponse> {
      const found = await client(params.client_id);
      if (!params.refresh_token) throw new OAuthError('invalid_request', 'refresh_token is required');
      checkResource(params.resource);
      const row = await repo.findRefreshToken(sha256(params.refresh_token));
      const grant = row ? await repo.findGrant(row.grant_id) : undefined;
      if (!row || !grant || grant.client_id !== found.id) throw invalidGrant('The refresh token is not valid');
      if (row.used_at) {
        await endGrant(grant, 'refresh_token_reused');
        throw invalidGrant('The refresh token was already used: the authorization is revoked');
      }
      const now = clock.now();
      if (!grantLive(grant, now)) throw invalidGrant('The authorization has been revoked or has expired');
      if (!(await repo.userActive(grant.user_id))) throw invalidGrant('The authorization is no longer valid');
      if (grant.token_id !== null && (await repo.tokenRevoked(grant.token_id))) {
        // A token revoked before revokeToken ended its grant too: the grant ends now.
        await repo.revokeGrant(grant.id, 'token_revoked', now.toISOString());
        throw invalidGrant('The authorization has been revoked');
      }
      const granted = JSON.parse(grant.scopes) as Scope[];
      let scopes = granted;
      if (params.scope !== undefined) {
        const asked = parseScopeString(params.scope);
        if (asked.unknown.length || !asked.scopes.length || asked.scopes.some((s) => !granted.includes(s))) {
          throw new OAuthError('invalid_scope', 'scope may only narrow the scopes granted');
        }
        scopes = granted.filter((s) => asked.scopes.includes(s));
      }
      const issued = await repo.transaction(async (trxRepo, trx) => {
        if (!(await trxRepo.useRefreshToken(row.id, now.toISOString()))) return null;
        return issue(trxRepo, trx, grant, found.client_name, scopes);
      });
      if (!issued) {
        await endGrant((await repo.findGrant(grant.id)) ?? grant, 'refresh_token_reused');
        throw invalidGrant('The refresh token was already used: the authorization is revoked');
      }
      return issued;
    },

    /**
     * RFC 7009: a refresh token or an access token of this client ends its grant. Unknown tokens, and
     * tokens of another client, change nothing and still answer 200 (nothing to learn from the answer).
     */
    async revoke(params: Params): Promise<void> {
      const found = await client(params.client_id);
      if (!params.token) throw new OAuthError('invalid_request', 'token is required');
      const token = params.token;
      let grant: OAuthGrantRow | undefined;
      if (isWellFormedToken(token)) {
        grant = await repo.findGrantByAccessToken(hashToken(token));
      } else {
        const row = await repo.findRefreshToken(sha256(token));
        grant = row ? await repo.findGrant(row.grant_id) : undefined;
      }
      if (grant && grant.client_id === found.id) await endGrant(grant, 'client');
    },

    /** The user's OAuth connections by token id, for the Profile's token rows. */
    async connectionsOf(userId: number): Promise<Map<number, OAuthConnection>> {
      const now = clock.now();
      const rows = await repo.connectionsOf(userId);
      return new Map(
        rows.map((g) => [
          g.token_id!,
          {
            grantId: g.id,
            clientName: g.client_name,
            expiresAt: g.expires_at,
            state: g.revoked_at ? 'revoked' : grantLive(g, now) ? 'active' : 'expired',
          },
        ]),
      );
    },
  };
  return service;
}

export type OAuthService = ReturnType<typeof createOAuthService>;
