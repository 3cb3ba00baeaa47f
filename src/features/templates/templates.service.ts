import type { Clock } from '../../shared/clock.js';
import { requiredName } from '../../domain/inputs.js';
import { type Actor, canOnProject } from '../../domain/policy.js';
import { parseTemplate, type TemplateBody, type TemplateChecklist } from '../../domain/template-format.js';
import { typedValue, valueText } from '../../domain/vocabulary.js';
import { notFound } from '../../shared/errors.js';
import { invalidField } from '../../i18n/reasons.js';
import { assertAdmin } from '../admin/admin-guard.js';
import type { StructureService, StructureWriteRepositories } from '../admin/structure.service.js';
import type { ItemEditsRepository } from '../items/index.js';
import type { ProjectsRepository } from '../projects/projects.repository.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { VocabularyRepository } from '../vocabulary/vocabulary.repository.js';
import type { TemplatesRepository } from './templates.repository.js';
import { structureWrites } from '../write-path/structure-write.js';
import type { AuditEntryBuilder, WritePath } from '../write-path/write-path.js';

/** The statements a template's write runs, bound to its transaction: the structure, the items it raises, the vocabulary. */
export interface TemplateWriteRepositories extends StructureWriteRepositories {
  items: ReturnType<ItemEditsRepository['bind']>;
  vocabulary: ReturnType<VocabularyRepository['bind']>;
  templates: ReturnType<TemplatesRepository['bind']>;
}

/** A template as /admin and the structure page list it: its name and the checklists it offers. */
export interface TemplateSummary {
  id: number;
  name: string;
  sections: number;
  checklists: { section: string; name: string; items: number }[];
  created_at: string;
}

/** The project's vocabulary by name inside a write, created on demand (a template's checklist brings its own). */
async function vocabularyByName(
  repos: TemplateWriteRepositories,
  projectId: number,
  body: Pick<TemplateBody, 'categories' | 'fields'>,
  at: string,
) {
  const { vocabulary } = repos;
  const categories = new Map((await vocabulary.categories(projectId)).map((c) => [c.name, c.id]));
  for (const name of body.categories) {
    if (categories.has(name)) continue;
    const position = await vocabulary.nextPosition('categories', projectId);
    categories.set(name, await vocabulary.insertCategory({ project_id: projectId, name, position, at }));
  }
  const fields = new Map((await vocabulary.fields(projectId)).map((f) => [f.name, f]));
  for (const f of body.fields) {
    if (fields.has(f.name)) continue;
    const position = await vocabulary.nextPosition('custom_fields', projectId);
    const id = await vocabulary.insertField({ project_id: projectId, ...f, position, at });
    fields.set(f.name, { id, ...f, position, retired: false });
  }
  return { categories, fields };
}

/** Inserts a template's checklist (with its items, their category and values) into a section of the project. */
async function insertChecklist(
  repos: TemplateWriteRepositories,
  p: { projectId: number; sectionId: number; checklist: TemplateChecklist; body: TemplateBody; actorId: number; at: string },
): Promise<number> {
  const { structure, items, vocabulary } = repos;
  const { categories, fields } = await vocabularyByName(repos, p.projectId, p.body, p.at);
  const position = await structure.nextPosition('checklists', p.sectionId);
  const checklistId = await structure.insertChecklist({
    project_id: p.projectId,
    section_id: p.sectionId,
    name: p.checklist.name,
    position,
    at: p.at,
  });
  for (const [index, item] of p.checklist.items.entries()) {
    const row = {
      project_id: p.projectId,
      section_id: p.sectionId,
      checklist_id: checklistId,
      text: item.text,
      description: item.description,
      priority: item.priority,
      deadline: null,
      requires_answer: item.requires_answer ? 1 : 0,
      position: index + 1,
    };
    const itemId = await items.insertItem(row, [], p.actorId, p.at);
    if (item.category !== null) await vocabulary.setCategory(itemId, categories.get(item.category) ?? null);
    for (const [name, text] of Object.entries(item.fields)) {
      const field = fields.get(name);
      if (!field) continue;
      // A field of the project with the template's name but another kind: a value that does not fit is left out.
      let value;
      try {
        value = typedValue(field, text);
      } catch {
        continue;
      }
      if (valueText(value) !== null) await vocabulary.setValue({ itemId, projectId: p.projectId, fieldId: field.id, value });
    }
  }
  return checklistId;
}

