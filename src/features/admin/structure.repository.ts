import type { Insertable, Kysely, Transaction } from 'kysely';
import type { Database, ProjectsTable } from '../../db/tables.js';
import { moveAmongSiblings, nextPosition } from '../../db/positions.js';

/** The reads the structural writes also make under their lock, on `executor`. */
function structureReads(executor: Kysely<Database>) {
  return {
    findSection(id: number) {
      return executor.selectFrom('sections').select(['id', 'project_id', 'name']).where('id', '=', id).executeTakeFirst();
    },

    findChecklist(id: number) {
      return executor.selectFrom('checklists').select(['id', 'project_id', 'section_id', 'name']).where('id', '=', id).executeTakeFirst();
    },
  };
}

/** What only a page reads. */
function pageReads(db: Kysely<Database>) {
  return {
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
  };
}

/** Projects and the positions of sections and checklists, in a structural write's transaction. */
function projectWrites(trx: Transaction<Database>) {
  return {
    /** The position after the last section of a project, or the last checklist of a section. */
    nextPosition: (table: 'sections' | 'checklists', parentId: number) => nextPosition(trx, table, parentId),

    /** Moves a section or checklist up (-1) or down (1) among its siblings. */
    move: (table: 'sections' | 'checklists', id: number, offset: -1 | 1, at: string) => moveAmongSiblings(trx, table, id, offset, at),

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
  };
}

/** Sections and checklists, in a structural write's transaction. */
function sectionWrites(trx: Transaction<Database>) {
  return {
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

    async rename(table: 'sections' | 'checklists', id: number, name: string, at: string): Promise<void> {
      await trx
        .updateTable(table as 'sections')
        .set({ name, updated_at: at })
        .where('id', '=', id)
        .execute();
    },
  };
}

/**
 * Projects, sections and checklists as structural editing changes them (items: features/items/item-edits.repository.ts).
 * The statements of `bind` run inside a structural write (features/write-path/: lock, audit record, event).
 */
export function createStructureRepository(db: Kysely<Database>) {
  return {
    /** On the database: what a page shows, and what a write checks before it takes its lock. */
    ...structureReads(db),
    ...pageReads(db),

    /** The statements of a structural write, bound to its transaction (features/write-path/). */
    bind: (trx: Transaction<Database>) => ({ ...structureReads(trx), ...projectWrites(trx), ...sectionWrites(trx) }),
  };
}

export type StructureRepository = ReturnType<typeof createStructureRepository>;
