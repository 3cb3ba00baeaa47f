import type { Item, Project } from '../../db/tables.js';
import { ballInCourt } from '../../domain/ball-in-court.js';
import { type Actor, can, ITEM_ACTIONS, type ItemAction, type ItemTarget, type Membership } from '../../domain/policy.js';
import { forbidden, notFound } from '../../shared/errors.js';
import type { ProjectAccessReads, ProjectsRepository } from '../projects/projects.repository.js';
import type { ItemsRepository, ItemWrites } from './items.repository.js';
import { attachmentView, fieldsView, inShowingOrder, type ItemCard, linkView, locationView } from './item-views.js';

interface ItemAccess {
  item: Item;
  project: Project;
  membership: Membership | null;
  target: ItemTarget;
  /** With their project role: the card shows them, the policy needs their ids. */
  participants: { id: number; name: string; role: string | null }[];
}

/** The item page's data: the card, what the actor may do on it, and the answers they may add images to. */
export interface ItemWorkspace {
  item: ItemCard;
  project: { id: number; name: string };
  rights: Record<ItemAction, boolean>;
  answerImages: Set<number>;
}

const user = (id: number | null, name: string | null) => (id === null ? null : { id, name: name ?? '' });

/**
 * What the access check and the card read: the repositories on the database, or those of a write
 * (write-repositories.ts), bound to its transaction.
 */
export interface ItemReads {
  items: Pick<ItemWrites, 'findItem' | 'participants' | 'cardParts'>;
  projects: ProjectAccessReads;
}

export interface ItemsDeps {
  repo: ItemsRepository;
  projects: ProjectsRepository;
  urls: { baseUrl: string };
}

type CardParts = Awaited<ReturnType<ItemWrites['cardParts']>>;

/** The repositories on the database: the reads outside a write. */
function onDatabase(deps: ItemsDeps): ItemReads {
  return { items: deps.repo, projects: deps.projects };
}

/**
 * The item with the facts the policy needs; 404 when it does not exist or the actor cannot see it.
 * `reads`: the repositories of an item write (the check runs under the item's lock), else the database's.
 */
async function access(deps: ItemsDeps, actor: Actor, itemId: number, reads: ItemReads = onDatabase(deps)): Promise<ItemAccess> {
  const item = await reads.items.findItem(itemId);
  if (!item) throw notFound('The item');
  const [project, membership, participants] = await Promise.all([
    reads.projects.findProject(item.project_id),
    reads.projects.membership(actor.id, item.project_id),
    reads.items.participants(itemId, item.project_id),
  ]);
  const target: ItemTarget = {
    projectId: item.project_id,
    archived: project?.archived === 1,
    membership,
    sectionId: item.section_id,
    checklistId: item.checklist_id,
    participantIds: participants.map((p) => p.id),
    responsibleCompanyId: item.responsible_company_id,
  };
  if (!project || !can(actor, 'read', target)) throw notFound('The item');
  return { item, project, membership, target, participants };
}

/** Like access(), then 403 when the actor may see the item but not perform the action. */
async function authorize(
  deps: ItemsDeps,
  actor: Actor,
  itemId: number,
  action: ItemAction,
  extra: Partial<ItemTarget> = {},
  reads?: ItemReads,
): Promise<ItemAccess> {
  const found = await access(deps, actor, itemId, reads);
  if (!can(actor, action, { ...found.target, ...extra })) {
    throw forbidden(
      found.target.archived
        ? 'The project is archived: its items are read-only'
        : 'You are not allowed to perform this operation on this item',
    );
  }
  return found;
}

/** `reads`: inside a write (the card of a new item, for its event), else the database's. */
async function getItemCard(
  deps: ItemsDeps,
  actor: Actor,
  itemId: number,
  reads: ItemReads = onDatabase(deps),
): Promise<{ item: ItemCard }> {
  return cardOf(deps, actor, await access(deps, actor, itemId, reads), reads);
}

/**
 * The item card with what the actor may do on it (the policy, action by action) and the answers they
 * may add images to: the web item page shows only the controls that the actor may use.
 */
