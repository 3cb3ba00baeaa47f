import type { Insertable, Kysely, Transaction } from 'kysely';
import type { AnswerReviewsTable, AnswersTable, Database } from '../../../db/tables.js';

/** Answers and their review history (answer_reviews). The statements of `bind` run inside an item write. */
export function createAnswersRepository(db: Kysely<Database>) {
  return {
    /** The item and the author of an answer. */
    findOwner(answerId: number) {
      return db.selectFrom('answers').select(['item_id', 'author_id']).where('id', '=', answerId).executeTakeFirst();
    },

    /** The statements of an item write, bound to its transaction (features/items/write-repositories.ts). */
    bind: (trx: Transaction<Database>) => ({
      async insert(row: Insertable<AnswersTable>): Promise<number> {
        return (await trx.insertInto('answers').values(row).returning('id').executeTakeFirstOrThrow()).id;
      },

      /** The answer's status as the write sees it (under the item's lock). */
      state(answerId: number) {
        return trx.selectFrom('answers').select(['status', 'updated_at']).where('id', '=', answerId).executeTakeFirstOrThrow();
      },

      /** Moves the answer to `to_status` and records the review entry that says why. */
      async changeStatus(review: Insertable<AnswerReviewsTable> & { at: string }): Promise<void> {
        await trx
          .updateTable('answers')
          .set({ status: review.to_status, updated_at: review.at })
          .where('id', '=', review.answer_id)
          .execute();
        await trx.insertInto('answer_reviews').values(review).execute();
      },
    }),
  };
}

export type AnswersRepository = ReturnType<typeof createAnswersRepository>;
