import { hashToken, isWellFormedToken } from '../../domain/token-format.js';
import { OAuthError, sha256 } from './oauth-protocol.js';
import { endGrant, grantLive, type OAuthDeps, type Params, registeredClient } from './oauth-grants.js';
import type { OAuthGrantRow } from './oauth.repository.js';

export type ConnectionState = 'active' | 'expired' | 'revoked';

/** What the Profile shows of an OAuth token row: the grant's client, expiry and state. */
export interface OAuthConnection {
  grantId: number;
  clientName: string;
  expiresAt: string | null;
  state: ConnectionState;
}

/**
 * RFC 7009: a refresh token or an access token of this client ends its grant. Unknown tokens, and
 * tokens of another client, change nothing and still answer 200 (nothing to learn from the answer).
 */
export async function revokeGrant(deps: OAuthDeps, params: Params): Promise<void> {
  const found = await registeredClient(deps, params.client_id);
  if (!params.token) throw new OAuthError('invalid_request', 'token is required');
  const token = params.token;
  let grant: OAuthGrantRow | undefined;
  if (isWellFormedToken(token)) {
    grant = await deps.repo.findGrantByAccessToken(hashToken(token));
  } else {
    const row = await deps.repo.findRefreshToken(sha256(token));
    grant = row ? await deps.repo.findGrant(row.grant_id) : undefined;
  }
  if (grant && grant.client_id === found.id) await endGrant(deps, grant, 'client');
}

/** The user's OAuth connections by token id, for the Profile's token rows. */
export async function connectionsOf({ repo, clock }: OAuthDeps, userId: number): Promise<Map<number, OAuthConnection>> {
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
}