/**
 * Templates (docs/design.md §21): "Save as template" keeps a project's sections, checklists, items (text,
 * description, priority, answer required, category, fields), categories and active fields — no states, people,
 * photos or history; "New project" (admins) starts from one; "Add checklist from template" (managers) inserts one
 * of its checklists. Every change is one write (lock, audit record, event). The document is docs/cli.md's format.
 */
/** What these commands need. */
export interface TemplatesDeps {
  repo: TemplatesRepository;
  vocabularyRepo: VocabularyRepository;
  projectsRepo: ProjectsRepository;
  projects: ProjectsService;
  structure: Pick<StructureService, 'structureOf'>;
  path: WritePath<TemplateWriteRepositories>;
  clock: Clock;
}

export function createTemplatesService(deps: TemplatesDeps) {
  return {
    list: list.bind(null, deps),
    saveProject: saveProject.bind(null, deps),
    createProject: createProject.bind(null, deps),
    addChecklist: addChecklist.bind(null, deps),
    exportTemplate: exportTemplate.bind(null, deps),
    importTemplate: importTemplate.bind(null, deps),
    mayAddTo: mayAddTo.bind(null, deps),
  };
}

/** The structure write path (the `project.structure` check) over these deps. */
function writeStructure(deps: TemplatesDeps) {
  return structureWrites(deps.path, deps.projects);
}

/** The time of a write, as stored. */
const now = ({ clock }: TemplatesDeps) => clock.now().toISOString();

function summary(row: { id: number; name: string; body: string; created_at: string }): TemplateSummary {
  const body = JSON.parse(row.body) as TemplateBody;
  return {
    id: row.id,
    name: row.name,
    sections: body.sections.length,
    checklists: body.sections.flatMap((s) => s.checklists.map((c) => ({ section: s.name, name: c.name, items: c.items.length }))),
    created_at: row.created_at,
  };
}

async function bodyOf(deps: TemplatesDeps, id: number): Promise<TemplateBody> {
  const { repo } = deps;
  const row = await repo.find(id);
  if (!row) throw invalidField('template', 'reason.chooseTemplate');
  return JSON.parse(row.body) as TemplateBody;
}

/** The project's shape as a template document (what the actor may structure: the whole project). */
async function projectShape(deps: TemplatesDeps, projectId: number, name: string): Promise<TemplateBody> {
  const { repo, vocabularyRepo, projectsRepo } = deps;
  const [{ sections, checklists }, items, categories, fields] = await Promise.all([
    projectsRepo.structure([projectId]),
    repo.itemsOfProject(projectId),
    vocabularyRepo.categories(projectId),
    vocabularyRepo.fields(projectId),
  ]);
  const active = fields.filter((f) => !f.retired);
  const names = new Map(active.map((f) => [f.id, f.name]));
  const values = await vocabularyRepo.valuesOf(items.map((i) => i.id));
  const byPosition = <T extends { position: number; id: number }>(rows: T[]) =>
    [...rows].sort((a, b) => a.position - b.position || a.id - b.id);
  return {
    name,
    categories: categories.map((c) => c.name),
    fields: active.map((f) => ({ name: f.name, kind: f.kind, options: [...f.options], required: f.required })),
    sections: byPosition(sections).map((s) => ({
      name: s.name,
      checklists: byPosition(checklists.filter((c) => c.section_id === s.id)).map((c) => ({
        name: c.name,
        items: items
          .filter((i) => i.checklist_id === c.id)
          .map((i) => ({
            text: i.text,
            description: i.description,
            priority: i.priority as TemplateBody['sections'][number]['checklists'][number]['items'][number]['priority'],
            requires_answer: i.requires_answer === 1,
            category: i.category,
            fields: Object.fromEntries(
              values.filter((v) => v.item_id === i.id && names.has(v.field_id)).map((v) => [names.get(v.field_id)!, valueText(v) ?? '']),
            ),
          })),
      })),
    })),
  };
}

/** Every template (for /admin, the structure page, the project creation form). */
async function list(deps: TemplatesDeps): Promise<TemplateSummary[]> {
  const { repo } = deps;
  return (await repo.list()).map(summary);
}

