import type { Kysely } from 'kysely';
import type { Clock } from '../../shared/clock.js';
import type { Database } from '../../db/tables.js';
import type { Scope } from '../../domain/scopes.js';
import { parseProjectIds, type TokensService } from '../tokens/tokens.service.js';
import { OAuthError, randomSecret, sha256 } from './oauth-protocol.js';
import type { OAuthClientRow, OAuthGrantRow, OAuthRepository, OAuthStatements } from './oauth.repository.js';

/** What every use case of OAuth is given (features/oauth/oauth.service.ts wires it). */
export interface OAuthDeps {
  repo: OAuthRepository;
  tokens: TokensService;
  clock: Clock;
  urls: { baseUrl: string };
  /** Called once a user allowed a client (the user is notified, docs/design.md §15). */
  onConnected?: (connection: { userId: number; grantId: number; clientName: string }) => void;
}

/** Authorization codes live 60 s and are used once (OAuth 2.1 §4.1.2). */
export const CODE_TTL_MS = 60_000;
/** Access tokens are short-lived; the refresh token renews them until the grant's own expiry. */
const ACCESS_TOKEN_TTL_MS = 60 * 60 * 1000;
/** The name of a grant's token in the Profile and in `auth/me`: "OAuth: <client name>". */
const OAUTH_TOKEN_PREFIX = 'OAuth: ';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

export type Params = Record<string, string | undefined>;

export const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);
const invalidClient = () => new OAuthError('invalid_client', 'Unknown client_id: register the client first (RFC 7591)', 401);

/** The resource indicators (RFC 8707) this server's tokens are good for: the whole site, /mcp, v1. */
const resources = ({ urls }: OAuthDeps) => [urls.baseUrl, `${urls.baseUrl}/mcp`, `${urls.baseUrl}/api/external/v1`];

export const knownResource = (deps: OAuthDeps, value: string) => resources(deps).some((r) => value === r || value === `${r}/`);

export function checkResource(deps: OAuthDeps, resource: string | undefined): string | null {
  if (resource === undefined || resource === '') return null;
  if (!knownResource(deps, resource)) throw new OAuthError('invalid_target', `resource must be one of ${resources(deps).join(', ')}`);
  return resource;
}

export function grantLive(grant: OAuthGrantRow, now: Date): boolean {
  return !grant.revoked_at && (!grant.expires_at || grant.expires_at > now.toISOString());
}

/** Ends a grant: marks it, and revokes its access token (refresh tokens check the grant). */
export async function endGrant({ repo, tokens, clock }: OAuthDeps, grant: OAuthGrantRow, reason: string): Promise<void> {
  await repo.revokeGrant(grant.id, reason, clock.now().toISOString());
  if (grant.token_id !== null) await tokens.revokeToken(grant.token_id).catch(() => undefined);
}

/** The registered client `clientId`, or invalid_client. */
export async function registeredClient({ repo }: OAuthDeps, clientId: string | undefined): Promise<OAuthClientRow> {
  const found = clientId ? await repo.findClient(clientId) : undefined;
  if (!found) throw invalidClient();
  return found;
}

function accessExpiry(grant: Pick<OAuthGrantRow, 'expires_at'>, now: Date): Date {
  const short = new Date(now.getTime() + ACCESS_TOKEN_TTL_MS);
  return grant.expires_at && Date.parse(grant.expires_at) < short.getTime() ? new Date(grant.expires_at) : short;
}

/** Issues the access token (a new row, or a new value of the grant's row) and a new refresh token. */
async function issue(
  { tokens, clock }: OAuthDeps,
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
    const name = (OAUTH_TOKEN_PREFIX + clientName).slice(0, 200);
    const created = await tokens.createToken({ userId: grant.user_id, name, scopes, expiresAt, projectIds }, { executor: trx });
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

/**
 * Issues the tokens in the transaction in which `take` marks the code or refresh token used; when another request
 * took it first (`take` false), that is a reuse: the grant ends and `reuse` is refused.
 */
export async function issueOnce(
  deps: OAuthDeps,
  grant: OAuthGrantRow,
  client: { name: string; scopes: Scope[] },
  take: (trxRepo: OAuthStatements) => Promise<boolean>,
  reuse: { reason: string; message: string },
): Promise<TokenResponse> {
  const issued = await deps.repo.transaction(async (trxRepo, trx) => {
    if (!(await take(trxRepo))) return null;
    return issue(deps, trxRepo, trx, grant, client.name, client.scopes);
  });
  if (!issued) {
    await endGrant(deps, (await deps.repo.findGrant(grant.id)) ?? grant, reuse.reason);
    throw invalidGrant(reuse.message);
  }
  return issued;
}
