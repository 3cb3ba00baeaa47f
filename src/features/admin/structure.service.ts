import type { Clock } from '../../shared/clock.js';
import type { Project } from '../../db/tables.js';
import { moveDirection, normalizeDeadline, optionalText, requiredName } from '../../domain/inputs.js';
import { type Actor, canOnProject } from '../../domain/policy.js';
import { MAX_TEXT_LENGTH } from '../../domain/values.js';
import { notFound } from '../../shared/errors.js';
import { invalidField } from '../../i18n/reasons.js';
import type { ProjectAccessReads, ProjectsRepository, StructureRows } from '../projects/projects.repository.js';
import type { ProjectsService, ProjectTree } from '../projects/projects.service.js';
import { authorizeProject, structureWrites } from '../write-path/structure-write.js';
import type { AuditEntryBuilder, WritePath } from '../write-path/write-path.js';
import { assertAdmin } from './admin-guard.js';
import type { StructureRepository } from './structure.repository.js';

/**
 * Structure (docs/design.md §14): projects, sections and checklists created, renamed and moved, by the project's
 * managers and by admins, from the project page and /admin alike (items: features/items/item-edits.service.ts).
 * Every change goes through the project-level write path (lock, audit record, event). Projects themselves are for
 * admins only. The API v1 never edits structure (spec §1.3); there is no deletion.
 */

/** The repositories a structural write runs its statements on, bound to its transaction. */
export interface StructureWriteRepositories {
  structure: ReturnType<StructureRepository['bind']>;
  projects: ProjectAccessReads;
}

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

interface ProjectInput {
  name: string;
  description?: string;
  deadline?: string;
}

/** What the structure service's functions are given. */
export interface StructureDeps {
  repo: StructureRepository;
  projectsRepo: ProjectsRepository;
  projects: ProjectsService;
  path: WritePath<StructureWriteRepositories>;
  clock: Clock;
}

function now(deps: StructureDeps): string {
  return deps.clock.now().toISOString();
}

/** A structural write on a project the actor may edit the structure of (features/write-path/structure-write.ts). */
function writeStructure(deps: StructureDeps) {
  return structureWrites(deps.path, deps.projects);
}

async function sectionOf(deps: StructureDeps, actor: Actor, sectionId: number) {
  const section = await deps.repo.findSection(sectionId);
  if (!section) throw notFound('The section');
  await deps.projects.access(actor, section.project_id).catch(() => {
    throw notFound('The section');
  });
  return section;
}

async function checklistOf(deps: StructureDeps, actor: Actor, checklistId: number) {
  const checklist = await deps.repo.findChecklist(checklistId);
  if (!checklist) throw notFound('The checklist');
  await deps.projects.access(actor, checklist.project_id).catch(() => {
    throw notFound('The checklist');
  });
  return checklist;
}

async function listProjects(deps: StructureDeps, actor: Actor): Promise<AdminProjectRow[]> {
  const { repo } = deps;
  assertAdmin(actor);
  return repo.listProjects();
}

/** A project with its whole structure, for the admin's project editor. */
async function getStructure(deps: StructureDeps, actor: Actor, projectId: number): Promise<ProjectStructure> {
  const { repo, projectsRepo } = deps;
  assertAdmin(actor);
  const project = await projectsRepo.findProject(projectId);
  if (!project) throw notFound('The project');
  const [{ sections, checklists }, projectItems] = await Promise.all([projectsRepo.structure([projectId]), repo.itemsOfProject(projectId)]);
  return { project, sections, checklists, items: projectItems };
}

/** What the project page offers the actor: raising items, and editing sections and checklists. */
async function rightsOn(deps: StructureDeps, actor: Actor, projectId: number): Promise<ProjectRights> {
  const { projects } = deps;
  const { project, membership } = await projects.access(actor, projectId);
  const target = { projectId, archived: project.archived === 1, membership };
  return { addItems: canOnProject(actor, 'project.items', target), structure: canOnProject(actor, 'project.structure', target) };
}

