import type { Kysely } from 'kysely';
import { inTransaction } from '../../db/in-transaction.js';
import type { Database } from '../../db/tables.js';

/** What a company pack is made of and whom it goes to (docs/design.md §20); `company_pack_sends` keeps each send once. */
export function createCompanyPacksRepository(db: Kysely<Database>) {
  return {
    transaction<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
      return inTransaction(db, work);
    },

    /** The project's open items (not done) held by a company, with the time each last changed; by company, then item. */
    openHeldItems(projectId: number) {
      return db
        .selectFrom('items as i')
        .innerJoin('companies as c', 'c.id', 'i.responsible_company_id')
        .select(['c.id as company_id', 'c.name as company_name', 'i.id as item_id', 'i.status', 'i.updated_at'])
        .where('i.project_id', '=', projectId)
        .where('i.status', '!=', 'done')
        .orderBy('c.id')
        .orderBy('i.id')
        .execute();
    },

    /** The active people of `companyIds` who are members of the project: a pack's recipients. */
    recipients(projectId: number, companyIds: readonly number[]) {
      if (companyIds.length === 0) return Promise.resolve([]);
      return db
        .selectFrom('users as u')
        .innerJoin('project_members as m', 'm.user_id', 'u.id')
        .select(['u.id', 'u.email', 'u.company_id', 'u.language'])
        .where('m.project_id', '=', projectId)
        .where('u.active', '=', 1)
        .where('u.company_id', 'in', [...companyIds])
        .orderBy('u.id')
        .execute();
    },

    /** Notes a pack sent to a person; false when this very pack was sent to them already (the unique index). */
    async recordSend(
      trx: Kysely<Database>,
      row: { project_id: number; company_id: number; user_id: number; send_key: string; created_at: string },
    ) {
      const result = await trx
        .insertInto('company_pack_sends')
        .values(row)
        .onConflict((oc) => oc.columns(['project_id', 'company_id', 'user_id', 'send_key']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    projectName(projectId: number) {
      return db.selectFrom('projects').select('name').where('id', '=', projectId).executeTakeFirst();
    },
  };
}

export type CompanyPacksRepository = ReturnType<typeof createCompanyPacksRepository>;
