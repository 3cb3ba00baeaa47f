import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';

/**
 * The report's own reads: what the tree summary of an item lacks (verdict, participants, answers and their
 * reviews, photos), for one page of item ids at a time, so that a 5 000-item report never holds them all.
 */
export function createReportRepository(db: Kysely<Database>) {
  return {
    /**
     * The project's vocabulary as the CSV's columns need it (docs/design.md §21): whether it has categories or
     * fields at all, and its fields' names in their order, retired ones too (their values are kept).
     */
    async vocabularyOf(projectId: number): Promise<{ used: boolean; fieldNames: string[] }> {
      const [fields, category] = await Promise.all([
        db.selectFrom('custom_fields').select('name').where('project_id', '=', projectId).orderBy('position').orderBy('id').execute(),
        db.selectFrom('categories').select('id').where('project_id', '=', projectId).limit(1).executeTakeFirst(),
      ]);
      return { used: fields.length > 0 || category !== undefined, fieldNames: fields.map((r) => r.name) };
    },

    /** The project's plans in their order (the PDF's plan pages). */
    plansOf: (projectId: number) =>
      db.selectFrom('plans').select(['id', 'name']).where('project_id', '=', projectId).orderBy('position').orderBy('id').execute(),

    /** The reader's time zone (the Profile's setting), null when none is set: the report's times are shown in it. */
    /** The language a user chose in the Profile (null: none chosen). */
    async languageOf(userId: number): Promise<string | null> {
      const row = await db.selectFrom('users').select('language').where('id', '=', userId).executeTakeFirst();
      return row?.language ?? null;
    },

    async timeZoneOf(userId: number): Promise<string | null> {
      const row = await db.selectFrom('users').select('time_zone').where('id', '=', userId).executeTakeFirst();
      return row?.time_zone ?? null;
    },

    async details(itemIds: readonly number[]) {
      if (itemIds.length === 0) return { items: [], participants: [], answers: [], reviews: [], photos: [] };
      const ids = [...itemIds];
      const [items, participants, answers, photos] = await Promise.all([
        db.selectFrom('items').select(['id', 'verdict', 'rework_reason']).where('id', 'in', ids).execute(),
        db
          .selectFrom('item_participants as ip')
          .innerJoin('users as u', 'u.id', 'ip.user_id')
          .select(['ip.item_id', 'u.name'])
          .where('ip.item_id', 'in', ids)
          .orderBy('ip.item_id')
          .orderBy('u.id')
          .execute(),
        db
          .selectFrom('answers as a')
          .innerJoin('users as u', 'u.id', 'a.author_id')
          .select(['a.id', 'a.item_id', 'a.text', 'a.status', 'a.created_at', 'u.name as author_name'])
          .where('a.item_id', 'in', ids)
          .orderBy('a.item_id')
          .orderBy('a.id')
          .execute(),
        db
          .selectFrom('attachments')
          // The answers' photos too (the fix, docs/design.md §22), with what they show.
          .select(['id', 'item_id', 'answer_id', 'path', 'annotates', 'stage', 'caption'])
          .where('item_id', 'in', ids)
          .orderBy('item_id')
          .orderBy('id')
          .execute(),
      ]);
      const lastAnswerIds = [...new Map(answers.map((a) => [a.item_id, a.id])).values()];
      const reviews =
        lastAnswerIds.length === 0
          ? []
          : await db
              .selectFrom('answer_reviews as r')
              .leftJoin('users as u', 'u.id', 'r.user_id')
              .select(['r.answer_id', 'r.to_status', 'r.at', 'u.name as reviewer_name'])
              .where('r.answer_id', 'in', lastAnswerIds)
              .where('r.reason', '=', 'review')
              .orderBy('r.answer_id')
              .orderBy('r.id')
              .execute();
      return { items, participants, answers, reviews, photos };
    },
  };
}

export type ReportRepository = ReturnType<typeof createReportRepository>;
