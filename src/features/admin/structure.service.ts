import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/tables.js';
import type { Actor } from '../../domain/policy.js';
import { isCalendarDate, MAX_TEXT_LENGTH } from '../../domain/values.js';
import { forbidden, notFound, validationError } from '../../errors.js';
import { assertAdmin, optionalText, requiredText } from './admin-guard.js';

/**
 * Structural editing for administrators: projects, sections, checklists, items (create, rename,
 * reorder) and item participants. The API v1 never edits structure (spec §1.3); there is no deletion.
 */
export const MAX_NAME_LENGTH = 200;
export const MAX_ITEM_TEXT_LENGTH = 1000;

export type Direction = 'up' | 'down';

/** The tables whose rows are ordered by `position` inside their parent. */
const ORDERED = {
  sections: 'project_id',
  checklists: 'section_id',
  items: 'checklist_id',
} as const;
type OrderedTable = keyof typeof ORDERED;

export interface ProjectInput {
  name: string;
  description?: string;
  deadline?: string;
}

function deadlineOf(value: string | undefined): string | null {
  const deadline = (value ?? '').trim();
  if (!deadline) return null;
  if (!isCalendarDate(deadline)) throw validationError('deadline', 'must be a date written YYYY-MM-DD');
  return deadline;
}

export function createStructureService(deps: { db: Kysely<Database>; clock: Clock }) {
  const { db, clock } = deps;
  const now = () => clock.now().toISOString();

  /** The project of a structural edit: must exist and not be archived (archived projects are read-only). */
  async function editableProject(projectId: number) {
    const project = await db.selectFrom('projects').select(['id', 'archived']).where('id', '=', projectId).executeTakeFirst();
    if (!project) throw notFound('The project');
    if (project.archived === 1) throw forbidden('The project is archived: unarchive it before editing its structure');
    return project;
  }

  async function rowOf(table: OrderedTable, id: number) {
    const row = await db
      .selectFrom(table as 'sections')
      .select(['id', 'project_id'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) throw notFound(table === 'sections' ? 'The section' : table === 'checklists' ? 'The checklist' : 'The item');
    await editableProject(row.project_id);
    return row;
  }

  async function nextPosition(table: OrderedTable, parentId: number): Promise<number> {
    const row = await db
      .selectFrom(table as 'sections')
      .select((eb) => eb.fn.max('position').as('max'))
      .where(ORDERED[table] as 'project_id', '=', parentId)
      .executeTakeFirst();
    return row?.max === null || row?.max === undefined ? 0 : Number(row.max) + 1;
  }

  /** Swaps a row with its neighbour, then numbers the siblings 0..n-1. Moving past an end changes nothing. */
  async function move(table: OrderedTable, id: number, direction: Direction) {
    if (direction !== 'up' && direction !== 'down') throw validationError('direction', 'must be up or down');
    await rowOf(table, id);
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
      const other = direction === 'up' ? index - 1 : index + 1;
      if (other < 0 || other >= siblings.length) return;
      [siblings[index], siblings[other]] = [siblings[other]!, siblings[index]!];
      const at = now();
      for (const [position, sibling] of siblings.entries()) {
        if (sibling.position === position) continue;
        await trx
          .updateTable(table as 'sections')
          .set({ position, updated_at: at })
          .where('id', '=', sibling.id)
          .execute();
      }
    });
  }

  return {
    async listProjects(actor: Actor) {
      assertAdmin(actor);
      return db.selectFrom('projects').select(['id', 'name', 'deadline', 'verdict', 'archived']).orderBy('id').execute();
    },

    /** A project with its whole structure, for the structure editor. */
    async getStructure(actor: Actor, projectId: number) {
      assertAdmin(actor);
      const project = await db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirst();
      if (!project) throw notFound('The project');
      const [sections, checklists, items] = await Promise.all([
        db.selectFrom('sections').select(['id', 'name', 'position']).where('project_id', '=', projectId).orderBy('position').orderBy('id').execute(),
        db
          .selectFrom('checklists')
          .select(['id', 'section_id', 'name', 'position'])
          .where('project_id', '=', projectId)
          .orderBy('position')
          .orderBy('id')
          .execute(),
        db
          .selectFrom('items')
          .select(['id', 'checklist_id', 'text', 'status', 'position'])
          .where('project_id', '=', projectId)
          .orderBy('position')
          .orderBy('id')
          .execute(),
      ]);
      return { project, sections, checklists, items };
    },

    async createProject(actor: Actor, input: ProjectInput): Promise<number> {
      assertAdmin(actor);
      const at = now();
      const row = await db
        .insertInto('projects')
        .values({
          name: requiredText('name', input.name, MAX_NAME_LENGTH),
          description: optionalText('description', input.description, MAX_TEXT_LENGTH),
          deadline: deadlineOf(input.deadline),
          verdict: null,
          archived: 0,
          created_at: at,
          updated_at: at,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },

    async updateProject(actor: Actor, projectId: number, input: ProjectInput & { archived: boolean }) {
      assertAdmin(actor);
      const values = {
        name: requiredText('name', input.name, MAX_NAME_LENGTH),
        description: optionalText('description', input.description, MAX_TEXT_LENGTH),
        deadline: deadlineOf(input.deadline),
        archived: input.archived ? 1 : 0,
        updated_at: now(),
      };
      const result = await db.updateTable('projects').set(values).where('id', '=', projectId).executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) throw notFound('The project');
    },

    async createSection(actor: Actor, projectId: number, name: string): Promise<number> {
      assertAdmin(actor);
      const text = requiredText('name', name, MAX_NAME_LENGTH);
      await editableProject(projectId);
      const at = now();
      const row = await db
        .insertInto('sections')
        .values({ project_id: projectId, name: text, position: await nextPosition('sections', projectId), created_at: at, updated_at: at })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },

    async createChecklist(actor: Actor, sectionId: number, name: string): Promise<number> {
      assertAdmin(actor);
      const text = requiredText('name', name, MAX_NAME_LENGTH);
      const section = await rowOf('sections', sectionId);
      const at = now();
      const row = await db
        .insertInto('checklists')
        .values({
          project_id: section.project_id,
          section_id: sectionId,
          name: text,
          position: await nextPosition('checklists', sectionId),
          created_at: at,
          updated_at: at,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },

    async createItem(actor: Actor, checklistId: number, input: { text: string; description?: string }): Promise<number> {
      assertAdmin(actor);
      const text = requiredText('text', input.text, MAX_ITEM_TEXT_LENGTH);
      const description = optionalText('description', input.description, MAX_TEXT_LENGTH);
      const checklist = await rowOf('checklists', checklistId);
      const { section_id } = await db.selectFrom('checklists').select('section_id').where('id', '=', checklistId).executeTakeFirstOrThrow();
      const position = await nextPosition('items', checklistId);
      const at = now();
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .insertInto('items')
          .values({
            project_id: checklist.project_id,
            section_id,
            checklist_id: checklistId,
            text,
            description,
            status: 'pending',
            priority: 'medium',
            deadline: null,
            requires_answer: 0,
            verdict: null,
            rework_reason: null,
            rework_deadline: null,
            position,
            created_at: at,
            updated_at: at,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        await trx
          .insertInto('item_history')
          .values({ item_id: row.id, kind: 'created', from_status: null, to_status: 'pending', user_id: actor.id, note: null, at })
          .execute();
        return row.id;
      });
    },

    async renameSection(actor: Actor, sectionId: number, name: string) {
      assertAdmin(actor);
      const text = requiredText('name', name, MAX_NAME_LENGTH);
      await rowOf('sections', sectionId);
      await db.updateTable('sections').set({ name: text, updated_at: now() }).where('id', '=', sectionId).execute();
    },

    async renameChecklist(actor: Actor, checklistId: number, name: string) {
      assertAdmin(actor);
      const text = requiredText('name', name, MAX_NAME_LENGTH);
      await rowOf('checklists', checklistId);
      await db.updateTable('checklists').set({ name: text, updated_at: now() }).where('id', '=', checklistId).execute();
    },

    /** The item as the item editor shows it: text, description, participants and the project's members. */
    async getItem(actor: Actor, itemId: number) {
      assertAdmin(actor);
      const item = await db.selectFrom('items').select(['id', 'project_id', 'text', 'description']).where('id', '=', itemId).executeTakeFirst();
      if (!item) throw notFound('The item');
      const [participants, members] = await Promise.all([
        db.selectFrom('item_participants').select('user_id').where('item_id', '=', itemId).execute(),
        db
          .selectFrom('project_members as m')
          .innerJoin('users as u', 'u.id', 'm.user_id')
          .select(['u.id', 'u.name', 'u.email', 'm.role'])
          .where('m.project_id', '=', item.project_id)
          .orderBy('u.name')
          .execute(),
      ]);
      return { item, participantIds: participants.map((p) => p.user_id), members };
    },

    /** Renames an item (text, description) and sets its participants (members of the project only). */
    async updateItem(actor: Actor, itemId: number, input: { text: string; description?: string; participantIds: number[] }) {
      assertAdmin(actor);
      const text = requiredText('text', input.text, MAX_ITEM_TEXT_LENGTH);
      const description = optionalText('description', input.description, MAX_TEXT_LENGTH);
      const item = await rowOf('items', itemId);
      const participantIds = [...new Set(input.participantIds)];
      if (participantIds.length) {
        const members = await db
          .selectFrom('project_members')
          .select('user_id')
          .where('project_id', '=', item.project_id)
          .where('user_id', 'in', participantIds)
          .execute();
        if (members.length !== participantIds.length) throw validationError('participants', 'must be members of the project');
      }
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('items').set({ text, description, updated_at: now() }).where('id', '=', itemId).execute();
        await trx.deleteFrom('item_participants').where('item_id', '=', itemId).execute();
        if (participantIds.length) {
          await trx
            .insertInto('item_participants')
            .values(participantIds.map((user_id) => ({ item_id: itemId, user_id })))
            .execute();
        }
      });
    },

    async moveSection(actor: Actor, sectionId: number, direction: Direction) {
      assertAdmin(actor);
      await move('sections', sectionId, direction);
    },

    async moveChecklist(actor: Actor, checklistId: number, direction: Direction) {
      assertAdmin(actor);
      await move('checklists', checklistId, direction);
    },

    async moveItem(actor: Actor, itemId: number, direction: Direction) {
      assertAdmin(actor);
      await move('items', itemId, direction);
    },
  };
}

export type StructureService = ReturnType<typeof createStructureService>;
