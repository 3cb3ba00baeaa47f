import type { Clock } from '../../shared/clock.js';
import { formDeadline, moveDirection, normalizeDeadline, optionalText, requiredText } from '../../domain/inputs.js';
import { type Actor, can } from '../../domain/policy.js';
import { MAX_TEXT_LENGTH, PRIORITIES, type Priority } from '../../domain/values.js';
import { forbidden, notFound } from '../../shared/errors.js';
import { invalidField } from '../../i18n/reasons.js';
import type { ProjectAccessReads } from '../projects/projects.repository.js';
import type { ProjectsService, ProjectTree } from '../projects/projects.service.js';
import { authorizeProject } from '../write-path/structure-write.js';
import type { AuditEntryBuilder } from '../write-path/write-path.js';
import type { PreparedImages } from './attachments/attachments.service.js';
import { applyCompanyChange, companyChange } from './item-company.js';
import type { ItemEditsRepository, ItemFields } from './item-edits.repository.js';
import { checkedPlace, type PlaceInput, planOfPlace } from './item-location.service.js';
import { applyItemVocabulary, type ItemVocabularyInput, type VocabularyChanges } from './item-vocabulary.js';
import type { ItemWriter } from './item-writer.js';
import type { ItemsService } from './items.service.js';
import type { WriteRepositories } from './write-repositories.js';

/**
 * Raising, editing and moving items (docs/design.md §14), by the project's managers and by admins, from the project
 * page and /admin alike: raising is a project-level write (the project's lock: positions in a checklist), editing
 * and moving are item writes (the item's lock). The API v1 never edits structure (spec §1.3); there is no deletion.
 */
const MAX_ITEM_TEXT_LENGTH = 1000;

/** What "Add item" offers: the checklists of the tree the actor sees, and the project's members as participants. */
export interface NewItemChoices {
  tree: ProjectTree;
  members: { id: number; name: string; email: string; role: string }[];
  companies: { id: number; name: string; trade: string; retired: boolean }[];
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
  if (!(PRIORITIES as readonly string[]).includes(value))
    throw invalidField('priority', 'reason.chooseOneOf', { values: PRIORITIES.join(', ') });
  return value as Priority;
}

const uniqueIds = (ids: readonly number[]) => [...new Set(ids)].sort((a, b) => a - b);

/** What raising, editing and moving items need. */
export interface ItemEditsDeps {
  repo: ItemEditsRepository;
  projects: ProjectsService;
  items: ItemsService;
  writer: ItemWriter;
  clock: Clock;
}

/** Raising, editing and moving items, each a named function below given these deps. */
export function createItemEditsService(deps: ItemEditsDeps) {
  return {
    newItemChoices: newItemChoices.bind(null, deps),
    createItem: createItem.bind(null, deps),
    getItemForEdit: getItemForEdit.bind(null, deps),
    updateItem: updateItem.bind(null, deps),
    moveItem: moveItem.bind(null, deps),
  };
}

/** A checklist's access check reads these: on the database, or under a write's lock (its repositories). */
type ChecklistReads = { edits: Pick<ItemEditsRepository, 'findChecklist'>; projects?: ProjectAccessReads };

/** 404 when the actor cannot see the checklist (or it is not in `inProject`), 403 when they may not raise items in it. */
async function authorizeChecklist(
  { repo, projects }: ItemEditsDeps,
  actor: Actor,
  checklistId: number,
  reads: ChecklistReads = { edits: repo },
  inProject?: number,
) {
  const checklist = await reads.edits.findChecklist(checklistId);
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
    throw forbidden(project.archived === 1 ? 'The project is archived: its items are read-only' : 'You are not allowed to add items here');
  }
  return checklist;
}

async function checkParticipants({ edits }: WriteRepositories, projectId: number, ids: readonly number[]) {
  if (ids.length && (await edits.countMembers(projectId, ids)) !== ids.length) {
    throw invalidField('participants', 'reason.membersOfProject');
  }
}

/** What "Add item" offers: the checklists the actor sees and the project's members (404, 403 as for a change). */
async function newItemChoices(deps: ItemEditsDeps, actor: Actor, projectId: number): Promise<NewItemChoices> {
  const { projects, repo } = deps;
  await authorizeProject(projects, actor, projectId, 'project.items');
  const [tree, members, companies] = await Promise.all([
    projects.getTree(actor, projectId),
    repo.membersOfProject(projectId),
    repo.activeCompanies(),
  ]);
  return { tree, members, companies };
}

/**
 * Raises an item (docs/design.md §14): text, planning, participants (members of the project) and photos in one
 * all-or-nothing write under the project's lock; the item starts with its `created` history entry and
 * its `item.created` event holds the item as items/get shows it. Returns the new item's id.
 */
