import type { Insertable, Kysely, Transaction } from 'kysely';
import type { Database, ItemHistoryTable } from '../../../db/tables.js';
import type { Verdict } from '../../../domain/values.js';

/** The item and project columns a review changes. The statements of `bind` run inside an item write. */
export function createReviewRepository(db: Kysely<Database>) {
  return {
    /** The statements of an item write, bound to its transaction (features/items/write-repositories.ts). */
    bind: (trx: Transaction<Database>) => ({
      /** The item's verdict and status as the write sees them (under the item's lock). */
      itemState(itemId: number) {
        return trx.selectFrom('items').select(['verdict', 'status', 'requires_answer']).where('id', '=', itemId).executeTakeFirstOrThrow();
      },

      async hasApprovedAnswer(itemId: number): Promise<boolean> {
        const row = await trx
          .selectFrom('answers')
          .select('id')
          .where('item_id', '=', itemId)
          .where('status', '=', 'approved')
          .limit(1)
          .executeTakeFirst();
        return row !== undefined;
      },

      /** Changes the item's columns and records the history entry that says why, at the entry's time. */
      async changeItem(
        itemId: number,
        changes: { verdict: Verdict | null } | { status: 'in_progress'; rework_reason: string; rework_deadline: string; verdict: null },
        entry: Omit<Insertable<ItemHistoryTable>, 'item_id'>,
      ): Promise<void> {
        await trx
          .updateTable('items')
          .set({ ...changes, updated_at: entry.at })
          .where('id', '=', itemId)
          .execute();
        await trx
          .insertInto('item_history')
          .values({ ...entry, item_id: itemId })
          .execute();
      },
    }),

    /** Runs `write` in one transaction: the project's verdict, its audit record and its event commit together. */
    inTransaction<T>(write: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
      return db.transaction().execute(write);
    },

    /** Takes the project's row lock (a self-assignment, as for items) and reads its verdict under it. */
    async lockProjectVerdict(trx: Kysely<Database>, projectId: number): Promise<Verdict | null | undefined> {
      const row = await trx
        .updateTable('projects')
        .set((eb) => ({ verdict: eb.ref('verdict') }))
        .where('id', '=', projectId)
        .returning('verdict')
        .executeTakeFirst();
      return row === undefined ? undefined : (row.verdict as Verdict | null);
    },

    async setProjectVerdict(trx: Kysely<Database>, projectId: number, verdict: Verdict | null, at: string): Promise<void> {
      await trx.updateTable('projects').set({ verdict, updated_at: at }).where('id', '=', projectId).execute();
    },
  };
}

export type ReviewRepository = ReturnType<typeof createReviewRepository>;
