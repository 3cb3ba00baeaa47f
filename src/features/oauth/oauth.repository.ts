import { bindStatements } from '../../db/bind-statements.js';
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

async function insertClient(db: Kysely<Database>, row: Insertable<OAuthClientsTable>): Promise<void> {
  await db.insertInto('oauth_clients').values(row).execute();
}

function findClient(db: Kysely<Database>, id: string): Promise<OAuthClientRow | undefined> {
  return db.selectFrom('oauth_clients').selectAll().where('id', '=', id).executeTakeFirst();
}

async function insertGrant(db: Kysely<Database>, row: Insertable<OAuthGrantsTable>): Promise<number> {
  return (await db.insertInto('oauth_grants').values(row).returning('id').executeTakeFirstOrThrow()).id;
}

function findGrant(db: Kysely<Database>, id: number): Promise<OAuthGrantRow | undefined> {
  return db.selectFrom('oauth_grants').selectAll().where('id', '=', id).executeTakeFirst();
}

function findGrantByToken(db: Kysely<Database>, tokenId: number): Promise<OAuthGrantRow | undefined> {
  return db.selectFrom('oauth_grants').selectAll().where('token_id', '=', tokenId).executeTakeFirst();
}

/** The grant whose access token has this hash (RFC 7009 revocation by access token). */
function findGrantByAccessToken(db: Kysely<Database>, tokenHash: string): Promise<OAuthGrantRow | undefined> {
  return db
    .selectFrom('oauth_grants as g')
    .innerJoin('api_tokens as t', 't.id', 'g.token_id')
    .selectAll('g')
    .where('t.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

async function setGrantToken(db: Kysely<Database>, grantId: number, tokenId: number): Promise<void> {
  await db.updateTable('oauth_grants').set({ token_id: tokenId }).where('id', '=', grantId).execute();
}

/** Marks a grant revoked (the first reason stays); true when this call revoked it. */
async function revokeGrant(db: Kysely<Database>, grantId: number, reason: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('oauth_grants')
    .set({ revoked_at: at, revoked_reason: reason })
    .where('id', '=', grantId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The user's grants that carry a token, with their client's name (the Profile's OAuth rows). */
function connectionsOf(db: Kysely<Database>, userId: number): Promise<OAuthConnectionRow[]> {
  return db
    .selectFrom('oauth_grants as g')
    .innerJoin('oauth_clients as c', 'c.id', 'g.client_id')
    .selectAll('g')
    .select('c.client_name')
    .where('g.user_id', '=', userId)
    .where('g.token_id', 'is not', null)
    .orderBy('g.id')
    .execute();
}

/** Whether the grant's user is still active (a deactivated user's grants refresh nothing). */
async function userActive(db: Kysely<Database>, userId: number): Promise<boolean> {
  const row = await db.selectFrom('users').select('active').where('id', '=', userId).executeTakeFirst();
  return row?.active === 1;
}

/** Whether the token row behind a grant was revoked elsewhere (CLI, another Profile path). */
async function tokenRevoked(db: Kysely<Database>, tokenId: number): Promise<boolean> {
  const row = await db.selectFrom('api_tokens').select('revoked_at').where('id', '=', tokenId).executeTakeFirst();
  return !row || row.revoked_at !== null;
}

async function insertCode(db: Kysely<Database>, row: Insertable<OAuthCodesTable>): Promise<void> {
  await db.insertInto('oauth_codes').values(row).execute();
}

function findCode(db: Kysely<Database>, hash: string): Promise<OAuthCodeRow | undefined> {
  return db.selectFrom('oauth_codes').selectAll().where('code_hash', '=', hash).executeTakeFirst();
}

/** Takes the code: true for the one caller that marks it used (two parallel exchanges: one wins). */
async function useCode(db: Kysely<Database>, id: number, at: string): Promise<boolean> {
  const result = await db
    .updateTable('oauth_codes')
    .set({ used_at: at })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

async function insertRefreshToken(db: Kysely<Database>, row: Insertable<OAuthRefreshTokensTable>): Promise<void> {
  await db.insertInto('oauth_refresh_tokens').values(row).execute();
}

function findRefreshToken(db: Kysely<Database>, hash: string): Promise<OAuthRefreshTokenRow | undefined> {
  return db.selectFrom('oauth_refresh_tokens').selectAll().where('token_hash', '=', hash).executeTakeFirst();
}

/** Takes the refresh token: true for the one caller that marks it used; false means it was used before. */
async function useRefreshToken(db: Kysely<Database>, id: number, at: string): Promise<boolean> {
  const result = await db
    .updateTable('oauth_refresh_tokens')
    .set({ used_at: at })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The statements of OAuth over `db` (the database, or one transaction). */
function statements(db: Kysely<Database>) {
  return bindStatements(db, {
    insertClient,
    findClient,
    insertGrant,
    findGrant,
    findGrantByToken,
    findGrantByAccessToken,
    setGrantToken,
    revokeGrant,
    connectionsOf,
    userActive,
    tokenRevoked,
    insertCode,
    findCode,
    useCode,
    insertRefreshToken,
    findRefreshToken,
    useRefreshToken,
  });
}

export type OAuthStatements = ReturnType<typeof statements>;
export type OAuthRepository = ReturnType<typeof createOAuthRepository>;