async function createItem(
  deps: ItemEditsDeps,
  actor: Actor,
  checklistId: number,
  input: NewItemInput,
  buildAudit?: AuditEntryBuilder,
  /** The project of the form's page: a checklist elsewhere (or unseen) is a 422 on `checklist`. */
  inProject?: number,
): Promise<number> {
  const { projects, items, writer, clock } = deps;
  const text = requiredText('text', input.text, MAX_ITEM_TEXT_LENGTH);
  const description = optionalText('description', input.description, MAX_TEXT_LENGTH);
  const priority = priorityOf(input.priority);
  const deadline = input.fromForm ? formDeadline(input.deadline, { now: clock.now() }) : normalizeDeadline(input.deadline);
  const participantIds = uniqueIds(input.participantIds ?? []);
  const place = input.location ? checkedPlace(input.location) : null;
  if (inProject !== undefined) await authorizeProject(projects, actor, inProject, 'project.items');
  const checklist = await authorizeChecklist(deps, actor, checklistId, undefined, inProject).catch((err: unknown) => {
    if (inProject !== undefined && (err as { status?: number }).status === 404) {
      throw invalidField('checklist', 'reason.chooseProjectChecklist');
    }
    throw err;
  });
  // Image content is checked after the right (the check order of uploads), before anything is written.
  const images = await input.prepareImages?.();
  const authorize = (repos: WriteRepositories) => authorizeChecklist(deps, actor, checklistId, repos);
  const request = { projectId: checklist.project_id, actor, audit: buildAudit, authorize };
  const write = writer.writeProject(request, async (repos, emit) => {
    await checkParticipants(repos, checklist.project_id, participantIds);
    if (place) await planOfPlace(repos, place, checklist.project_id);
    const company = input.companyId != null ? await repos.items.choosableCompany(input.companyId) : null;
    if (input.companyId != null && !company) throw invalidField('company', 'reason.chooseCompany');
    const at = clock.now().toISOString();
    const row = {
      project_id: checklist.project_id,
      section_id: checklist.section_id,
      checklist_id: checklistId,
      text,
      description,
      priority,
      deadline,
      requires_answer: input.requires_answer ? 1 : 0,
      position: await repos.edits.nextPosition(checklistId),
      ...(place ? { plan_id: place.planId, plan_x: place.x, plan_y: place.y } : {}),
      ...(company ? { responsible_company_id: company.id } : {}),
    };
    const id = await repos.edits.insertItem(row, participantIds, actor.id, at);
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
}

/** The item as "Edit item" shows it: its fields, participants, the project's members and checklists. */
async function getItemForEdit(deps: ItemEditsDeps, actor: Actor, itemId: number) {
  const { items, repo } = deps;
  const access = await items.authorize(actor, itemId, 'item.edit');
  const members = await repo.membersOfProject(access.item.project_id);
  return { item: access.item, participantIds: access.participants.map((p) => p.id), members };
}

/**
 * "Edit item": text, description, participants (members of the project only), and a move to another
 * checklist of the project that the actor sees. One write under the item's lock; its `item.updated`
 * event lists each changed field `{from, to}`. Nothing changed: no event, `changed: false`.
 */
async function updateItem(deps: ItemEditsDeps, actor: Actor, itemId: number, input: ItemEdit, buildAudit?: AuditEntryBuilder) {
  const { writer, clock } = deps;
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
    throw invalidField('body', 'reason.giveOneOf', { fields: 'text, description, participants, checklist, company' });
  }
  return writer.write({ itemId, actor, action: 'item.edit', audit: buildAudit }, async (repos, emit) => {
    const { edits } = repos;
    const current = await edits.itemFields(itemId);
    const changes: ItemChanges = {};
    const values: Partial<ItemFields> & { position?: number } = {};
    for (const field of ['text', 'description'] as const) {
      if (next[field] !== undefined && next[field] !== current[field]) {
        changes[field] = { from: current[field], to: next[field] };
        values[field] = next[field];
      }
    }
    if (next.participants) {
      const before = await edits.participantIds(itemId);
      if (before.join() !== next.participants.join()) {
        await checkParticipants(repos, current.project_id, next.participants);
        changes.participants = { from: before, to: next.participants };
      }
    }
    if (input.checklistId !== undefined && input.checklistId !== current.checklist_id) {
      const target = await authorizeChecklist(deps, actor, input.checklistId, repos).catch(() => null);
      if (!target || target.project_id !== current.project_id) throw invalidField('checklist', 'reason.chooseProjectChecklist');
      changes.checklist = { from: current.checklist_id, to: target.id };
      Object.assign(values, {
        section_id: target.section_id,
        checklist_id: target.id,
        position: await edits.nextPosition(target.id),
      });
    }
    if (input.vocabulary) {
      const input_ = { projectId: current.project_id, itemId, input: input.vocabulary, creating: false };
      Object.assign(changes, await applyItemVocabulary(repos, input_));
    }
    const company = input.companyId === undefined ? null : await companyChange(repos, itemId, input.companyId);
    if (company) changes.responsible_company = company;
    if (Object.keys(changes).length === 0) return { item: { id: itemId }, changed: false };
    const at = clock.now().toISOString();
    await edits.updateItem(itemId, { ...values, updated_at: at });
    if (changes.participants) await edits.replaceParticipants(itemId, next.participants!);
    if (company) await applyCompanyChange(repos, itemId, company, actor.id, at);
    emit('item.updated', { changes });
    return { item: { id: itemId }, changed: true };
  });
}

/** Moves an item up or down within its checklist. */
async function moveItem(deps: ItemEditsDeps, actor: Actor, itemId: number, to: string, buildAudit?: AuditEntryBuilder) {
  const { writer, clock } = deps;
  const offset = moveDirection(to);
  await writer.write({ itemId, actor, action: 'item.edit', audit: buildAudit }, async ({ edits }, emit) => {
    const moved = await edits.move(itemId, offset, clock.now().toISOString());
    if (moved.from !== moved.to) emit('item.updated', { changes: { position: moved } });
  });
}

export type ItemEditsService = ReturnType<typeof createItemEditsService>;
