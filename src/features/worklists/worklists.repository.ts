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
  };
}

export type WorklistsRepository = ReturnType<typeof createWorklistsRepository>;
