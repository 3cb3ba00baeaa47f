import type { Clock } from '../../shared/clock.js';
import { type EscalationLadder, escalationLadder } from '../../domain/escalation.js';
import { requiredName } from '../../domain/inputs.js';
import type { Actor } from '../../domain/policy.js';
import { fieldKind, fieldOptions } from '../../domain/vocabulary.js';
import { notFound } from '../../shared/errors.js';
import { invalidField } from '../../i18n/reasons.js';
import type { ProjectAccessReads } from '../projects/projects.repository.js';
import type { ProjectsService } from '../projects/projects.service.js';
import { structureWrites } from '../write-path/structure-write.js';
import type { AuditEntryBuilder, WritePath } from '../write-path/write-path.js';
import type { CategoryRow, FieldRow, VocabularyRepository } from './vocabulary.repository.js';

/** A project's vocabulary: its categories and fields (retired ones too, flagged). */
export interface Vocabulary {
  categories: CategoryRow[];
  fields: FieldRow[];
}

/** A new field as the structure page's "Add field" gives it. */
export interface FieldInput {
  name: string;
  kind: string;
  options?: string | readonly string[];
  required?: boolean;
}

const MAX_VOCABULARY_NAME = 100;

/** The statements a vocabulary change runs, bound to its transaction. */
export interface VocabularyWriteRepositories {
  vocabulary: ReturnType<VocabularyRepository['bind']>;
  projects: ProjectAccessReads;
}

/**
 * A project's categories and custom fields (docs/design.md §21), defined by its managers and admins on the
 * structure page: each change is a structural write (the project's lock, audit record, `structure.changed`).
 * Names are unique within the project (422 `name`); renames keep every value (items point at ids); a field is
 * retired, never deleted.
 */
/** What these commands need. */
export interface VocabularyDeps {
  repo: VocabularyRepository;
  projects: ProjectsService;
  path: WritePath<VocabularyWriteRepositories>;
  clock: Clock;
}

export function createVocabularyService(deps: VocabularyDeps) {
  return {
    projectOf: projectOf.bind(null, deps),
    vocabularyOf: vocabularyOf.bind(null, deps),
    definitions: definitions.bind(null, deps),
    addCategory: addCategory.bind(null, deps),
    renameCategory: renameCategory.bind(null, deps),
    addField: addField.bind(null, deps),
    renameField: renameField.bind(null, deps),
    escalationOf: escalationOf.bind(null, deps),
    setEscalation: setEscalation.bind(null, deps),
    retireField: retireField.bind(null, deps),
  };
}

/** The structure write path (the `project.structure` check) over these deps. */
function writeStructure(deps: VocabularyDeps) {
  return structureWrites(deps.path, deps.projects);
}

/** The time of a write, as stored. */
const now = ({ clock }: VocabularyDeps) => clock.now().toISOString();

async function categoryOf(deps: VocabularyDeps, actor: Actor, id: number) {
  const { repo, projects } = deps;
  const row = await repo.findCategory(id);
  if (!row) throw notFound('The category');
  await projects.access(actor, row.project_id).catch(() => {
    throw notFound('The category');
  });
  return row;
}

async function fieldOf(deps: VocabularyDeps, actor: Actor, id: number) {
  const { repo, projects } = deps;
  const row = await repo.findField(id);
  if (!row) throw notFound('The field');
  await projects.access(actor, row.project_id).catch(() => {
    throw notFound('The field');
  });
  return row;
}

function assertUnique(rows: readonly { id: number; name: string }[], name: string, except?: number) {
  const taken = rows.some((r) => r.id !== except && r.name.toLocaleLowerCase() === name.toLocaleLowerCase());
  if (taken) throw invalidField('name', 'reason.nameTaken');
}

/** The project of a category or field the actor sees (404 otherwise). */
async function projectOf(deps: VocabularyDeps, actor: Actor, kind: 'category' | 'field', id: number): Promise<number> {
  return (kind === 'category' ? await categoryOf(deps, actor, id) : await fieldOf(deps, actor, id)).project_id;
}

/** The project's vocabulary, for anyone who sees the project (404 otherwise). */
async function vocabularyOf(deps: VocabularyDeps, actor: Actor, projectId: number): Promise<Vocabulary> {
  const { repo, projects } = deps;
  await projects.access(actor, projectId);
  const [categories, fields] = await Promise.all([repo.categories(projectId), repo.fields(projectId)]);
  return { categories, fields };
}

/** The vocabulary without an access check: for code that checked already (reports, exports). */
async function definitions(deps: VocabularyDeps, projectId: number): Promise<Vocabulary> {
  const { repo } = deps;
  const [categories, fields] = await Promise.all([repo.categories(projectId), repo.fields(projectId)]);
  return { categories, fields };
}

