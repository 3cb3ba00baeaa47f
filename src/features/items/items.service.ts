import type { Kysely } from 'kysely';
import { precompile } from '../../db/precompiled.js';
import type { Database, Item, Project } from '../../db/tables.js';
import { type Actor, can, ITEM_ACTIONS, type ItemAction, type ItemTarget, type Membership } from '../../domain/policy.js';
import { forbidden, notFound } from '../../errors.js';
import type { ProjectsRepository } from '../projects/projects.repository.js';
import { attachmentView, linkView } from './item-views.js';

export interface ItemAccess {
  item: Item;
  project: Project;
  membership: Membership | null;
  target: ItemTarget;
  /** With their project role: the card shows them, the policy needs their ids. */
  participants: { id: number; name: string; role: string | null }[];
}

const user = (id: number | null, name: string | null) => (id === null ? null : { id, name: name ?? '' });

/** `urls.baseUrl` is read at call time: a test server learns its port only after listening. */
/**
 * The queries of an item's access check and card, compiled once (db/precompiled.ts): they run on every
 * items/get and every item write. A fixed set: 4 for the access check, 5 more for the card.
 */
function itemQueries(db: Kysely<Database>) {
  type ById = { itemId: number };
  return {
    item: precompile(db, (db, p: ById) => db.selectFrom('items').selectAll().where('id', '=', p.itemId)),
    participants: precompile(db, (db, p: ById & { projectId: number }) =>
      db
        .selectFrom('item_participants as ip')
        .innerJoin('users as u', 'u.id', 'ip.user_id')
        .leftJoin('project_members as m', (j) => j.onRef('m.user_id', '=', 'ip.user_id').on('m.project_id', '=', p.projectId))
        .select(['u.id', 'u.name', 'm.role'])
        .where('ip.item_id', '=', p.itemId)
        .orderBy('u.id'),
    ),
    comments: precompile(db, (db, p: ById) =>
      db
        .selectFrom('comments as c')
        .innerJoin('users as u', 'u.id', 'c.author_id')
        .select(['c.id', 'c.text', 'c.created_at', 'u.id as author_id', 'u.name as author_name'])
        .where('c.item_id', '=', p.itemId)
        .orderBy('c.id'),
    ),
    answers: precompile(db, (db, p: ById) =>
      db
        .selectFrom('answers as a')
        .innerJoin('users as u', 'u.id', 'a.author_id')
        .select(['a.id', 'a.text', 'a.status', 'a.created_at', 'a.updated_at', 'u.id as author_id', 'u.name as author_name'])
        .where('a.item_id', '=', p.itemId)
        .orderBy('a.id'),
    ),
    links: precompile(db, (db, p: ById) =>
      db
        .selectFrom('document_links')
        .select(['id', 'answer_id', 'kind', 'title', 'url'])
        .where('item_id', '=', p.itemId)
        .orderBy('position')
        .orderBy('id'),
    ),
    attachments: precompile(db, (db, p: ById) =>
      db
        .selectFrom('attachments')
        .select(['id', 'answer_id', 'original_name', 'mime_type', 'path', 'size', 'width', 'height', 'created_at'])
        .where('item_id', '=', p.itemId)
        .orderBy('id'),
    ),
    history: precompile(db, (db, p: ById) =>
      db
        .selectFrom('item_history as h')
        .leftJoin('users as u', 'u.id', 'h.user_id')
        .select(['h.kind', 'h.from_status', 'h.to_status', 'h.at', 'h.note', 'u.id as user_id', 'u.name as user_name'])
        .where('h.item_id', '=', p.itemId)
        .orderBy('h.id'),
    ),
  };
}

export function createItemsService(db: Kysely<Database>, projects: ProjectsRepository, urls: { baseUrl: string }) {
  const q = itemQueries(db);
  const service = {
    /**
     * The item with the facts the policy needs; 404 when it does not exist or the actor cannot see it.
     * `executor`: the transaction of an item write (the check runs under the item's lock), else the database.
     */
    async access(actor: Actor, itemId: number, executor?: Kysely<Database>): Promise<ItemAccess> {
      const item = await q.item.executeTakeFirst({ itemId }, executor);
      if (!item) throw notFound('The item');
      const [project, membership, participants] = await Promise.all([
        projects.findProject(item.project_id, executor),
        projects.membership(actor.id, item.project_id, executor),
        q.participants.execute({ itemId, projectId: item.project_id }, executor),
      ]);
      const target: ItemTarget = {
        archived: project?.archived === 1,
        membership,
        sectionId: item.section_id,
        checklistId: item.checklist_id,
        participantIds: participants.map((p) => p.id),
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
      executor?: Kysely<Database>,
    ): Promise<ItemAccess> {
      const access = await service.access(actor, itemId, executor);
      if (!can(actor, action, { ...access.target, ...extra })) {
        throw forbidden(
          access.target.archived
            ? 'The project is archived: its items are read-only'
            : 'You are not allowed to perform this operation on this item',
        );
      }
      return access;
    },

    async getItemCard(actor: Actor, itemId: number) {
      return cardOf(actor, await service.access(actor, itemId));
    },

    /**
     * The item card with what the actor may do on it (the policy, action by action) and the answers they
     * may add images to: the web item page shows only the controls that the actor may use.
     */
    async getItemWorkspace(actor: Actor, itemId: number) {
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

  async function cardOf(actor: Actor, { item, target, participants }: ItemAccess) {
    const byId = { itemId: item.id };
    const [comments, answers, links, attachments, history] = await Promise.all([
      q.comments.execute(byId),
      q.answers.execute(byId),
      q.links.execute(byId),
      q.attachments.execute(byId),
      q.history.execute(byId),
    ]);
    const itemLinks = links.filter((l) => l.answer_id === null).map(linkView);
    const itemAttachments = attachments.filter((a) => a.answer_id === null).map((a) => attachmentView(urls.baseUrl, a));
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
          attachments: attachments.filter((x) => x.answer_id === a.id).map((x) => attachmentView(urls.baseUrl, x)),
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
