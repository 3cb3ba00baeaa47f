import type { Clock } from '../../shared/clock.js';
import type { Project } from '../../db/tables.js';
import { formDeadline, normalizeDeadline, optionalText, requiredName, requiredText } from '../../domain/inputs.js';
import { type Actor, can, canOnProject } from '../../domain/policy.js';
import { MAX_TEXT_LENGTH, PRIORITIES, type Priority } from '../../domain/values.js';
import { forbidden, notFound, validationError } from '../../shared/errors.js';
import type { PreparedImages } from '../attachments/attachments.service.js';
import type { CompaniesService, CompanyView } from '../companies/companies.service.js';
import { applyCompanyChange, companyChange } from '../items/item-company.js';
import { checkedPlace, type PlaceInput, planOfPlace } from '../items/item-location.service.js';
import type { AuditEntryBuilder, EmitPlacedEvent, ItemWriter } from '../items/item-writer.js';
import type { ItemsService } from '../items/items.service.js';
import type { WriteRepositories } from '../items/write-repositories.js';
import { applyItemVocabulary, type ItemVocabularyInput, type VocabularyChanges } from '../vocabulary/item-vocabulary.js';
import type { ProjectAccessReads, ProjectsRepository, StructureRows } from '../projects/projects.repository.js';
import type { ProjectsService, ProjectTree } from '../projects/projects.service.js';
import { assertAdmin } from './admin-guard.js';
import type { ItemFields, StructureRepository } from './structure.repository.js';

/**
 * Structure (docs/design.md §14): sections, checklists and items created, renamed, moved, and items edited, by the
 * project's managers and by admins, from the project page and /admin alike. Every change goes through the
 * item write path or its project-level counterpart (lock, history, audit record, event). Projects themselves
 * are for admins only. The API v1 never edits structure (spec §1.3); there is no deletion.
 */
const MAX_ITEM_TEXT_LENGTH = 1000;

/** A project as the admin's list of projects shows it. */
export interface AdminProjectRow {
  id: number;
  name: string;
  deadline: string | null;
  verdict: string | null;
  archived: number;
}

/** A project with its whole structure, for the admin's project editor: every section, checklist and item, in order. */
export interface ProjectStructure extends StructureRows {
  project: Project;
  items: { id: number; checklist_id: number; text: string; status: string; position: number }[];
}

/** What the project page offers the actor: raising items, and editing sections and checklists. */
export interface ProjectRights {
  addItems: boolean;
  structure: boolean;
}

/** What "Add item" offers: the checklists of the tree the actor sees, and the project's members as participants. */
export interface NewItemChoices {
  tree: ProjectTree;
  members: { id: number; name: string; email: string; role: string }[];
  companies: CompanyView[];
}

interface ProjectInput {
  name: string;
  description?: string;
  deadline?: string;
}

/** A new item: text required; the rest optional. Photos come checked and converted (`attachments.prepare`). */
interface NewItemInput {
  text: string;
  description?: string;
  participantIds?: readonly number[];
  priority?: string;
  deadline?: string | null;
  requires_answer?: boolean;
  prepareImages?: () => Promise<PreparedImages>;
  /** Raised from the web form: a deadline must not have passed (the forms' rule, domain/inputs.ts); the demo backdates. */
  fromForm?: boolean;
  /** Its place on a plan of the project (docs/design.md §19, "Add item here"), set in the same write. */
  location?: PlaceInput | null;
  /** Its category and custom field values (docs/design.md §21), checked and written in the same write. */
  vocabulary?: ItemVocabularyInput;
  /** Its responsible company (docs/design.md §20); null or absent: none. */
  companyId?: number | null;
}

/** What "Edit item" changes; a field left out stays as it is. */
interface ItemEdit {
  text?: string;
  description?: string;
  participantIds?: readonly number[];
  checklistId?: number;
  /** Category and field values (docs/design.md §21); a field left out keeps its value. */
  vocabulary?: ItemVocabularyInput;
  /** The responsible company (docs/design.md §20); null: none; undefined: as it is. */
  companyId?: number | null;
}

