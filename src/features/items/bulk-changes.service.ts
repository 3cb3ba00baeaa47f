import type { Clock } from '../../shared/clock.js';
import { type Actor, can, type Membership } from '../../domain/policy.js';
import { formDeadline } from '../../domain/inputs.js';
import type { ItemStatus, Priority } from '../../domain/values.js';
import { ApiError, forbidden } from '../../shared/errors.js';
import { invalidField } from '../../i18n/reasons.js';
import type { AuditEntryBuilder, EmitEvent } from '../write-path/write-path.js';
import type { ItemWritesService, PlanningInput } from './item-writes.service.js';
import type { WriteRepositories } from './write-repositories.js';
import type { ItemEditsRepository } from './item-edits.repository.js';
import { companyStep } from './item-company.js';
import type { ProjectsRepository } from '../projects/projects.repository.js';
import type { VisibleItems } from '../projects/index.js';
import { applyItemVocabulary } from './item-vocabulary.js';

/** Items changed together by one bulk form at most (two pages of the project list). */
const MAX_BULK_ITEMS = 200;

/** What a bulk form asks for; a field left undefined is kept as it is on every item. */
export interface BulkChange {
  status?: ItemStatus;
  priority?: Priority;
  /** A date, or null to clear the deadline. */
  deadline?: string | null;
  /** A member of the project to add to each item's participants. */
  addParticipant?: number;
  /** A user to take off each item's participants. */
  removeParticipant?: number;
  /** docs/design.md §21: the category of each item (a category's id of the project), or null for none. */
  category?: number | null;
  /** The responsible company of each item (docs/design.md §20); null: none. */
  company?: number | null;
}

/** What the user may change in bulk on a project (the policy at the project's level; items decide for themselves). */
export interface BulkAbilities {
  status: boolean;
  planning: boolean;
  participants: boolean;
}

/**
 * The policy evaluated for a project's member, whatever their limits: an executor "may" change the status
 * (of the items they take part in), a manager everything. Nobody may on an archived project.
 */
export function bulkAbilities(actor: Actor, projectId: number, membership: Membership | null, archived: boolean): BulkAbilities {
  const target = {
    projectId,
    archived,
    membership: membership && {
      ...membership,
      sectionIds: null,
      checklistIds: null,
    },
    sectionId: 0,
    checklistId: 0,
    participantIds: [actor.id],
  };
  return {
    status: can(actor, 'item.status', target),
    planning: can(actor, 'item.planning', target),
    participants: can(actor, 'item.edit', target),
  };
}

export interface BulkOutcome {
  /** Items where something changed. */
  changed: number[];
  /** Items that already had every asked value. */
  unchanged: number[];
  /** Items left as they were, with the reason (the error's code). */
  refused: { id: number; code: string }[];
}

/**
 * Changes of several items of one project at once (docs/design.md §14): one write per item through the item
 * write path (its lock, its audit record, an event per kind of change), all-or-nothing per item; an item
 * the user may not change is refused and the others go on.
 */
/** What bulk changes need: the items the actor sees, the memberships, the item writes, the clock and the edits' statements. */
export interface BulkChangesDeps {
  /** The items of the project's tree the actor sees: built in the worker pool once it runs (the composition's). */
  visibleItems: (actor: Actor, projectId: number) => Promise<VisibleItems>;
  projectsRepo: ProjectsRepository;
  itemWrites: () => ItemWritesService;
  clock: Clock;
  edits: Pick<ItemEditsRepository, 'choosableCompany'>;
}

export function createBulkChangesService(deps: BulkChangesDeps) {
  return {
    apply: apply.bind(null, deps),
  };
}

/**
 * Adds and/or removes one participant inside the item's write, with the `item.updated` event "Edit item"
 * emits (`{changes: {participants: {from, to}}}`); a new participant must be a member of the project.
 */
const participantsStep =
  (itemId: number, projectId: number, add: number | undefined, remove: number | undefined) =>
  async ({ edits }: WriteRepositories, emit: EmitEvent): Promise<boolean> => {
    const before = [...(await edits.participantIds(itemId))].sort((a, b) => a - b);
    const after = [...new Set([...before.filter((id) => id !== remove), ...(add !== undefined && add !== remove ? [add] : [])])].sort(
      (a, b) => a - b,
    );
    if (after.join() === before.join()) return false;
    if (add !== undefined && !before.includes(add) && (await edits.countMembers(projectId, [add])) !== 1) {
      throw invalidField('add_participant', 'reason.memberOfProject');
    }
    await edits.replaceParticipants(itemId, after);
    emit('item.updated', {
      changes: { participants: { from: before, to: after } },
    });
    return true;
  };