async function addCategory(
  deps: VocabularyDeps,
  actor: Actor,
  projectId: number,
  name: string,
  buildAudit?: AuditEntryBuilder,
): Promise<number> {
  const text = requiredName('name', name, MAX_VOCABULARY_NAME);
  return writeStructure(deps)(actor, projectId, buildAudit, async ({ vocabulary }, emit) => {
    assertUnique(await vocabulary.categories(projectId), text);
    const position = await vocabulary.nextPosition('categories', projectId);
    const id = await vocabulary.insertCategory({ project_id: projectId, name: text, position, at: now(deps) });
    emit('structure.changed', { change: 'category_added', category: { id, name: text } }, {});
    return id;
  });
}

async function renameCategory(deps: VocabularyDeps, actor: Actor, categoryId: number, name: string, buildAudit?: AuditEntryBuilder) {
  const text = requiredName('name', name, MAX_VOCABULARY_NAME);
  const { project_id: projectId } = await categoryOf(deps, actor, categoryId);
  await writeStructure(deps)(actor, projectId, buildAudit, async ({ vocabulary }, emit) => {
    const current = (await vocabulary.findCategory(categoryId))!;
    if (current.name === text) return;
    assertUnique(await vocabulary.categories(projectId), text, categoryId);
    await vocabulary.rename('categories', categoryId, text, now(deps));
    emit('structure.changed', { change: 'category_renamed', category: { id: categoryId, name: text }, from: current.name }, {});
  });
  return projectId;
}

async function addField(
  deps: VocabularyDeps,
  actor: Actor,
  projectId: number,
  input: FieldInput,
  buildAudit?: AuditEntryBuilder,
): Promise<number> {
  const name = requiredName('name', input.name, MAX_VOCABULARY_NAME);
  const kind = fieldKind(input.kind);
  const options = fieldOptions(kind, input.options);
  const required = input.required === true;
  return writeStructure(deps)(actor, projectId, buildAudit, async ({ vocabulary }, emit) => {
    assertUnique(await vocabulary.fields(projectId), name);
    const position = await vocabulary.nextPosition('custom_fields', projectId);
    const id = await vocabulary.insertField({ project_id: projectId, name, kind, options, required, position, at: now(deps) });
    emit('structure.changed', { change: 'field_added', field: { id, name, kind, options, required } }, {});
    return id;
  });
}

async function renameField(deps: VocabularyDeps, actor: Actor, fieldId: number, name: string, buildAudit?: AuditEntryBuilder) {
  const text = requiredName('name', name, MAX_VOCABULARY_NAME);
  const { project_id: projectId } = await fieldOf(deps, actor, fieldId);
  await writeStructure(deps)(actor, projectId, buildAudit, async ({ vocabulary }, emit) => {
    const current = (await vocabulary.findField(fieldId))!;
    if (current.name === text) return;
    assertUnique(await vocabulary.fields(projectId), text, fieldId);
    await vocabulary.rename('custom_fields', fieldId, text, now(deps));
    emit('structure.changed', { change: 'field_renamed', field: { id: fieldId, name: text }, from: current.name }, {});
  });
  return projectId;
}

/** The project's escalation ladder (null: off), for anyone who may change its structure. */
async function escalationOf(deps: VocabularyDeps, actor: Actor, projectId: number): Promise<EscalationLadder | null> {
  const { repo, projects } = deps;
  await projects.access(actor, projectId);
  return repo.escalation(projectId);
}

/**
 * Switches the project's escalation ladder on with its days (checked: whole numbers in range, 422 beside the
 * field) or off (null), as a structural write (the project's lock, audit, `structure.changed`).
 */
async function setEscalation(
  deps: VocabularyDeps,
  actor: Actor,
  projectId: number,
  input: { everyDays?: string | number; managersAfterDays?: string | number } | null,
  buildAudit?: AuditEntryBuilder,
): Promise<number> {
  const ladder = input === null ? null : escalationLadder(input);
  await writeStructure(deps)(actor, projectId, buildAudit, async ({ vocabulary }, emit) => {
    const current = await vocabulary.escalation(projectId);
    if (JSON.stringify(current) === JSON.stringify(ladder)) return;
    await vocabulary.setEscalation(projectId, ladder, now(deps));
    emit(
      'structure.changed',
      {
        change: 'escalation_changed',
        escalation: ladder && { every_days: ladder.everyDays, managers_after_days: ladder.managersAfterDays },
      },
      {},
    );
  });
  return projectId;
}

/** Retires a field (hidden from the forms, every value kept) or, `retired` false, brings it back. */
async function retireField(deps: VocabularyDeps, actor: Actor, fieldId: number, retired: boolean, buildAudit?: AuditEntryBuilder) {
  const { project_id: projectId } = await fieldOf(deps, actor, fieldId);
  await writeStructure(deps)(actor, projectId, buildAudit, async ({ vocabulary }, emit) => {
    const current = (await vocabulary.findField(fieldId))!;
    if ((current.retired_at !== null) === retired) return;
    await vocabulary.setRetired(fieldId, retired, now(deps));
    emit('structure.changed', { change: retired ? 'field_retired' : 'field_restored', field: { id: fieldId, name: current.name } }, {});
  });
  return projectId;
}

export type VocabularyService = ReturnType<typeof createVocabularyService>;
