import type { Insertable, Kysely, Transaction } from 'kysely';
import type { Database, ProjectsTable } from '../../db/tables.js';
import type { Priority } from '../../domain/values.js';

/** The tables whose rows are ordered by `position` inside their parent, and the parent's column. */
const ORDERED = {
  sections: 'project_id',
  checklists: 'section_id',
  items: 'checklist_id',
} as const;
type OrderedTable = keyof typeof ORDERED;

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

/**
 * Projects, sections, checklists and items as structural editing changes them. The statements of `bind` run
 * inside a structural write (features/items/item-writer.ts: lock, audit record, event).
 */
export function createStructureRepository(db: Kysely<Database>) {
  /** The reads the structural writes also make under their lock, on `executor`. */
  const reads = (executor: Kysely<Database>) => ({
    findSection(id: number) {
      return executor.selectFrom('sections').select(['id', 'project_id', 'name']).where('id', '=', id).executeTakeFirst();
    },

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
  });
  return {
    /** On the database: what a page shows, and what a write checks before it takes its lock. */
    ...reads(db),

    listProjects() {
      return db.selectFrom('projects').select(['id', 'name', 'deadline', 'verdict', 'archived']).orderBy('id').execute();
    },

    /** The project's items in the editor's order. */
    itemsOfProject(projectId: number) {
      return db
        .selectFrom('items')
        .select(['id', 'checklist_id', 'text', 'status', 'position'])
        .where('project_id', '=', projectId)
        .orderBy('position')
        .orderBy('id')
        .execute();
    },

    /** The project's members with their users, by name. */
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

    /** The statements of a structural write, bound to its transaction (features/items/write-repositories.ts). */
    bind: (trx: Transaction<Database>) => ({
      ...reads(trx),

      /** The position after the last child of `parentId`. */
      async nextPosition(table: OrderedTable, parentId: number): Promise<number> {
        const row = await trx
          .selectFrom(table as 'sections')
          .select((eb) => eb.fn.max('position').as('max'))
          .where(ORDERED[table] as 'project_id', '=', parentId)
          .executeTakeFirst();
        return row?.max === null || row?.max === undefined ? 0 : Number(row.max) + 1;
      },

      /**
       * Swaps a row with its neighbour (`offset` -1: the one before, 1: the one after), then numbers the
       * siblings 0..n-1. Moving past an end changes nothing. Returns the row's position before and after.
       */
      async move(table: OrderedTable, id: number, offset: -1 | 1, at: string) {
        const parentColumn = ORDERED[table] as 'project_id';
        const self = await trx
          .selectFrom(table as 'sections')
          .select(parentColumn)
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        const siblings = await trx
          .selectFrom(table as 'sections')
          .select(['id', 'position'])
          .where(parentColumn, '=', self[parentColumn])
          .orderBy('position')
          .orderBy('id')
          .execute();
        const index = siblings.findIndex((s) => s.id === id);
        const other = index + offset;
        if (other < 0 || other >= siblings.length) return { from: index, to: index };
        [siblings[index], siblings[other]] = [siblings[other]!, siblings[index]!];
        for (const [position, sibling] of siblings.entries()) {
          if (sibling.position === position) continue;
          await trx
            .updateTable(table as 'sections')
            .set({ position, updated_at: at })
            .where('id', '=', sibling.id)
            .execute();
        }
        return { from: index, to: other };
      },

      async insertProject(row: Insertable<ProjectsTable>): Promise<number> {
        return (await trx.insertInto('projects').values(row).returning('id').executeTakeFirstOrThrow()).id;
      },

      findProjectFields(projectId: number) {
        return trx
          .selectFrom('projects')
          .select(['name', 'description', 'deadline', 'archived'])
          .where('id', '=', projectId)
          .executeTakeFirstOrThrow();
      },

      async updateProject(
        projectId: number,
        values: { name: string; description: string; deadline: string | null; archived: number; updated_at: string },
      ): Promise<void> {
        await trx.updateTable('projects').set(values).where('id', '=', projectId).execute();
      },

      async insertSection(row: { project_id: number; name: string; position: number; at: string }): Promise<number> {
        const { at, ...values } = row;
        return (
          await trx
            .insertInto('sections')
            .values({ ...values, created_at: at, updated_at: at })
            .returning('id')
            .executeTakeFirstOrThrow()
        ).id;
      },

      async insertChecklist(row: { project_id: number; section_id: number; name: string; position: number; at: string }): Promise<number> {
        const { at, ...values } = row;
        return (
          await trx
            .insertInto('checklists')
            .values({ ...values, created_at: at, updated_at: at })
            .returning('id')
            .executeTakeFirstOrThrow()
        ).id;
      },

      /** Inserts a pending item, its `created` history entry and its participants; returns its id. */
      async insertItem(item: NewItemRow & { position: number }, participantIds: readonly number[], actorId: number, at: string) {
        const row = await trx
          .insertInto('items')
          .values({
            ...item,
            status: 'pending',
            verdict: null,
            rework_reason: null,
            rework_deadline: null,
            created_at: at,
            updated_at: at,
          })
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

      async rename(table: 'sections' | 'checklists', id: number, name: string, at: string): Promise<void> {
        await trx
          .updateTable(table as 'sections')
          .set({ name, updated_at: at })
          .where('id', '=', id)
          .execute();
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
    }),
  };
}

export type StructureRepository = ReturnType<typeof createStructureRepository>;
