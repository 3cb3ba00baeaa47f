import type { Kysely } from 'kysely';
import { inTransaction } from '../../db/in-transaction.js';
import type { Database } from '../../db/tables.js';
import type { MemberRole } from '../../domain/values.js';

/** Project memberships, as administrators edit them. */
export function createMembersRepository(db: Kysely<Database>) {
  return {
    /** Runs `work` in one transaction: a membership change and its audit record. */
    transaction<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
      return inTransaction(db, work);
    },

    async projectExists(projectId: number): Promise<boolean> {
      return (await db.selectFrom('projects').select('id').where('id', '=', projectId).executeTakeFirst()) !== undefined;
    },

    async userExists(userId: number): Promise<boolean> {
      return (await db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst()) !== undefined;
    },

    /** The project's members with their users, by name; section and checklist ids as stored (JSON or null). */
    listOfProject(projectId: number) {
      return db
        .selectFrom('project_members as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .select(['u.id as user_id', 'u.name', 'u.email', 'u.active', 'm.role', 'm.section_ids', 'm.checklist_ids', 'm.company_items_only'])
        .where('m.project_id', '=', projectId)
        .orderBy('u.name')
        .execute();
    },

    /** How many of `ids` are sections (or checklists) of the project. */
    async countOfProject(table: 'sections' | 'checklists', projectId: number, ids: readonly number[]): Promise<number> {
      if (!ids.length) return 0;
      const rows = await db
        .selectFrom(table as 'sections')
        .select('id')
        .where('project_id', '=', projectId)
        .where('id', 'in', [...ids])
        .execute();
      return rows.length;
    },

    /** Adds the membership or changes the existing one. */
    async upsert(
      trx: Kysely<Database>,
      projectId: number,
      userId: number,
      values: { role: MemberRole; section_ids: string | null; checklist_ids: string | null; company_items_only: number },
      createdAt: string,
    ): Promise<void> {
      await trx
        .insertInto('project_members')
        .values({ project_id: projectId, user_id: userId, ...values, created_at: createdAt })
        .onConflict((oc) => oc.columns(['project_id', 'user_id']).doUpdateSet(values))
        .execute();
    },

    /** Ends the membership and the user's participation in the project's items; false when there was none. */
    async remove(trx: Kysely<Database>, projectId: number, userId: number): Promise<boolean> {
      const result = await trx
        .deleteFrom('project_members')
        .where('project_id', '=', projectId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) return false;
      await trx
        .deleteFrom('item_participants')
        .where('user_id', '=', userId)
        .where('item_id', 'in', (eb) => eb.selectFrom('items').select('id').where('project_id', '=', projectId))
        .execute();
      return true;
    },
  };
}

export type MembersRepository = ReturnType<typeof createMembersRepository>;