type ItemChanges = Partial<
  Record<'text' | 'description' | 'participants' | 'checklist' | 'responsible_company', { from: unknown; to: unknown }>
> &
  VocabularyChanges;

function priorityOf(value: string | undefined): Priority {
  if (value === undefined || value === '') return 'medium';
  if (!(PRIORITIES as readonly string[]).includes(value)) throw validationError('priority', `choose one of ${PRIORITIES.join(', ')}`);
  return value as Priority;
}

const uniqueIds = (ids: readonly number[]) => [...new Set(ids)].sort((a, b) => a - b);

export function createStructureService(deps: {
  repo: StructureRepository;
  projectsRepo: ProjectsRepository;
  projects: ProjectsService;
  items: ItemsService;
  writer: ItemWriter;
  clock: Clock;
  /** The companies the item forms offer (docs/design.md §20). */
  companies: Pick<CompaniesService, 'activeCompanies'>;
}) {
  const { repo, projectsRepo, projects, items, writer, clock, companies } = deps;
  const now = () => clock.now().toISOString();
  /** A checklist's access check reads these: on the database, or under a write's lock (its repositories). */
  type ChecklistReads = { structure: Pick<StructureRepository, 'findChecklist'>; projects: ProjectAccessReads };
  const onDatabase: ChecklistReads = { structure: repo, projects: projectsRepo };

  /** 404 when the actor cannot see the project, 403 when they may not change its sections and checklists (or raise items). */
  async function authorizeProject(
    actor: Actor,
    projectId: number,
    action: 'project.structure' | 'project.items',
    reads?: ProjectAccessReads,
  ) {
    const { project, membership } = await projects.access(actor, projectId, reads);
    if (!canOnProject(actor, action, { projectId, archived: project.archived === 1, membership })) {
      throw forbidden(
        project.archived === 1
          ? 'The project is archived: unarchive it before editing its structure'
          : 'You are not allowed to change the structure of this project',
      );
    }
  }
  const authorizeStructure = (actor: Actor, projectId: number, reads?: ProjectAccessReads) =>
    authorizeProject(actor, projectId, 'project.structure', reads);

  /** 404 when the actor cannot see the checklist (or it is not in `inProject`), 403 when they may not raise items in it. */
  async function authorizeChecklist(actor: Actor, checklistId: number, reads: ChecklistReads = onDatabase, inProject?: number) {
    const checklist = await reads.structure.findChecklist(checklistId);
    if (!checklist || (inProject !== undefined && checklist.project_id !== inProject)) throw notFound('The checklist');
    const { project, membership } = await projects.access(actor, checklist.project_id, reads.projects).catch(() => {
      throw notFound('The checklist');
    });
    const target = {
      projectId: checklist.project_id,
      archived: project.archived === 1,
      membership,
      sectionId: checklist.section_id,
      checklistId,
      participantIds: [],
    };
    if (!can(actor, 'read', target)) throw notFound('The checklist');
    if (!can(actor, 'item.edit', target)) {
      throw forbidden(
        project.archived === 1 ? 'The project is archived: its items are read-only' : 'You are not allowed to add items here',
      );
    }
    return checklist;
  }

  async function checkParticipants({ structure }: WriteRepositories, projectId: number, ids: readonly number[]) {
    if (ids.length && (await structure.countMembers(projectId, ids)) !== ids.length) {
      throw validationError('participants', 'must be members of the project');
    }
  }

  /** A section or checklist change under the project's lock, with its `structure.changed` event. */
  function structureWrite<T>(
    actor: Actor,
    projectId: number,
    buildAudit: AuditEntryBuilder | undefined,
    write: (repos: WriteRepositories, emit: EmitPlacedEvent) => Promise<T>,
  ) {
    const authorize = (repos: WriteRepositories) => authorizeStructure(actor, projectId, repos.projects);
    return writer.writeProject({ projectId, actor, audit: buildAudit, authorize }, write);
  }

  async function sectionOf(actor: Actor, sectionId: number) {
    const section = await repo.findSection(sectionId);
    if (!section) throw notFound('The section');
    await projects.access(actor, section.project_id).catch(() => {
      throw notFound('The section');
    });
    return section;
  }

  async function checklistOf(actor: Actor, checklistId: number) {
    const checklist = await repo.findChecklist(checklistId);
    if (!checklist) throw notFound('The checklist');
    await projects.access(actor, checklist.project_id).catch(() => {
      throw notFound('The checklist');
    });
    return checklist;
  }

  function direction(value: string): -1 | 1 {
    if (value !== 'up' && value !== 'down') throw validationError('direction', 'must be up or down');
    return value === 'up' ? -1 : 1;
  }

  const service = {
    /** A structural write of the project (sections, checklists, its vocabulary): the project's lock, 404/403 as above. */
    writeStructure: structureWrite,

    async listProjects(actor: Actor): Promise<AdminProjectRow[]> {
      assertAdmin(actor);
      return repo.listProjects();
    },

    /** A project with its whole structure, for the admin's project editor. */
    async getStructure(actor: Actor, projectId: number): Promise<ProjectStructure> {
      assertAdmin(actor);
      const project = await projectsRepo.findProject(projectId);
      if (!project) throw notFound('The project');
      const [{ sections, checklists }, projectItems] = await Promise.all([
        projectsRepo.structure([projectId]),
        repo.itemsOfProject(projectId),
      ]);
      return { project, sections, checklists, items: projectItems };
    },

    /** What the project page offers the actor: raising items, and editing sections and checklists. */
    async rightsOn(actor: Actor, projectId: number): Promise<ProjectRights> {
      const { project, membership } = await projects.access(actor, projectId);
      const target = { projectId, archived: project.archived === 1, membership };
      return { addItems: canOnProject(actor, 'project.items', target), structure: canOnProject(actor, 'project.structure', target) };
    },

    /** The project's tree, for the page that edits its sections and checklists (404, 403 as for a change). */
    async structureOf(actor: Actor, projectId: number): Promise<ProjectTree> {
      await authorizeStructure(actor, projectId);
      return projects.getTree(actor, projectId);
    },

    /** What "Add item" offers: the checklists the actor sees and the project's members (404, 403 as for a change). */
    async newItemChoices(actor: Actor, projectId: number): Promise<NewItemChoices> {
      await authorizeProject(actor, projectId, 'project.items');
      const [tree, members, choosable] = await Promise.all([
        projects.getTree(actor, projectId),
        repo.membersOfProject(projectId),
        companies.activeCompanies(),
      ]);
      return { tree, members, companies: choosable };
    },

    /** The project of a section or checklist the actor sees (404 otherwise). */
    async projectOf(actor: Actor, kind: 'section' | 'checklist', id: number): Promise<number> {
      return (kind === 'section' ? await sectionOf(actor, id) : await checklistOf(actor, id)).project_id;
    },

    async createProject(actor: Actor, input: ProjectInput, buildAudit?: AuditEntryBuilder): Promise<number> {
      assertAdmin(actor);
      const values = {
        name: requiredName('name', input.name),
        description: optionalText('description', input.description, MAX_TEXT_LENGTH),
        deadline: normalizeDeadline(input.deadline),
      };
      return writer.writeNew({ actor, audit: buildAudit }, async ({ structure }, emit) => {
        const at = now();
        const id = await structure.insertProject({ ...values, verdict: null, archived: 0, created_at: at, updated_at: at });
        emit('structure.changed', { change: 'project_created', project: { id, ...values } }, { project_id: id });
        return id;
      });
    },

    async updateProject(actor: Actor, projectId: number, input: ProjectInput & { archived: boolean }, buildAudit?: AuditEntryBuilder) {
      assertAdmin(actor);
      const values = {
        name: requiredName('name', input.name),
        description: optionalText('description', input.description, MAX_TEXT_LENGTH),
        deadline: normalizeDeadline(input.deadline),
        archived: input.archived ? 1 : 0,
      };
      await writer.writeProject({ projectId, actor, audit: buildAudit }, async ({ structure }, emit) => {
        const current = await structure.findProjectFields(projectId);
        const changed = (Object.keys(values) as (keyof typeof values)[]).filter((k) => values[k] !== current[k]);
        if (changed.length === 0) return;
        await structure.updateProject(projectId, { ...values, updated_at: now() });
        const changes = Object.fromEntries(changed.map((k) => [k, { from: current[k], to: values[k] }]));
        emit('structure.changed', { change: 'project_updated', project: { id: projectId }, changes }, {});
      });
    },

    async createSection(actor: Actor, projectId: number, name: string, buildAudit?: AuditEntryBuilder): Promise<number> {
      const text = requiredName('name', name);
      return structureWrite(actor, projectId, buildAudit, async ({ structure }, emit) => {
        const position = await structure.nextPosition('sections', projectId);
        const id = await structure.insertSection({ project_id: projectId, name: text, position, at: now() });
        emit('structure.changed', { change: 'section_added', section: { id, name: text, position } }, { section_id: id });
        return id;
      });
    },

    /** `inProject`: the section must be of that project (the form's page), else 422. */
    async createChecklist(
      actor: Actor,
      sectionId: number,
      name: string,
      buildAudit?: AuditEntryBuilder,
      inProject?: number,
    ): Promise<number> {
      const text = requiredName('name', name);
      const section = await sectionOf(actor, sectionId).catch((err: unknown) => {
        if (inProject !== undefined) throw validationError('section', 'choose a section of this project');
        throw err;
      });
      if (inProject !== undefined && section.project_id !== inProject) throw validationError('section', 'choose a section of this project');
      return structureWrite(actor, section.project_id, buildAudit, async ({ structure }, emit) => {
        const position = await structure.nextPosition('checklists', sectionId);
        const id = await structure.insertChecklist({
          project_id: section.project_id,
          section_id: sectionId,
          name: text,
          position,
          at: now(),
        });
        emit(
          'structure.changed',
          { change: 'checklist_added', checklist: { id, section_id: sectionId, name: text, position } },
          { section_id: sectionId, checklist_id: id },
        );
        return id;
      });
    },

    async renameSection(actor: Actor, sectionId: number, name: string, buildAudit?: AuditEntryBuilder) {
      const text = requiredName('name', name);
      const section = await sectionOf(actor, sectionId);
      await structureWrite(actor, section.project_id, buildAudit, async ({ structure }, emit) => {
        const current = (await structure.findSection(sectionId))!;
        if (current.name === text) return;
        await structure.rename('sections', sectionId, text, now());
        emit(
          'structure.changed',
          { change: 'section_renamed', section: { id: sectionId, name: text }, from: current.name },
          { section_id: sectionId },
        );
      });
    },

    async renameChecklist(actor: Actor, checklistId: number, name: string, buildAudit?: AuditEntryBuilder) {
      const text = requiredName('name', name);
      const checklist = await checklistOf(actor, checklistId);
      await structureWrite(actor, checklist.project_id, buildAudit, async ({ structure }, emit) => {
        const current = (await structure.findChecklist(checklistId))!;
        if (current.name === text) return;
        await structure.rename('checklists', checklistId, text, now());
        emit(
          'structure.changed',
          { change: 'checklist_renamed', checklist: { id: checklistId, section_id: current.section_id, name: text }, from: current.name },
          { section_id: current.section_id, checklist_id: checklistId },
        );
      });
    },

    async moveSection(actor: Actor, sectionId: number, to: string, buildAudit?: AuditEntryBuilder) {
      const offset = direction(to);
      const section = await sectionOf(actor, sectionId);
      await structureWrite(actor, section.project_id, buildAudit, async ({ structure }, emit) => {
        const moved = await structure.move('sections', sectionId, offset, now());
        if (moved.from === moved.to) return;
        emit('structure.changed', { change: 'section_moved', section: { id: sectionId, position: moved.to } }, { section_id: sectionId });
      });
    },

    async moveChecklist(actor: Actor, checklistId: number, to: string, buildAudit?: AuditEntryBuilder) {
      const offset = direction(to);
      const checklist = await checklistOf(actor, checklistId);
      await structureWrite(actor, checklist.project_id, buildAudit, async ({ structure }, emit) => {
        const moved = await structure.move('checklists', checklistId, offset, now());
        if (moved.from === moved.to) return;
        emit(
          'structure.changed',
          { change: 'checklist_moved', checklist: { id: checklistId, section_id: checklist.section_id, position: moved.to } },
          { section_id: checklist.section_id, checklist_id: checklistId },
        );
      });
    },

    /**
     * Raises an item (docs/design.md §14): text, planning, participants (members of the project) and photos in one
     * all-or-nothing write under the project's lock; the item starts with its `created` history entry and
     * its `item.created` event holds the item as items/get shows it. Returns the new item's id.
     */
    async createItem(
      actor: Actor,
      checklistId: number,
      input: NewItemInput,
      buildAudit?: AuditEntryBuilder,
      /** The project of the form's page: a checklist elsewhere (or unseen) is a 422 on `checklist`. */
      inProject?: number,
    ): Promise<number> {
      const text = requiredText('text', input.text, MAX_ITEM_TEXT_LENGTH);
      const description = optionalText('description', input.description, MAX_TEXT_LENGTH);
      const priority = priorityOf(input.priority);
      const deadline = input.fromForm ? formDeadline(input.deadline, { now: clock.now() }) : normalizeDeadline(input.deadline);
      const participantIds = uniqueIds(input.participantIds ?? []);
      const place = input.location ? checkedPlace(input.location) : null;
      if (inProject !== undefined) await authorizeProject(actor, inProject, 'project.items');
      const checklist = await authorizeChecklist(actor, checklistId, undefined, inProject).catch((err: unknown) => {
        if (inProject !== undefined && (err as { status?: number }).status === 404) {
          throw validationError('checklist', 'choose a checklist of this project');
        }
        throw err;
      });
      // Image content is checked after the right (the check order of uploads), before anything is written.
      const images = await input.prepareImages?.();
      const authorize = (repos: WriteRepositories) => authorizeChecklist(actor, checklistId, repos);
      const request = { projectId: checklist.project_id, actor, audit: buildAudit, authorize };
      const write = writer.writeProject(request, async (repos, emit) => {
        await checkParticipants(repos, checklist.project_id, participantIds);
        if (place) await planOfPlace(repos, place, checklist.project_id);
        const company = input.companyId != null ? await repos.items.choosableCompany(input.companyId) : null;
        if (input.companyId != null && !company) throw validationError('company', 'choose one of the companies');
        const at = now();
        const row = {
          project_id: checklist.project_id,
          section_id: checklist.section_id,
          checklist_id: checklistId,
          text,
          description,
          priority,
          deadline,
          requires_answer: input.requires_answer ? 1 : 0,
          position: await repos.structure.nextPosition('items', checklistId),
          ...(place ? { plan_id: place.planId, plan_x: place.x, plan_y: place.y } : {}),
          ...(company ? { responsible_company_id: company.id } : {}),
        };
        const id = await repos.structure.insertItem(row, participantIds, actor.id, at);
        await applyItemVocabulary(repos, { projectId: checklist.project_id, itemId: id, input: input.vocabulary ?? {}, creating: true });
        if (images) await images.insert(repos, { itemId: id, answerId: null, actorId: actor.id }, at);
        const { item } = await items.getItemCard(actor, id, repos);
        emit('item.created', { item }, { section_id: checklist.section_id, checklist_id: checklistId, item_id: id });
        return id;
      });
      return write.catch(async (err: unknown) => {
        await images?.discard();
        throw err;
      });
    },

    /** The item as "Edit item" shows it: its fields, participants, the project's members and checklists. */
    async getItemForEdit(actor: Actor, itemId: number) {
      const access = await items.authorize(actor, itemId, 'item.edit');
      const members = await repo.membersOfProject(access.item.project_id);
      return { item: access.item, participantIds: access.participants.map((p) => p.id), members };
    },

    /**
     * "Edit item": text, description, participants (members of the project only), and a move to another
     * checklist of the project that the actor sees. One write under the item's lock; its `item.updated`
     * event lists each changed field `{from, to}`. Nothing changed: no event, `changed: false`.
     */
    async updateItem(actor: Actor, itemId: number, input: ItemEdit, buildAudit?: AuditEntryBuilder) {
      const next: Partial<{ text: string; description: string; participants: number[] }> = {};
      if (input.text !== undefined) next.text = requiredText('text', input.text, MAX_ITEM_TEXT_LENGTH);
      if (input.description !== undefined) next.description = optionalText('description', input.description, MAX_TEXT_LENGTH);
      if (input.participantIds !== undefined) next.participants = uniqueIds(input.participantIds);
      if (
        Object.keys(next).length === 0 &&
        input.checklistId === undefined &&
        input.vocabulary === undefined &&
        input.companyId === undefined
      ) {
        throw validationError('body', 'give at least one of text, description, participants, checklist, company');
      }
      return writer.write({ itemId, actor, action: 'item.edit', audit: buildAudit }, async (repos, emit) => {
        const { structure } = repos;
        const current = await structure.itemFields(itemId);
        const changes: ItemChanges = {};
        const values: Partial<ItemFields> & { position?: number } = {};
        for (const field of ['text', 'description'] as const) {
          if (next[field] !== undefined && next[field] !== current[field]) {
            changes[field] = { from: current[field], to: next[field] };
            values[field] = next[field];
          }
        }
        if (next.participants) {
          const before = await structure.participantIds(itemId);
          if (before.join() !== next.participants.join()) {
            await checkParticipants(repos, current.project_id, next.participants);
            changes.participants = { from: before, to: next.participants };
          }
        }
        if (input.checklistId !== undefined && input.checklistId !== current.checklist_id) {
          const target = await authorizeChecklist(actor, input.checklistId, repos).catch(() => null);
          if (!target || target.project_id !== current.project_id) throw validationError('checklist', 'choose a checklist of this project');
          changes.checklist = { from: current.checklist_id, to: target.id };
          Object.assign(values, {
            section_id: target.section_id,
            checklist_id: target.id,
            position: await structure.nextPosition('items', target.id),
          });
        }
        if (input.vocabulary) {
          const input_ = { projectId: current.project_id, itemId, input: input.vocabulary, creating: false };
          Object.assign(changes, await applyItemVocabulary(repos, input_));
        }
        const company = input.companyId === undefined ? null : await companyChange(repos, itemId, input.companyId);
        if (company) changes.responsible_company = company;
        if (Object.keys(changes).length === 0) return { item: { id: itemId }, changed: false };
        const at = now();
        await structure.updateItem(itemId, { ...values, updated_at: at });
        if (changes.participants) await structure.replaceParticipants(itemId, next.participants!);
        if (company) await applyCompanyChange(repos, itemId, company, actor.id, at);
        emit('item.updated', { changes });
        return { item: { id: itemId }, changed: true };
      });
    },

    /** Moves an item up or down within its checklist. */
    async moveItem(actor: Actor, itemId: number, to: string, buildAudit?: AuditEntryBuilder) {
      const offset = direction(to);
      await writer.write({ itemId, actor, action: 'item.edit', audit: buildAudit }, async ({ structure }, emit) => {
        const moved = await structure.move('items', itemId, offset, now());
        if (moved.from !== moved.to) emit('item.updated', { changes: { position: moved } });
      });
    },
  };
  return service;
}

export type StructureService = ReturnType<typeof createStructureService>;
