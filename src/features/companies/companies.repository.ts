import type { Kysely } from 'kysely';
import { inTransaction } from '../../db/in-transaction.js';
import type { Database } from '../../db/tables.js';

/** A company as pickers and lists show it. */
export interface CompanyRow {
  id: number;
  name: string;
  trade: string;
  retired: number;
}

/** The companies table and a person's company (docs/design.md §20). Writes take the transaction they are part of. */
export function createCompaniesRepository(db: Kysely<Database>) {
  return {
    transaction<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
      return inTransaction(db, work);
    },

    /** Every company, by name then id; retired ones too unless `activeOnly`. */
    list(activeOnly = false): Promise<CompanyRow[]> {
      let query = db.selectFrom('companies').select(['id', 'name', 'trade', 'retired']);
      if (activeOnly) query = query.where('retired', '=', 0);
      return query.orderBy('name').orderBy('id').execute();
    },

    find(id: number, executor: Kysely<Database> = db): Promise<CompanyRow | undefined> {
      return executor.selectFrom('companies').select(['id', 'name', 'trade', 'retired']).where('id', '=', id).executeTakeFirst();
    },

    async insert(trx: Kysely<Database>, values: { name: string; trade: string; now: string }): Promise<number> {
      const row = await trx
        .insertInto('companies')
        .values({ name: values.name, trade: values.trade, created_at: values.now, updated_at: values.now })
        .returning('id')
        .executeTakeFirstOrThrow();
      return Number(row.id);
    },

    async setRetired(trx: Kysely<Database>, id: number, retired: boolean, now: string): Promise<void> {
      await trx
        .updateTable('companies')
        .set({ retired: retired ? 1 : 0, updated_at: now })
        .where('id', '=', id)
        .execute();
    },

    async setUserCompany(trx: Kysely<Database>, userId: number, companyId: number | null, now: string): Promise<void> {
      await trx.updateTable('users').set({ company_id: companyId, updated_at: now }).where('id', '=', userId).execute();
    },

    /** The users with their company (the admin's "People" block). */
    people(): Promise<{ id: number; name: string; email: string; company_id: number | null }[]> {
      return db.selectFrom('users').select(['id', 'name', 'email', 'company_id']).orderBy('name').orderBy('id').execute();
    },

    findUser(id: number, executor: Kysely<Database> = db) {
      return executor.selectFrom('users').select(['id', 'company_id']).where('id', '=', id).executeTakeFirst();
    },
  };
}

export type CompaniesRepository = ReturnType<typeof createCompaniesRepository>;
