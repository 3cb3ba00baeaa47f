import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, OAuthClientsTable, OAuthCodesTable, OAuthGrantsTable, OAuthRefreshTokensTable } from '../../db/tables.js';

export type OAuthClientRow = Selectable<OAuthClientsTable>;
export type OAuthGrantRow = Selectable<OAuthGrantsTable>;
type OAuthCodeRow = Selectable<OAuthCodesTable>;
type OAuthRefreshTokenRow = Selectable<OAuthRefreshTokensTable>;

/** A grant with what the Profile and the consent page show of it. */
interface OAuthConnectionRow extends OAuthGrantRow {
  client_name: string;
}

/**
 * The SQL of OAuth (docs/design.md §12): clients, grants, codes and refresh tokens; `transaction` gives the
 * same statements inside one transaction.
 */
export function createOAuthRepository(db: Kysely<Database>) {
  return {
    ...statements(db),
    /** The same statements in one transaction; `trx` also goes to the tokens service. */
    transaction<T>(work: (repo: OAuthStatements, trx: Kysely<Database>) => Promise<T>): Promise<T> {
      return db.transaction().execute((trx) => work(statements(trx), trx));
    },
  };
}

function statements(db: Kysely<Database>) {
  return {
    async insertClient(row: Insertable<OAuthClientsTable>): Promise<void> {
      await db.insertInto('oauth_clients').values(row).execute();
    },

    findClient(id: string): Promise<OAuthClientRow | undefined> {
      return db.selectFrom('oauth_clients').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async insertGrant(row: Insertable<OAuthGrantsTable>): Promise<number> {
      return (await db.insertInto('oauth_grants').values(row).returning('id').executeTakeFirstOrThrow()).id;
    },

    findGrant(id: number): Promise<OAuthGrantRow | undefined> {
      return db.selectFrom('oauth_grants').selectAll().where('id', '=', id).executeTakeFirst();
    },

    findGrantByToken(tokenId: number): Promise<OAuthGrantRow | undefined> {
      return db.selectFrom('oauth_grants').selectAll().where('token_id', '=', tokenId).executeTakeFirst();
    },

    /** The grant whose access token has this hash (RFC 7009 revocation by access token). */
    findGrantByAccessToken(tokenHash: string): Promise<OAuthGrantRow | undefined> {
      return db
        .selectFrom('oauth_grants as g')
        .innerJoin('api_tokens as t', 't.id', 'g.token_id')
        .selectAll('g')
        .where('t.token_hash', '=', tokenHash)
        .executeTakeFirst();
    },

    async setGrantToken(grantId: number, tokenId: number): Promise<void> {
      await db.updateTable('oauth_grants').set({ token_id: tokenId }).where('id', '=', grantId).execute();
    },

    /** Marks a grant revoked (the first reason stays); true when this call revoked it. */
    async revokeGrant(grantId: number, reason: string, at: string): Promise<boolean> {
      const result = await db
        .updateTable('oauth_grants')
        .set({ revoked_at: at, revoked_reason: reason })
        .where('id', '=', grantId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /** The user's grants that carry a token, with their client's name (the Profile's OAuth rows). */
    connectionsOf(userId: number): Promise<OAuthConnectionRow[]> {
      return db
        .selectFrom('oauth_grants as g')
        .innerJoin('oauth_clients as c', 'c.id', 'g.client_id')
        .selectAll('g')
        .select('c.client_name')
        .where('g.user_id', '=', userId)
        .where('g.token_id', 'is not', null)
        .orderBy('g.id')
        .execute();
    },

    /** Whether the grant's user is still active (a deactivated user's grants refresh nothing). */
    async userActive(userId: number): Promise<boolean> {
      const row = await db.selectFrom('users').select('active').where('id', '=', userId).executeTakeFirst();
      return row?.active === 1;
    },

    /** Whether the token row behind a grant was revoked elsewhere (CLI, another Profile path). */
    async tokenRevoked(tokenId: number): Promise<boolean> {
      const row = await db.selectFrom('api_tokens').select('revoked_at').where('id', '=', tokenId).executeTakeFirst();
      return !row || row.revoked_at !== null;
    },

    async insertCode(row: Insertable<OAuthCodesTable>): Promise<void> {
      await db.insertInto('oauth_codes').values(row).execute();
    },

    findCode(hash: string): Promise<OAuthCodeRow | undefined> {
      return db.selectFrom('oauth_codes').selectAll().where('code_hash', '=', hash).executeTakeFirst();
    },

    /** Takes the code: true for the one caller that marks it used (two parallel exchanges: one wins). */
    async useCode(id: number, at: string): Promise<boolean> {
      const result = await db
        .updateTable('oauth_codes')
        .set({ used_at: at })
        .where('id', '=', id)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async insertRefreshToken(row: Insertable<OAuthRefreshTokensTable>): Promise<void> {
      await db.insertInto('oauth_refresh_tokens').values(row).execute();
    },

    findRefreshToken(hash: string): Promise<OAuthRefreshTokenRow | undefined> {
      return db.selectFrom('oauth_refresh_tokens').selectAll().where('token_hash', '=', hash).executeTakeFirst();
    },

    /** Takes the refresh token: true for the one caller that marks it used; false means it was used before. */
    async useRefreshToken(id: number, at: string): Promise<boolean> {
      const result = await db
        .updateTable('oauth_refresh_tokens')
        .set({ used_at: at })
        .where('id', '=', id)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}

export type OAuthStatements = ReturnType<typeof statements>;
export type OAuthRepository = ReturnType<typeof createOAuthRepository>;