/** The edits of one item (participants, category) inside its write; true when something changed. */
const editStep =
  (clock: Clock, itemId: number, projectId: number, change: BulkChange) =>
  async (repos: WriteRepositories, emit: EmitEvent): Promise<boolean> => {
    const crew = change.addParticipant !== undefined || change.removeParticipant !== undefined;
    const people = crew ? await participantsStep(itemId, projectId, change.addParticipant, change.removeParticipant)(repos, emit) : false;
    if (change.category === undefined) return people;
    const changes = await applyItemVocabulary(repos, {
      projectId,
      itemId,
      input: { categoryId: change.category },
      creating: false,
    });
    if (!changes.category) return people;
    await repos.items.touch(itemId, clock.now().toISOString());
    emit('item.updated', { changes });
    return true;
  };

/** Participants, the category and the company: one step of the item's edit, inside its write; true when something changed. */
function crewStep(clock: Clock, actor: Actor, itemId: number, projectId: number, change: BulkChange) {
  const people = change.addParticipant !== undefined || change.removeParticipant !== undefined;
  return async (repos: WriteRepositories, emit: EmitEvent): Promise<boolean> => {
    const edited = people || change.category !== undefined ? await editStep(clock, itemId, projectId, change)(repos, emit) : false;
    if (change.company === undefined) return edited;
    const now = clock.now().toISOString();
    const given = await companyStep(repos, emit, {
      itemId,
      companyId: change.company,
      userId: actor.id,
      now,
    });
    return edited || given !== null;
  };
}

/**
 * Checks the whole form first (422: nothing selected, nothing to change, a bad date; 403: a change the
 * user may make on no item of the project), then writes item by item. `auditOf` gives each item's
 * write its own audit record.
 */
async function apply(
  deps: BulkChangesDeps,
  actor: Actor,
  projectId: number,
  itemIds: readonly number[],
  change: BulkChange,
  auditOf: (itemId: number) => AuditEntryBuilder | undefined,
): Promise<BulkOutcome> {
  const { projectsRepo } = deps;
  const ids = [...new Set(itemIds)];
  if (ids.length === 0) throw invalidField('items', 'reason.selectItem');
  if (ids.length > MAX_BULK_ITEMS) throw invalidField('items', 'reason.selectAtMostItems', { max: MAX_BULK_ITEMS });
  const planning: PlanningInput = { fromForm: true };
  if (change.priority !== undefined) planning.priority = change.priority;
  // The whole form is refused for a passed date, not each item (items keeping that date are fine: planningStep).
  if (change.deadline !== undefined)
    planning.deadline = formDeadline(change.deadline, {
      now: deps.clock.now(),
    });
  const planned = planning.priority !== undefined || planning.deadline !== undefined;
  const people = change.addParticipant !== undefined || change.removeParticipant !== undefined;
  // Participants, the category and the company are all the item's edit (managers): one step of the item's write.
  const crew = people || change.category !== undefined || change.company !== undefined;
  if (change.status === undefined && !planned && !crew) throw invalidField('change', 'reason.chooseChange');
  if (change.company != null && !(await deps.edits.choosableCompany(change.company))) {
    throw invalidField('company', 'reason.chooseCompany');
  }
  if (change.addParticipant !== undefined && change.addParticipant === change.removeParticipant) {
    throw invalidField('remove_participant', 'reason.addAndRemove');
  }

  const scope = await deps.visibleItems(actor, projectId);
  const may = bulkAbilities(actor, projectId, await projectsRepo.membership(actor.id, projectId), scope.archived);
  if ((change.status !== undefined && !may.status) || (planned && !may.planning) || (crew && !may.participants)) {
    throw forbidden(
      scope.archived ? 'The project is archived: its items are read-only' : 'You are not allowed to make these changes in this project',
    );
  }
  if (change.addParticipant !== undefined && !(await projectsRepo.membership(change.addParticipant, projectId))) {
    throw invalidField('add_participant', 'reason.memberOfProject');
  }
  const visible = new Set(scope.itemIds);

  const outcome: BulkOutcome = { changed: [], unchanged: [], refused: [] };
  for (const id of ids) {
    if (!visible.has(id)) {
      outcome.refused.push({ id, code: 'not_found' });
      continue;
    }
    try {
      const result = await deps.itemWrites().changeItem(
        actor,
        id,
        {
          status: change.status,
          planning: planned ? planning : undefined,
          extra: crew
            ? {
                action: 'item.edit',
                step: crewStep(deps.clock, actor, id, projectId, change),
              }
            : undefined,
        },
        auditOf(id),
      );
      (result.changed ? outcome.changed : outcome.unchanged).push(id);
    } catch (err) {
      if (!(err instanceof ApiError) || err.status >= 500) throw err;
      outcome.refused.push({ id, code: err.code });
    }
  }
  return outcome;
}

export type BulkChangesService = ReturnType<typeof createBulkChangesService>;
