import { bindStatements } from '../../db/bind-statements.js';
import type { Insertable, Kysely } from 'kysely';
import { inTransaction } from '../../db/in-transaction.js';
import type { Database, InvitationsTable } from '../../db/tables.js';

function findByHash(db: Kysely<Database>, tokenHash: string, executor: Kysely<Database> = db) {
  return executor
    .selectFrom('invitations as i')
    .innerJoin('projects as p', 'p.id', 'i.project_id')
    .select(['i.id', 'i.project_id', 'p.name as project_name', 'i.email', 'i.name', 'i.company_id', 'i.role'])
    .select(['i.company_items_only', 'i.expires_at', 'i.used_at'])
    .where('i.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

async function insert(trx: Kysely<Database>, row: Insertable<InvitationsTable>): Promise<number> {
  const made = await trx.insertInto('invitations').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(made.id);
}

/**
 * Uses the invitation if it is still unused and unexpired at `at` (a conditional UPDATE: the row is locked until
 * the commit): false when another request used it first.
 */
async function use(trx: Kysely<Database>, id: number, at: string): Promise<boolean> {
  const result = await trx
    .updateTable('invitations')
    .set({ used_at: at })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', at)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

async function setInvitedUser(trx: Kysely<Database>, id: number, userId: number): Promise<void> {
  await trx.updateTable('invitations').set({ user_id: userId }).where('id', '=', id).execute();
}

function findUserByEmail(db: Kysely<Database>, email: string, executor: Kysely<Database> = db) {
  return executor
    .selectFrom('users')
    .select(['id', 'name', 'email', 'role', 'active', 'company_id', 'language', 'time_zone'])
    .where('email', '=', email)
    .executeTakeFirst();
}

async function isMember(db: Kysely<Database>, projectId: number, userId: number, executor: Kysely<Database> = db): Promise<boolean> {
  const row = await executor
    .selectFrom('project_members')
    .select('user_id')
    .where('project_id', '=', projectId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row !== undefined;
}

async function insertUser(
  trx: Kysely<Database>,
  row: { email: string; name: string; password_hash: string; company_id: number | null; at: string },
) {
  return trx
    .insertInto('users')
    .values({
      email: row.email,
      name: row.name,
      role: 'member',
      password_hash: row.password_hash,
      active: 1,
      company_id: row.company_id,
      created_at: row.at,
      updated_at: row.at,
    })
    .returning(['id', 'name', 'email', 'role', 'time_zone', 'language'])
    .executeTakeFirstOrThrow();
}

async function setCompanyIfNone(trx: Kysely<Database>, userId: number, companyId: number, at: string): Promise<void> {
  await trx
    .updateTable('users')
    .set({ company_id: companyId, updated_at: at })
    .where('id', '=', userId)
    .where('company_id', 'is', null)
    .execute();
}

async function addMember(
  trx: Kysely<Database>,
  row: { project_id: number; user_id: number; role: string; company_items_only: number; at: string },
): Promise<void> {
  await trx
    .insertInto('project_members')
    .values({
      project_id: row.project_id,
      user_id: row.user_id,
      role: row.role,
      section_ids: null,
      checklist_ids: null,
      company_items_only: row.company_items_only,
      created_at: row.at,
    })
    // Added meanwhile by another request (checked before): that membership stands.
    .onConflict((oc) => oc.columns(['project_id', 'user_id']).doNothing())
    .execute();
}

/** The invitations table, and the account and membership an invitation makes (docs/design.md §20). */
export function createInvitationsRepository(db: Kysely<Database>) {
  return {
    ...bindStatements(db, { findByHash, findUserByEmail, isMember }),
    insert,
    use,
    setInvitedUser,
    insertUser,
    setCompanyIfNone,
    addMember,
    transaction<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
      return inTransaction(db, work);
    },
  };
}

export type InvitationsRepository = ReturnType<typeof createInvitationsRepository>;