/** "Save as template" (managers and admins of the project): its shape under a new name (unique: 422 `name`). */
async function saveProject(
  deps: TemplatesDeps,
  actor: Actor,
  projectId: number,
  name: string,
  buildAudit?: AuditEntryBuilder,
): Promise<number> {
  const { structure } = deps;
  const templateName = requiredName('name', name);
  await structure.structureOf(actor, projectId);
  const body = parseTemplate(await projectShape(deps, projectId, templateName));
  return writeStructure(deps)(actor, projectId, buildAudit, async ({ templates }, emit) => {
    if (await templates.findByName(templateName)) throw invalidField('name', 'reason.templateExists');
    const id = await templates.insert({ name: templateName, body: JSON.stringify(body), created_by: actor.id, at: now(deps) });
    emit('structure.changed', { change: 'template_saved', template: { id, name: templateName } }, {});
    return id;
  });
}

/** "New project" from a template (admins, /admin): the project with the template's whole shape, in one write. */
async function createProject(
  deps: TemplatesDeps,
  actor: Actor,
  input: { name: string; description?: string; deadline?: string },
  templateId: number,
  buildAudit?: AuditEntryBuilder,
): Promise<number> {
  const { path } = deps;
  assertAdmin(actor);
  const body = await bodyOf(deps, templateId);
  const name = requiredName('name', input.name);
  return path.writeNew({ actor, audit: buildAudit }, async (repos, emit) => {
    const at = now(deps);
    const projectId = await repos.structure.insertProject({
      name,
      description: input.description?.trim() ?? '',
      deadline: input.deadline?.trim() || null,
      verdict: null,
      archived: 0,
      created_at: at,
      updated_at: at,
    });
    await vocabularyByName(repos, projectId, body, at);
    for (const [index, section] of body.sections.entries()) {
      const sectionId = await repos.structure.insertSection({ project_id: projectId, name: section.name, position: index + 1, at });
      for (const checklist of section.checklists) {
        await insertChecklist(repos, { projectId, sectionId, checklist, body, actorId: actor.id, at });
      }
    }
    emit(
      'structure.changed',
      { change: 'project_created', project: { id: projectId, name }, template: { id: templateId, name: body.name } },
      { project_id: projectId },
    );
    return projectId;
  });
}

/**
 * "Add checklist from template" (managers and admins): the template's checklist `checklist` (its index in the
 * template's list of checklists) into `sectionId` of the project, with its items; categories and fields it uses
 * that the project lacks are added.
 */
async function addChecklist(
  deps: TemplatesDeps,
  actor: Actor,
  projectId: number,
  choice: { templateId: number; checklist: number; sectionId: number },
  buildAudit?: AuditEntryBuilder,
): Promise<number> {
  const body = await bodyOf(deps, choice.templateId);
  const checklist = body.sections.flatMap((s) => s.checklists)[choice.checklist];
  if (!checklist) throw invalidField('template', 'reason.chooseTemplate');
  return writeStructure(deps)(actor, projectId, buildAudit, async (repos, emit) => {
    const section = await repos.structure.findSection(choice.sectionId);
    if (!section || section.project_id !== projectId) throw invalidField('section', 'reason.chooseProjectSection');
    const at = now(deps);
    const id = await insertChecklist(repos, { projectId, sectionId: section.id, checklist, body, actorId: actor.id, at });
    emit(
      'structure.changed',
      {
        change: 'checklist_added',
        checklist: { id, section_id: section.id, name: checklist.name },
        template: { id: choice.templateId },
      },
      { section_id: section.id, checklist_id: id },
    );
    return id;
  });
}

/** The template's document (CLI `templates export`). */
async function exportTemplate(deps: TemplatesDeps, id: number): Promise<TemplateBody> {
  const { repo } = deps;
  const row = await repo.find(id);
  if (!row) throw notFound('The template');
  return JSON.parse(row.body) as TemplateBody;
}

/** A template document stored (CLI `templates import`): checked whole first; a name in use is refused. */
async function importTemplate(deps: TemplatesDeps, actor: Actor, input: unknown): Promise<number> {
  const { path } = deps;
  assertAdmin(actor);
  const body = parseTemplate(input);
  return path.writeNew({ actor }, async ({ templates }) => {
    if (await templates.findByName(body.name)) throw invalidField('name', 'reason.templateNamed', { name: body.name });
    return templates.insert({ name: body.name, body: JSON.stringify(body), created_by: null, at: now(deps) });
  });
}

/** Whether the actor may add checklists from templates to the project (the structure page's form). */
async function mayAddTo(deps: TemplatesDeps, actor: Actor, projectId: number): Promise<boolean> {
  const { projects } = deps;
  const { project, membership } = await projects.access(actor, projectId);
  return canOnProject(actor, 'project.structure', { projectId, archived: project.archived === 1, membership });
}

export type TemplatesService = ReturnType<typeof createTemplatesService>;