async function getItemWorkspace(deps: ItemsDeps, actor: Actor, itemId: number): Promise<ItemWorkspace> {
  const found = await access(deps, actor, itemId);
  const { item } = await cardOf(deps, actor, found);
  const rights = Object.fromEntries(ITEM_ACTIONS.map((action) => [action, can(actor, action, found.target)])) as Record<
    ItemAction,
    boolean
  >;
  const answerImages = new Set(
    item.answers.filter((a) => can(actor, 'answer.images', { ...found.target, answerAuthorId: a.author.id })).map((a) => a.id),
  );
  return { item, project: { id: found.project.id, name: found.project.name }, rights, answerImages };
}

/** The card's comments, answers (with their links and photos) and status history. */
function cardThreads(baseUrl: string, { comments, answers, links, attachments, history }: CardParts) {
  const photos = (answerId: number | null) =>
    inShowingOrder(
      attachments.filter((a) => a.answer_id === answerId).map((a) => ({ ...attachmentView(baseUrl, a), uploaded_by: a.uploaded_by })),
    );
  return {
    comments: comments.map((c) => ({
      id: c.id,
      text: c.text,
      author: { id: c.author_id, name: c.author_name },
      created_at: c.created_at,
    })),
    answers: answers.map((a) => ({
      id: a.id,
      text: a.text,
      status: a.status,
      author: { id: a.author_id, name: a.author_name },
      document_links: links.filter((l) => l.answer_id === a.id).map(linkView),
      attachments: photos(a.id),
      created_at: a.created_at,
      updated_at: a.updated_at,
    })),
    attachments: photos(null),
    document_links: links.filter((l) => l.answer_id === null).map(linkView),
    status_history: history.map((h) => ({
      kind: h.kind,
      from: h.from_status,
      to: h.to_status,
      at: h.at,
      user: user(h.user_id, h.user_name),
      note: h.note,
    })),
  };
}

async function cardOf(
  deps: ItemsDeps,
  actor: Actor,
  { item, target, participants }: ItemAccess,
  reads: ItemReads = onDatabase(deps),
): Promise<{ item: ItemCard }> {
  const parts = await reads.items.cardParts(item.id);
  const { answers, planName, categoryName, fieldValues, company, disputeBy } = parts;
  const threads = cardThreads(deps.urls.baseUrl, parts);
  return {
    item: {
      id: item.id,
      project_id: item.project_id,
      section_id: item.section_id,
      checklist_id: item.checklist_id,
      text: item.text,
      description: item.description,
      status: item.status,
      priority: item.priority,
      deadline: item.deadline,
      requires_answer: item.requires_answer === 1,
      verdict: item.verdict,
      rework_reason: item.rework_reason,
      rework_deadline: item.rework_deadline,
      participants: participants.map((p) => ({ id: p.id, name: p.name, role: p.role ?? null })),
      comments: threads.comments,
      answers: threads.answers,
      attachments: threads.attachments,
      document_links: threads.document_links,
      status_history: threads.status_history,
      location: locationView(item, planName),
      category: categoryName,
      fields: fieldsView(fieldValues),
      responsible_company: company,
      ball_in_court: ballInCourt({
        status: item.status,
        verdict: item.verdict,
        answerPending: answers.some((a) => a.status === 'pending'),
        disputed: item.dispute_at !== null,
      }),
      disputed: item.dispute_at === null ? null : { reason: item.dispute_reason ?? '', by: disputeBy, at: item.dispute_at },
      can_verdict: can(actor, 'item.verdict', target),
      can_return_to_rework: can(actor, 'item.rework', target),
      created_at: item.created_at,
      updated_at: item.updated_at,
    },
  };
}

export function createItemsService(deps: ItemsDeps) {
  return {
    access: access.bind(null, deps),
    authorize: authorize.bind(null, deps),
    getItemCard: getItemCard.bind(null, deps),
    getItemWorkspace: getItemWorkspace.bind(null, deps),
  };
}

export type ItemsService = ReturnType<typeof createItemsService>;
