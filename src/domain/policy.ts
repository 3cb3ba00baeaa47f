import type { MemberRole, UserRole } from './values.js';

/**
 * The access policy: one pure function used by the API and the web interface alike.
 * Callers load the facts (membership, participants, archived flag); this module decides.
 * What a user cannot read does not exist for them: callers answer 404 when `read` is refused
 * and 403 when `read` is allowed but the action is not.
 */
export interface Actor {
  id: number;
  role: UserRole;
  /**
   * The projects the request's token is limited to (docs/design.md §18); absent or null: no limit (the web
   * session, an unlimited token). Limits only narrow: outside them the actor reads nothing, even as admin.
   */
  projectIds?: readonly number[] | null;
}

export interface Membership {
  role: MemberRole;
  /** null: no limit of that kind. When either list is set, access is the union of both lists. */
  sectionIds: readonly number[] | null;
  checklistIds: readonly number[] | null;
  /**
   * docs/design.md §20: set when the member sees only the items whose responsible company is their own (`companyId`,
   * null when they have none: then no item). Absent or null: no such limit.
   */
  companyItems?: { companyId: number | null } | null;
}

interface ProjectTarget {
  projectId: number;
  archived: boolean;
  membership: Membership | null;
}

export interface ItemTarget extends ProjectTarget {
  sectionId: number;
  checklistId: number;
  participantIds: readonly number[];
  /**
   * The item's responsible company (docs/design.md §20; null: none). A member limited to their company's items sees
   * an item only when it is given and theirs: a caller that does not load it shows them nothing.
   */
  responsibleCompanyId?: number | null;
  /** Set when the action concerns an answer of the item. */
  answerAuthorId?: number;
  /** Set when the action concerns a photo (`photo.describe`): who uploaded it. */
  photoUploaderId?: number | null;
}

/**
 * `project.structure`: add, rename and move sections and checklists (docs/design.md §14); a manager limited to
 * some sections or checklists may not, as the structure reaches beyond what they see. `project.items`: raise
 * items in the project (in the checklists one sees; `item.edit` decides per checklist). `project.plans`: upload
 * plans and their new versions (docs/design.md §19); any member reads them (`read`). `project.companies`: invite
 * people and send the company packs (docs/design.md §20).
 */
type ProjectAction = 'read' | 'project.verdict' | 'project.structure' | 'project.items' | 'project.plans' | 'project.companies';
export type ItemAction =
  | 'read'
  | 'item.status'
  | 'item.planning'
  | 'comment.add'
  | 'answer.add'
  | 'item.materials'
  | 'answer.images'
  | 'answer.review'
  | 'item.verdict'
  | 'item.rework'
  /** Create an item in this item's checklist, edit its text, description and participants, move it (docs/design.md §14). */
  | 'item.edit'
  /** Place the item on a plan, move its pin, take it off (docs/design.md §19): managers and admins. */
  | 'item.place'
  /** Dispute the item (docs/design.md §20): its executors (participants with the executor role) only. */
  | 'item.dispute'
  /** Resolve an open dispute (reassign the company or keep it): managers and admins. */
  | 'item.resolve_dispute'

  /** Change a photo's stage or caption (docs/design.md §22): its uploader, or a manager. */
  | 'photo.describe';

export const ITEM_ACTIONS: readonly ItemAction[] = [
  'read',
  'item.status',
  'item.planning',
  'comment.add',
  'answer.add',
  'item.materials',
  'answer.images',
  'answer.review',
  'item.verdict',
  'item.rework',
  'item.edit',
  'item.place',
  'item.dispute',
  'item.resolve_dispute',
  'photo.describe',
];

function isLimited(membership: Membership): boolean {
  return membership.sectionIds !== null || membership.checklistIds !== null;
}

/** Whether a member sees a checklist (and so its items). */
export function seesChecklist(membership: Membership, sectionId: number, checklistId: number): boolean {
  if (!isLimited(membership)) return true;
  return (membership.sectionIds?.includes(sectionId) ?? false) || (membership.checklistIds?.includes(checklistId) ?? false);
}

/** Whether a member sees an item held by `companyId` (docs/design.md §20): always, unless limited to their company's items. */
export function seesCompanyItem(membership: Membership, companyId: number | null | undefined): boolean {
  const limit = membership.companyItems;
  if (!limit) return true;
  return limit.companyId !== null && companyId === limit.companyId;
}

/** Whether a member sees a section: granted whole, or holding at least one granted checklist. */
export function seesSection(membership: Membership, sectionId: number, checklistIdsOfSection: readonly number[]): boolean {
  if (!isLimited(membership)) return true;
  if (membership.sectionIds?.includes(sectionId)) return true;
  return checklistIdsOfSection.some((id) => membership.checklistIds?.includes(id) ?? false);
}

/** Whether the actor's token limit lets it reach the project at all (no limit: yes). */
export function withinProjectLimit(actor: Actor, projectId: number): boolean {
  return actor.projectIds == null || actor.projectIds.includes(projectId);
}

/**
 * For lists across projects (projects/list, the event feed): the projects the token is limited to, or null
 * when it has no limit. A list keeps only these, on top of what the user's own access already keeps.
 */
export function projectLimit(actor: Actor): readonly number[] | null {
  return actor.projectIds ?? null;
}

export function canOnProject(actor: Actor, action: ProjectAction, target: ProjectTarget): boolean {
  if (!withinProjectLimit(actor, target.projectId)) return false;
  const readable = actor.role === 'admin' || target.membership !== null;
  if (action === 'read' || !readable) return readable;
  if (target.archived) return false;
  if (actor.role === 'admin') return true;
  const m = target.membership;
  return m?.role === 'manager' && (action !== 'project.structure' || !isLimited(m));
}

export function can(actor: Actor, action: ItemAction, target: ItemTarget): boolean {
  if (!withinProjectLimit(actor, target.projectId)) return false;
  const m = target.membership;
  const readable =
    actor.role === 'admin' ||
    (m !== null && seesChecklist(m, target.sectionId, target.checklistId) && seesCompanyItem(m, target.responsibleCompanyId));
  if (action === 'read' || !readable) return readable;
  if (target.archived) return false;
  const participant = target.participantIds.includes(actor.id);
  if (action === 'item.dispute') return m?.role === 'executor' && participant;
  if (actor.role === 'admin' || m?.role === 'manager') return true;
  if (m?.role !== 'executor') return action === 'comment.add';
  switch (action) {
    case 'comment.add':
      return true;
    case 'item.status':
    case 'answer.add':
    case 'item.materials':
      return participant;
    case 'answer.images':
      return participant || target.answerAuthorId === actor.id;
    case 'photo.describe':
      return target.photoUploaderId === actor.id;
    default:
      return false;
  }
}

/** Projects themselves (create, rename, archive), users and memberships: global admins only. */
export function canAdminister(actor: Actor): boolean {
  return actor.role === 'admin';
}

/** Whose audit records a user may read: an administrator anybody's (`requested`, or everybody's), anybody else only their own. */
export function auditRecordsOwner(actor: Actor, requested: number | undefined): number | undefined {
  return canAdminister(actor) ? requested : actor.id;
}
