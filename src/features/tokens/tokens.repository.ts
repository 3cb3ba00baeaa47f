import { bindStatements } from '../../db/bind-statements.js';
import type { Insertable, Kysely } from 'kysely';
import { inTransaction } from '../../db/in-transaction.js';
import type { ApiTokensTable, Database } from '../../db/tables.js';

async function insert(db: Kysely<Database>, row: Insertable<ApiTokensTable>, executor: Kysely<Database> = db): Promise<number> {
  return (await executor.insertInto('api_tokens').values(row).returning('id').executeTakeFirstOrThrow()).id;
}

/** A new value, expiry and scopes for a token (OAuth refresh). */
async function reissue(
  db: Kysely<Database>,
  id: number,
  values: Pick<ApiTokensTable, 'token_hash' | 'expires_at' | 'scopes'>,
  executor: Kysely<Database> = db,
): Promise<void> {
  await executor.updateTable('api_tokens').set(values).where('id', '=', id).execute();
}

/** A user's tokens, newest first. */
function listOfUser(db: Kysely<Database>, userId: number) {
  return db
    .selectFrom('api_tokens')
    .select(['id', 'name', 'scopes', 'created_at', 'expires_at', 'revoked_at', 'last_used_at', 'last_used_ip', 'project_ids'])
    .where('user_id', '=', userId)
    .orderBy('id', 'desc')
    .execute();
}

function findState(db: Kysely<Database>, id: number, executor: Kysely<Database> = db) {
  return executor.selectFrom('api_tokens').select(['id', 'revoked_at', 'user_id']).where('id', '=', id).executeTakeFirst();
}

/** Sets revoked_at; with `ownerId`, only on a token of that user. */
async function revoke(db: Kysely<Database>, id: number, at: string, ownerId?: number, executor: Kysely<Database> = db): Promise<void> {
  let query = executor.updateTable('api_tokens').set({ revoked_at: at }).where('id', '=', id);
  if (ownerId !== undefined) query = query.where('user_id', '=', ownerId);
  await query.execute();
}

/**
 * Ends the OAuth grant whose access token this is (docs/design.md §12), so that its refresh tokens stop too;
 * a grant already ended keeps its reason.
 */
async function endGrantOfToken(db: Kysely<Database>, tokenId: number, at: string, executor: Kysely<Database> = db): Promise<void> {
  await executor
    .updateTable('oauth_grants')
    .set({ revoked_at: at, revoked_reason: 'token_revoked' })
    .where('token_id', '=', tokenId)
    .where('revoked_at', 'is', null)
    .execute();
}

/** What authentication needs of a token and its user, by the token's hash. */
function findForAuthentication(db: Kysely<Database>, hash: string) {
  return db
    .selectFrom('api_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select([
      't.id',
      't.user_id',
      't.name',
      't.scopes',
      't.expires_at',
      't.revoked_at',
      't.last_used_at',
      't.last_used_ip',
      't.project_ids',
      'u.name as user_name',
      'u.email as user_email',
      'u.role as user_role',
      'u.active as user_active',
    ])
    .where('t.token_hash', '=', hash)
    .executeTakeFirst();
}

/** The token owner's role, for checking a project limit against what they see. */
function findUser(db: Kysely<Database>, userId: number) {
  return db.selectFrom('users').select(['id', 'role']).where('id', '=', userId).executeTakeFirst();
}

async function touch(db: Kysely<Database>, id: number, at: string, ip: string): Promise<void> {
  await db.updateTable('api_tokens').set({ last_used_at: at, last_used_ip: ip }).where('id', '=', id).execute();
}

/**
 * The api_tokens table (scopes as stored: a JSON list). The writes take an `executor`: a transaction of the
 * caller's (OAuth writes a token with its grant), the database otherwise.
 */
export function createTokensRepository(db: Kysely<Database>) {
  return {
    ...bindStatements(db, { insert, reissue, listOfUser, findState, revoke, endGrantOfToken, findForAuthentication, findUser, touch }),
    /** Runs `work` in the caller's transaction `executor`, or in a new one. */
    transaction<T>(work: (trx: Kysely<Database>) => Promise<T>, executor: Kysely<Database> = db): Promise<T> {
      return inTransaction(executor, work);
    },
  };
}

export type TokensRepository = ReturnType<typeof createTokensRepository>;
