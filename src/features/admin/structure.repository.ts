import type { Insertable, Kysely } from 'kysely';
import type { Database, ProjectsTable } from '../../db/tables.js';

/** The tables whose rows are ordered by `position` inside their parent, and the parent's column. */
export const ORDERED = {
  sections: 'project_id',
  checklists: 'section_id',
  items: 'checklist_id',
} as const;
export type OrderedTable = keyof typeof ORDERED;

/** A new item as the structure editor creates it: pending, medium, nothing else set. */
export interface NewPlainItem {
  project_id: number;
  section_id: number;
  checklist_id: number;
  text: string;
  description: string;
  position: number;
}

/** Projects, sections, checklists and items as structural editing changes them. */
export function createStructureRepository(db: Kysely<Database>) {
  return {
    findProjectState(projectId: number) {
      return db.selectFrom('projects').select(['id', 'archived']).where('id', '=', projectId).executeTakeFirst();
    },

    /** A section, checklist or item with its project. */
    findPlaced(table: OrderedTable, id: number) {
      return db
        .selectFrom(table as 'sections')
        .select(['id', 'project_id'])
        .where('id', '=', id)
        .executeTakeFirst();
    },

    /** The position after the last child of `parentId`. */
    async nextPosition(table: OrderedTable, parentId: number): Promise<number> {
      const row = await db
        .selectFrom(table as 'sections')
        .select((eb) => eb.fn.max('position').as('max'))
        .where(ORDERED[table] as 'project_id', '=', parentId)
        .executeTakeFirst();
      return row?.max === null || row?.max === undefined ? 0 : Number(row.max) + 1;
    },

    /**
     * Swaps a row with its neighbour (`offset` -1: the one before, 1: the one after), then numbers the
     * siblings 0..n-1, in one transaction. Moving past an end changes nothing.
     */
    async move(table: OrderedTable, id: number, offset: -1 | 1, at: string): Promise<void> {
      const parentColumn = ORDERED[table] as 'project_id';
      await db.transaction().execute(async (trx) => {
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
        if (other < 0 || other >= siblings.length) return;
        [siblings[index], siblings[other]] = [siblings[other]!, siblings[index]!];
        for (const [position, sibling] of siblings.entries()) {
          if (sibling.position === position) continue;
          await trx
            .updateTable(table as 'sections')
            .set({ position, updated_at: at })
            .where('id', '=', sibling.id)
            .execute();
        }
      });
    },

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

    async insertProject(row: Insertable<ProjectsTable>): Promise<number> {
      return (await db.insertInto('projects').values(row).returning('id').executeTakeFirstOrThrow()).id;
    },

    /** False when there is no such project. */
    async updateProject(
      projectId: number,
      values: { name: string; description: string; deadline: string | null; archived: number; updated_at: string },
    ): Promise<boolean> {
      const result = await db.updateTable('projects').set(values).where('id', '=', projectId).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async insertSection(row: { project_id: number; name: string; position: number; at: string }): Promise<number> {
      const { at, ...values } = row;
      return (
        await db
          .insertInto('sections')
          .values({ ...values, created_at: at, updated_at: at })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    },

    async insertChecklist(row: { project_id: number; section_id: number; name: string; position: number; at: string }): Promise<number> {
      const { at, ...values } = row;
      return (
        await db
          .insertInto('checklists')
          .values({ ...values, created_at: at, updated_at: at })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    },

    async sectionOfChecklist(checklistId: number): Promise<number> {
      return (await db.selectFrom('checklists').select('section_id').where('id', '=', checklistId).executeTakeFirstOrThrow()).section_id;
    },

    /** Inserts a pending item and its `created` history entry in one transaction; returns its id. */
    insertItem(item: NewPlainItem, actorId: number, at: string): Promise<number> {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .insertInto('items')
          .values({
            ...item,
            status: 'pending',
            priority: 'medium',
            deadline: null,
            requires_answer: 0,
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
        return row.id;
      });
    },

    async rename(table: 'sections' | 'checklists', id: number, name: string, at: string): Promise<void> {
      await db
        .updateTable(table as 'sections')
        .set({ name, updated_at: at })
        .where('id', '=', id)
        .execute();
    },

    findItem(itemId: number) {
      return db.selectFrom('items').select(['id', 'project_id', 'text', 'description']).where('id', '=', itemId).executeTakeFirst();
    },

    async participantIds(itemId: number): Promise<number[]> {
      return (await db.selectFrom('item_participants').select('user_id').where('item_id', '=', itemId).execute()).map((p) => p.user_id);
    },

    /** The project's members with their users, by name. */
    membersOfProject(projectId: number) {
      return db
        .selectFrom('project_members as m')
        .innerJoin('users as u', 'u.id', 'm.user_id')
        .select(['u.id', 'u.name', 'u.email', 'm.role'])
        .where('m.project_id', '=', projectId)
        .orderBy('u.name')
        .execute();
    },

    /** How many of `userIds` are members of the project. */
    async countMembers(projectId: number, userIds: readonly number[]): Promise<number> {
      const rows = await db
        .selectFrom('project_members')
        .select('user_id')
        .where('project_id', '=', projectId)
        .where('user_id', 'in', [...userIds])
        .execute();
      return rows.length;
    },

    /** The item's text and description, and its participants replaced, in one transaction. */
    async updateItem(
      itemId: number,
      values: { text: string; description: string; updated_at: string },
      participantIds: readonly number[],
    ): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('items').set(values).where('id', '=', itemId).execute();
        await trx.deleteFrom('item_participants').where('item_id', '=', itemId).execute();
        if (participantIds.length) {
          await trx
            .insertInto('item_participants')
            .values(participantIds.map((user_id) => ({ item_id: itemId, user_id })))
            .execute();
        }
      });
    },
  };
}

export type StructureRepository = ReturnType<typeof createStructureRepository>;