/** The project's tree, for the page that edits its sections and checklists (404, 403 as for a change). */
async function structureOf(deps: StructureDeps, actor: Actor, projectId: number): Promise<ProjectTree> {
  const { projects } = deps;
  await authorizeProject(projects, actor, projectId, 'project.structure');
  return projects.getTree(actor, projectId);
}

/** The project of a section or checklist the actor sees (404 otherwise). */
async function projectOf(deps: StructureDeps, actor: Actor, kind: 'section' | 'checklist', id: number): Promise<number> {
  return (kind === 'section' ? await sectionOf(deps, actor, id) : await checklistOf(deps, actor, id)).project_id;
}

async function createProject(deps: StructureDeps, actor: Actor, input: ProjectInput, buildAudit?: AuditEntryBuilder): Promise<number> {
  const { path } = deps;
  assertAdmin(actor);
  const values = {
    name: requiredName('name', input.name),
    description: optionalText('description', input.description, MAX_TEXT_LENGTH),
    deadline: normalizeDeadline(input.deadline),
  };
  return path.writeNew({ actor, audit: buildAudit }, async ({ structure }, emit) => {
    const at = now(deps);
    const id = await structure.insertProject({ ...values, verdict: null, archived: 0, created_at: at, updated_at: at });
    emit('structure.changed', { change: 'project_created', project: { id, ...values } }, { project_id: id });
    return id;
  });
}

async function updateProject(
  deps: StructureDeps,
  actor: Actor,
  projectId: number,
  input: ProjectInput & { archived: boolean },
  buildAudit?: AuditEntryBuilder,
) {
  const { path } = deps;
  assertAdmin(actor);
  const values = {
    name: requiredName('name', input.name),
    description: optionalText('description', input.description, MAX_TEXT_LENGTH),
    deadline: normalizeDeadline(input.deadline),
    archived: input.archived ? 1 : 0,
  };
  await path.writeProject({ projectId, actor, audit: buildAudit }, async ({ structure }, emit) => {
    const current = await structure.findProjectFields(projectId);
    const changed = (Object.keys(values) as (keyof typeof values)[]).filter((k) => values[k] !== current[k]);
    if (changed.length === 0) return;
    await structure.updateProject(projectId, { ...values, updated_at: now(deps) });
    const changes = Object.fromEntries(changed.map((k) => [k, { from: current[k], to: values[k] }]));
    emit('structure.changed', { change: 'project_updated', project: { id: projectId }, changes }, {});
  });
}

async function createSection(
  deps: StructureDeps,
  actor: Actor,
  projectId: number,
  name: string,
  buildAudit?: AuditEntryBuilder,
): Promise<number> {
  const text = requiredName('name', name);
  return writeStructure(deps)(actor, projectId, buildAudit, async ({ structure }, emit) => {
    const position = await structure.nextPosition('sections', projectId);
    const id = await structure.insertSection({ project_id: projectId, name: text, position, at: now(deps) });
    emit('structure.changed', { change: 'section_added', section: { id, name: text, position } }, { section_id: id });
    return id;
  });
}

/** `inProject`: the section must be of that project (the form's page), else 422. */
async function createChecklist(
  deps: StructureDeps,
  actor: Actor,
  sectionId: number,
  name: string,
  buildAudit?: AuditEntryBuilder,
  inProject?: number,
): Promise<number> {
  const text = requiredName('name', name);
  const section = await sectionOf(deps, actor, sectionId).catch((err: unknown) => {
    if (inProject !== undefined) throw invalidField('section', 'reason.chooseProjectSection');
    throw err;
  });
  if (inProject !== undefined && section.project_id !== inProject) throw invalidField('section', 'reason.chooseProjectSection');
  return writeStructure(deps)(actor, section.project_id, buildAudit, async ({ structure }, emit) => {
    const position = await structure.nextPosition('checklists', sectionId);
    const id = await structure.insertChecklist({
      project_id: section.project_id,
      section_id: sectionId,
      name: text,
      position,
      at: now(deps),
    });
    emit(
      'structure.changed',
      { change: 'checklist_added', checklist: { id, section_id: sectionId, name: text, position } },
      { section_id: sectionId, checklist_id: id },
    );
    return id;
  });
}

