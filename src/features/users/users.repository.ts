import type { Insertable, Kysely } from 'kysely';
import { inTransaction } from '../../db/in-transaction.js';
import type { Database, User, UsersTable } from '../../db/tables.js';

/** The users table. The writes take the transaction they are part of (with their audit record). */
export function createUsersRepository(db: Kysely<Database>) {
  return {
    /** Runs `work` in one transaction: a change of a user and what commits with it. */
    transaction<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
      return inTransaction(db, work);
    },

    /** `email` as stored: trimmed and lower-cased by the caller. */
    findByEmail(email: string): Promise<User | undefined> {
      return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
    },

    findById(id: number): Promise<User | undefined> {
      return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** Every user in id order, for the administration pages. */
    list() {
      return db.selectFrom('users').select(['id', 'email', 'name', 'role', 'active', 'created_at']).orderBy('id').execute();
    },

    insert(trx: Kysely<Database>, row: Insertable<UsersTable>): Promise<User> {
      return trx.insertInto('users').values(row).returningAll().executeTakeFirstOrThrow();
    },

    async setTimeZone(trx: Kysely<Database>, id: number, zone: string | null, at: string): Promise<void> {
      await trx.updateTable('users').set({ time_zone: zone, updated_at: at }).where('id', '=', id).execute();
    },

    async setLanguage(trx: Kysely<Database>, id: number, language: string | null, at: string): Promise<void> {
      await trx.updateTable('users').set({ language, updated_at: at }).where('id', '=', id).execute();
    },

    async setPasswordHash(trx: Kysely<Database>, id: number, hash: string, at: string): Promise<void> {
      await trx.updateTable('users').set({ password_hash: hash, updated_at: at }).where('id', '=', id).execute();
    },

    /** The user's project memberships with the projects' names, active projects first, then by name. */
    projectRoles(userId: number) {
      return db
        .selectFrom('project_members as m')
        .innerJoin('projects as p', 'p.id', 'm.project_id')
        .select(['p.id', 'p.name', 'p.archived', 'm.role', 'm.section_ids', 'm.checklist_ids'])
        .where('m.user_id', '=', userId)
        .orderBy('p.archived')
        .orderBy('p.name')
        .orderBy('p.id')
        .execute();
    },

    async setActive(trx: Kysely<Database>, id: number, active: boolean, at: string): Promise<void> {
      await trx
        .updateTable('users')
        .set({ active: active ? 1 : 0, updated_at: at })
        .where('id', '=', id)
        .execute();
    },
  };
}

export type UsersRepository = ReturnType<typeof createUsersRepository>;
