import type { Insertable, Kysely } from 'kysely';
import type { Database, User, UsersTable } from '../../db/tables.js';

/** The users table. */
export function createUsersRepository(db: Kysely<Database>) {
  return {
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

    insert(row: Insertable<UsersTable>): Promise<User> {
      return db.insertInto('users').values(row).returningAll().executeTakeFirstOrThrow();
    },

    async setActive(id: number, active: boolean, at: string): Promise<void> {
      await db
        .updateTable('users')
        .set({ active: active ? 1 : 0, updated_at: at })
        .where('id', '=', id)
        .execute();
    },
  };
}

export type UsersRepository = ReturnType<typeof createUsersRepository>;
