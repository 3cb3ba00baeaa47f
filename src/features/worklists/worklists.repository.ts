import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';

/** The queries behind the work lists: the items a user takes part in. */
export function createWorklistsRepository(db: Kysely<Database>) {
  return {
    /** Ids of the items of one project where the user is a participant. */
    async participantItemIds(userId: number, projectId: number): Promise<Set<number>> {
      const rows = await db
        .selectFrom('item_participants as ip')
        .innerJoin('items as i', 'i.id', 'ip.item_id')
        .select('i.id')
        .where('ip.user_id', '=', userId)
        .where('i.project_id', '=', projectId)
        .execute();
      return new Set(rows.map((r) => r.id));
    },

    /** The items of active projects where the user is a participant: open ones first, then by deadline (none last), then id. */
    participantItems(userId: number) {
      return db
        .selectFrom('item_participants as ip')
        .innerJoin('items as i', 'i.id', 'ip.item_id')
        .innerJoin('projects as p', 'p.id', 'i.project_id')
        .select([
          'i.id',
          'i.text',
          'i.status',
          'i.priority',
          'i.deadline',
          'i.project_id',
          'i.section_id',
          'i.checklist_id',
          'p.name as project_name',
        ])
        .where('ip.user_id', '=', userId)
        .where('p.archived', '=', 0)
        .orderBy((eb) => eb.case().when('i.status', '=', 'done').then(1).else(0).end())
        .orderBy((eb) => eb.case().when('i.deadline', 'is', null).then(1).else(0).end())
        .orderBy('i.deadline')
        .orderBy('i.id')
        .execute();
    },

    /**
     * What waits for a review in the active projects (`projectIds`, or all when null): answers pending review,
     * and done items without a verdict; each with where it is (for the policy), oldest first.
     */
    async reviewQueue(projectIds: readonly number[] | null) {
      if (projectIds !== null && projectIds.length === 0) return [];
      const place = [
        'i.id as item_id',
        'i.text as item_text',
        'i.project_id',
        'i.section_id',
        'i.checklist_id',
        'p.name as project_name',
      ] as const;
      let answers = db
        .selectFrom('answers as a')
        .innerJoin('items as i', 'i.id', 'a.item_id')
        .innerJoin('projects as p', 'p.id', 'i.project_id')
        .innerJoin('users as u', 'u.id', 'a.author_id')
        .select([...place, 'a.id as answer_id', 'a.created_at as since', 'u.name as author_name'])
        .where('a.status', '=', 'pending')
        .where('p.archived', '=', 0);
      let done = db
        .selectFrom('items as i')
        .innerJoin('projects as p', 'p.id', 'i.project_id')
        .select([...place, 'i.updated_at as since'])
        .where('i.status', '=', 'done')
        .where('i.verdict', 'is', null)
        .where('p.archived', '=', 0);
      if (projectIds !== null) {
        answers = answers.where('i.project_id', 'in', [...projectIds]);
        done = done.where('i.project_id', 'in', [...projectIds]);
      }
      const [answerRows, doneRows] = await Promise.all([answers.execute(), done.execute()]);
      return [
        ...answerRows.map((r) => ({ ...r, kind: 'answer' as const })),
        ...doneRows.map((r) => ({ ...r, kind: 'verdict' as const, answer_id: null, author_name: null })),
      ].sort((a, b) => (a.since < b.since ? -1 : a.since > b.since ? 1 : a.item_id - b.item_id));
    },
  };
}

export type WorklistsRepository = ReturnType<typeof createWorklistsRepository>;