async function renameSection(deps: StructureDeps, actor: Actor, sectionId: number, name: string, buildAudit?: AuditEntryBuilder) {
  const text = requiredName('name', name);
  const section = await sectionOf(deps, actor, sectionId);
  await writeStructure(deps)(actor, section.project_id, buildAudit, async ({ structure }, emit) => {
    const current = (await structure.findSection(sectionId))!;
    if (current.name === text) return;
    await structure.rename('sections', sectionId, text, now(deps));
    emit(
      'structure.changed',
      { change: 'section_renamed', section: { id: sectionId, name: text }, from: current.name },
      { section_id: sectionId },
    );
  });
}

async function renameChecklist(deps: StructureDeps, actor: Actor, checklistId: number, name: string, buildAudit?: AuditEntryBuilder) {
  const text = requiredName('name', name);
  const checklist = await checklistOf(deps, actor, checklistId);
  await writeStructure(deps)(actor, checklist.project_id, buildAudit, async ({ structure }, emit) => {
    const current = (await structure.findChecklist(checklistId))!;
    if (current.name === text) return;
    await structure.rename('checklists', checklistId, text, now(deps));
    emit(
      'structure.changed',
      { change: 'checklist_renamed', checklist: { id: checklistId, section_id: current.section_id, name: text }, from: current.name },
      { section_id: current.section_id, checklist_id: checklistId },
    );
  });
}

async function moveSection(deps: StructureDeps, actor: Actor, sectionId: number, to: string, buildAudit?: AuditEntryBuilder) {
  const offset = moveDirection(to);
  const section = await sectionOf(deps, actor, sectionId);
  await writeStructure(deps)(actor, section.project_id, buildAudit, async ({ structure }, emit) => {
    const moved = await structure.move('sections', sectionId, offset, now(deps));
    if (moved.from === moved.to) return;
    emit('structure.changed', { change: 'section_moved', section: { id: sectionId, position: moved.to } }, { section_id: sectionId });
  });
}

async function moveChecklist(deps: StructureDeps, actor: Actor, checklistId: number, to: string, buildAudit?: AuditEntryBuilder) {
  const offset = moveDirection(to);
  const checklist = await checklistOf(deps, actor, checklistId);
  await writeStructure(deps)(actor, checklist.project_id, buildAudit, async ({ structure }, emit) => {
    const moved = await structure.move('checklists', checklistId, offset, now(deps));
    if (moved.from === moved.to) return;
    emit(
      'structure.changed',
      { change: 'checklist_moved', checklist: { id: checklistId, section_id: checklist.section_id, position: moved.to } },
      { section_id: checklist.section_id, checklist_id: checklistId },
    );
  });
}

export function createStructureService(deps: StructureDeps) {
  return {
    listProjects: listProjects.bind(null, deps),
    getStructure: getStructure.bind(null, deps),
    rightsOn: rightsOn.bind(null, deps),
    structureOf: structureOf.bind(null, deps),
    projectOf: projectOf.bind(null, deps),
    createProject: createProject.bind(null, deps),
    updateProject: updateProject.bind(null, deps),
    createSection: createSection.bind(null, deps),
    createChecklist: createChecklist.bind(null, deps),
    renameSection: renameSection.bind(null, deps),
    renameChecklist: renameChecklist.bind(null, deps),
    moveSection: moveSection.bind(null, deps),
    moveChecklist: moveChecklist.bind(null, deps),
  };
}

export type StructureService = ReturnType<typeof createStructureService>;
