import type { Kysely, Transaction } from 'kysely';
import { moveAmongSiblings, nextPosition } from '../../db/positions.js';
import type { Database } from '../../db/tables.js';
import type { Priority } from '../../domain/values.js';

/** A new item as the punch-list cycle raises it (docs/design.md §14): pending, with its planning. */
interface NewItemRow {
  project_id: number;
  section_id: number;
  checklist_id: number;
  text: string;
  description: string;
  priority: Priority;
  deadline: string | null;
  requires_answer: number;
  /** Its place on a plan (docs/design.md §19: "Add item here"), checked by the caller; absent: on none. */
  plan_id?: number | null;
  plan_x?: number | null;
  plan_y?: number | null;
  /** Its responsible company (docs/design.md §20), checked by the caller. */
  responsible_company_id?: number | null;
}

/** The fields of an item that "Edit item" changes. */
export interface ItemFields {
  text: string;
  description: string;
  section_id: number;
  checklist_id: number;
}

/** The reads an item's creation or edit also makes under its lock, on `executor`. */
function reads(executor: Kysely<Database>) {
  return {
    findChecklist(id: number) {
      return executor.selectFrom('checklists').select(['id', 'project_id', 'section_id', 'name']).where('id', '=', id).executeTakeFirst();
    },

    async participantIds(itemId: number): Promise<number[]> {
      const rows = await executor
        .selectFrom('item_participants')
        .select('user_id')
        .where('item_id', '=', itemId)
        .orderBy('user_id')
        .execute();
      return rows.map((p) => p.user_id);
    },
  };
}

/** The statements of raising, editing and moving an item (docs/design.md §14), bound to the item write's transaction. */
function writes(trx: Transaction<Database>) {
  return {
    ...reads(trx),

    /** The position after the last item of the checklist. */
    nextPosition: (checklistId: number) => nextPosition(trx, 'items', checklistId),

    /** Moves an item up (-1) or down (1) within its checklist. */
    move: (itemId: number, offset: -1 | 1, at: string) => moveAmongSiblings(trx, 'items', itemId, offset, at),

    /** Inserts a pending item, its `created` history entry and its participants; returns its id. */
    async insertItem(item: NewItemRow & { position: number }, participantIds: readonly number[], actorId: number, at: string) {
      const row = await trx
        .insertInto('items')
        .values({ ...item, status: 'pending', verdict: null, rework_reason: null, rework_deadline: null, created_at: at, updated_at: at })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('item_history')
        .values({ item_id: row.id, kind: 'created', from_status: null, to_status: 'pending', user_id: actorId, note: null, at })
        .execute();
      if (participantIds.length) {
        await trx
          .insertInto('item_participants')
          .values(participantIds.map((user_id) => ({ item_id: row.id, user_id })))
          .execute();
      }
      return row.id;
    },

    itemFields(itemId: number): Promise<ItemFields & { project_id: number }> {
      return trx
        .selectFrom('items')
        .select(['project_id', 'text', 'description', 'section_id', 'checklist_id'])
        .where('id', '=', itemId)
        .executeTakeFirstOrThrow();
    },

    /** How many of `userIds` are members of the project. */
    async countMembers(projectId: number, userIds: readonly number[]): Promise<number> {
      const rows = await trx
        .selectFrom('project_members')
        .select('user_id')
        .where('project_id', '=', projectId)
        .where('user_id', 'in', [...userIds])
        .execute();
      return rows.length;
    },

    /** Changes an item's own fields (a move to another checklist brings `position`). */
    async updateItem(itemId: number, values: Partial<ItemFields> & { position?: number; updated_at: string }) {
      await trx.updateTable('items').set(values).where('id', '=', itemId).execute();
    },

    async replaceParticipants(itemId: number, participantIds: readonly number[]): Promise<void> {
      await trx.deleteFrom('item_participants').where('item_id', '=', itemId).execute();
      if (participantIds.length) {
        await trx
          .insertInto('item_participants')
          .values(participantIds.map((user_id) => ({ item_id: itemId, user_id })))
          .execute();
      }
    },
  };
}

/** The SQL of raising, editing and moving items: reads on the database, and `bind` for the item write path. */
export function createItemEditsRepository(db: Kysely<Database>) {
  return {
    ...reads(db),

    /** The project's members with their users, by name ("Add item" and "Edit item" offer them as participants). */
    membersOfProject(projectId: number) {
      return db
        .selectFrom('project_members as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .select(['u.id', 'u.name', 'u.email', 'm.role'])
        .where('m.project_id', '=', projectId)
        .orderBy('u.name')
        .orderBy('u.id')
        .execute();
    },

    /** The companies an item may be given now (the item forms' picker, docs/design.md §20), by name. */
    async activeCompanies(): Promise<{ id: number; name: string; trade: string; retired: boolean }[]> {
      const rows = await db
        .selectFrom('companies')
        .select(['id', 'name', 'trade'])
        .where('retired', '=', 0)
        .orderBy('name')
        .orderBy('id')
        .execute();
      return rows.map((row) => ({ ...row, retired: false }));
    },

    /** A company that may be given an item now: it exists and is not retired (docs/design.md §20). */
    choosableCompany(companyId: number) {
      return db.selectFrom('companies').select(['id', 'name']).where('id', '=', companyId).where('retired', '=', 0).executeTakeFirst();
    },

    bind: writes,
  };
}

export type ItemEditsRepository = ReturnType<typeof createItemEditsRepository>;
