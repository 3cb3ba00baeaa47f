import type { Clock } from '../../clock.js';
import { optionalText, requiredText } from '../../domain/inputs.js';
import type { Actor } from '../../domain/policy.js';
import { isCalendarDate, MAX_NAME_LENGTH, MAX_TEXT_LENGTH } from '../../domain/values.js';
import { forbidden, notFound, validationError } from '../../errors.js';
import type { ProjectsRepository } from '../projects/projects.repository.js';
import { assertAdmin } from './admin-guard.js';
import type { OrderedTable, StructureRepository } from './structure.repository.js';

/**
 * Structural editing for administrators: projects, sections, checklists, items (create, rename,
 * reorder) and item participants. The API v1 never edits structure (spec §1.3); there is no deletion.
 */
export const MAX_ITEM_TEXT_LENGTH = 1000;

export type Direction = 'up' | 'down';

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

export function createStructureService(deps: { repo: StructureRepository; projectsRepo: ProjectsRepository; clock: Clock }) {
  const { repo, projectsRepo, clock } = deps;
  const now = () => clock.now().toISOString();

  /** The project of a structural edit: must exist and not be archived (archived projects are read-only). */
  async function editableProject(projectId: number) {
    const project = await repo.findProjectState(projectId);
    if (!project) throw notFound('The project');
    if (project.archived === 1) throw forbidden('The project is archived: unarchive it before editing its structure');
    return project;
  }

  async function rowOf(table: OrderedTable, id: number) {
    const row = await repo.findPlaced(table, id);
    if (!row) throw notFound(table === 'sections' ? 'The section' : table === 'checklists' ? 'The checklist' : 'The item');
    await editableProject(row.project_id);
    return row;
  }

  /** Swaps a row with its neighbour, then numbers the siblings 0..n-1. Moving past an end changes nothing. */
  async function move(table: OrderedTable, id: number, direction: Direction) {
    if (direction !== 'up' && direction !== 'down') throw validationError('direction', 'must be up or down');
    await rowOf(table, id);
    await repo.move(table, id, direction === 'up' ? -1 : 1, now());
  }

  return {
    async listProjects(actor: Actor) {
      assertAdmin(actor);
      return repo.listProjects();
    },

    /** A project with its whole structure, for the structure editor. */
    async getStructure(actor: Actor, projectId: number) {
      assertAdmin(actor);
      const project = await projectsRepo.findProject(projectId);
      if (!project) throw notFound('The project');
      const [{ sections, checklists }, items] = await Promise.all([projectsRepo.structure([projectId]), repo.itemsOfProject(projectId)]);
      return { project, sections, checklists, items };
    },

    async createProject(actor: Actor, input: ProjectInput): Promise<number> {
      assertAdmin(actor);
      const at = now();
      return repo.insertProject({
        name: requiredText('name', input.name, MAX_NAME_LENGTH),
        description: optionalText('description', input.description, MAX_TEXT_LENGTH),
        deadline: deadlineOf(input.deadline),
        verdict: null,
        archived: 0,
        created_at: at,
        updated_at: at,
      });
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
      if (!(await repo.updateProject(projectId, values))) throw notFound('The project');
    },

    async createSection(actor: Actor, projectId: number, name: string): Promise<number> {
      assertAdmin(actor);
      const text = requiredText('name', name, MAX_NAME_LENGTH);
      await editableProject(projectId);
      const at = now();
      return repo.insertSection({ project_id: projectId, name: text, position: await repo.nextPosition('sections', projectId), at });
    },

    async createChecklist(actor: Actor, sectionId: number, name: string): Promise<number> {
      assertAdmin(actor);
      const text = requiredText('name', name, MAX_NAME_LENGTH);
      const section = await rowOf('sections', sectionId);
      return repo.insertChecklist({
        project_id: section.project_id,
        section_id: sectionId,
        name: text,
        position: await repo.nextPosition('checklists', sectionId),
        at: now(),
      });
    },

    async createItem(actor: Actor, checklistId: number, input: { text: string; description?: string }): Promise<number> {
      assertAdmin(actor);
      const text = requiredText('text', input.text, MAX_ITEM_TEXT_LENGTH);
      const description = optionalText('description', input.description, MAX_TEXT_LENGTH);
      const checklist = await rowOf('checklists', checklistId);
      const section_id = await repo.sectionOfChecklist(checklistId);
      const position = await repo.nextPosition('items', checklistId);
      return repo.insertItem(
        { project_id: checklist.project_id, section_id, checklist_id: checklistId, text, description, position },
        actor.id,
        now(),
      );
    },

    async renameSection(actor: Actor, sectionId: number, name: string) {
      assertAdmin(actor);
      const text = requiredText('name', name, MAX_NAME_LENGTH);
      await rowOf('sections', sectionId);
      await repo.rename('sections', sectionId, text, now());
    },

    async renameChecklist(actor: Actor, checklistId: number, name: string) {
      assertAdmin(actor);
      const text = requiredText('name', name, MAX_NAME_LENGTH);
      await rowOf('checklists', checklistId);
      await repo.rename('checklists', checklistId, text, now());
    },

    /** The item as the item editor shows it: text, description, participants and the project's members. */
    async getItem(actor: Actor, itemId: number) {
      assertAdmin(actor);
      const item = await repo.findItem(itemId);
      if (!item) throw notFound('The item');
      const [participantIds, members] = await Promise.all([repo.participantIds(itemId), repo.membersOfProject(item.project_id)]);
      return { item, participantIds, members };
    },

    /** Renames an item (text, description) and sets its participants (members of the project only). */
    async updateItem(actor: Actor, itemId: number, input: { text: string; description?: string; participantIds: number[] }) {
      assertAdmin(actor);
      const text = requiredText('text', input.text, MAX_ITEM_TEXT_LENGTH);
      const description = optionalText('description', input.description, MAX_TEXT_LENGTH);
      const item = await rowOf('items', itemId);
      const participantIds = [...new Set(input.participantIds)];
      if (participantIds.length && (await repo.countMembers(item.project_id, participantIds)) !== participantIds.length) {
        throw validationError('participants', 'must be members of the project');
      }
      await repo.updateItem(itemId, { text, description, updated_at: now() }, participantIds);
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
