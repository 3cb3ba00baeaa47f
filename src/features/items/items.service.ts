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

export function createItemsService(repo: ItemsRepository, projects: ProjectsRepository, urls: { baseUrl: string }) {
  const onDatabase: ItemReads = { items: repo, projects };
  const service = {
    /**
     * The item with the facts the policy needs; 404 when it does not exist or the actor cannot see it.
     * `reads`: the repositories of an item write (the check runs under the item's lock), else the database's.
     */
    async access(actor: Actor, itemId: number, reads: ItemReads = onDatabase): Promise<ItemAccess> {
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
    },

    /** Like access(), then 403 when the actor may see the item but not perform the action. */
    async authorize(
      actor: Actor,
      itemId: number,
      action: ItemAction,
      extra: Partial<ItemTarget> = {},
      reads?: ItemReads,
    ): Promise<ItemAccess> {
      const access = await service.access(actor, itemId, reads);
      if (!can(actor, action, { ...access.target, ...extra })) {
        throw forbidden(
          access.target.archived
            ? 'The project is archived: its items are read-only'
            : 'You are not allowed to perform this operation on this item',
        );
      }
      return access;
    },

    /** `reads`: inside a write (the card of a new item, for its event), else the database's. */
    async getItemCard(actor: Actor, itemId: number, reads: ItemReads = onDatabase): Promise<{ item: ItemCard }> {
      return cardOf(actor, await service.access(actor, itemId, reads), reads);
    },

    /**
     * The item card with what the actor may do on it (the policy, action by action) and the answers they
     * may add images to: the web item page shows only the controls that the actor may use.
     */
    async getItemWorkspace(actor: Actor, itemId: number): Promise<ItemWorkspace> {
      const access = await service.access(actor, itemId);
      const { item } = await cardOf(actor, access);
      const rights = Object.fromEntries(ITEM_ACTIONS.map((action) => [action, can(actor, action, access.target)])) as Record<
        ItemAction,
        boolean
      >;
      const answerImages = new Set(
        item.answers.filter((a) => can(actor, 'answer.images', { ...access.target, answerAuthorId: a.author.id })).map((a) => a.id),
      );
      return { item, project: { id: access.project.id, name: access.project.name }, rights, answerImages };
    },
  };

  async function cardOf(
    actor: Actor,
    { item, target, participants }: ItemAccess,
    reads: ItemReads = onDatabase,
  ): Promise<{ item: ItemCard }> {
    const { comments, answers, links, attachments, history, planName, categoryName, fieldValues, company, disputeBy } =
      await reads.items.cardParts(item.id);
    const itemLinks = links.filter((l) => l.answer_id === null).map(linkView);
    const photos = (answerId: number | null) =>
      inShowingOrder(
        attachments
          .filter((a) => a.answer_id === answerId)
          .map((a) => ({ ...attachmentView(urls.baseUrl, a), uploaded_by: a.uploaded_by })),
      );
    const itemAttachments = photos(null);
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
        attachments: itemAttachments,
        document_links: itemLinks,
        status_history: history.map((h) => ({
          kind: h.kind,
          from: h.from_status,
          to: h.to_status,
          at: h.at,
          user: user(h.user_id, h.user_name),
          note: h.note,
        })),
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
  return service;
}

export type ItemsService = ReturnType<typeof createItemsService>;
