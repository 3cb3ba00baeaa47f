import type { Kysely, Transaction } from 'kysely';
import { precompile, precompileLazily } from '../../db/precompiled.js';
import type { Database } from '../../db/tables.js';
import type { NewDocumentLink } from '../../domain/inputs.js';
import { linkView, type LinkView } from './item-views.js';

/**
 * The SQL of items: the reads of an item's access check and card, and the statements of the item write path
 * (the lock, the status, the planning fields, the links). The write statements take the write's transaction.
 */
/**
 * The queries of an item's access check and card, compiled once (db/precompiled.ts): they run on every
 * items/get and every item write. A fixed set: 4 for the access check, 6 more for the card.
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
        .select(['annotates', 'stage', 'caption', 'uploaded_by'])
        .where('item_id', '=', p.itemId)
        .orderBy('id'),
    ),
    plan: precompile(db, (db, p: ById) =>
      db.selectFrom('items as i').innerJoin('plans as p', 'p.id', 'i.plan_id').select(['p.id', 'p.name']).where('i.id', '=', p.itemId),
    ),
    category: precompile(db, (db, p: ById) =>
      db.selectFrom('items as i').innerJoin('categories as c', 'c.id', 'i.category_id').select(['c.name']).where('i.id', '=', p.itemId),
    ),
    fieldValues: precompile(db, (db, p: ById) =>
      db
        .selectFrom('item_field_values as v')
        .innerJoin('custom_fields as f', 'f.id', 'v.field_id')
        .select(['f.name', 'v.text_value', 'v.number_value', 'v.date_value', 'v.option_value'])
        .where('v.item_id', '=', p.itemId)
        .orderBy('f.position')
        .orderBy('f.id'),
    ),
    /** Who holds the item (docs/design.md §20): its company, and who opened its dispute. */
    holder: precompile(db, (db, p: ById) =>
      db
        .selectFrom('items as i')
        .leftJoin('companies as c', 'c.id', 'i.responsible_company_id')
        .leftJoin('users as u', 'u.id', 'i.dispute_by')
        .select(['c.id as company_id', 'c.name as company_name', 'u.id as dispute_by_id', 'u.name as dispute_by_name'])
        .where('i.id', '=', p.itemId),
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

/** A history entry that is no status change (`location_changed`, `company_changed`): what it became, in `note`. */
async function noteInHistory(
  trx: Transaction<Database>,
  kind: string,
  p: { itemId: number; note: string | null; userId: number; now: string },
): Promise<void> {
  await trx
    .insertInto('item_history')
    .values({ item_id: p.itemId, kind, from_status: null, to_status: null, user_id: p.userId, note: p.note, at: p.now })
    .execute();
}

// Run by nearly every item write: compiled once (db/precompiled.ts).
const touch = precompileLazily((db: Kysely<Database>, p: { itemId: number; now: string }) =>
  db.updateTable('items').set({ updated_at: p.now }).where('id', '=', p.itemId),
);

/** The status change is the most frequent write: its statements are compiled once (db/precompiled.ts). */
function statusQueries(db: Kysely<Database>) {
  const currentStatus = precompile(db, (db, p: { itemId: number }) =>
    db.selectFrom('items').select(['status', 'updated_at']).where('id', '=', p.itemId),
  );
  const updateStatus = precompile(db, (db, p: { itemId: number; status: string; now: string }) =>
    db.updateTable('items').set({ status: p.status, updated_at: p.now }).where('id', '=', p.itemId),
  );
  const insertStatusChange = precompile(db, (db, p: { itemId: number; from: string; to: string; userId: number; now: string }) =>
    db.insertInto('item_history').values({
      item_id: p.itemId,
      kind: 'status_changed',
      from_status: p.from,
      to_status: p.to,
      user_id: p.userId,
      note: null,
      at: p.now,
    }),
  );
  return { currentStatus, updateStatus, insertStatusChange };
}

/** The reads of an item's access check and card, on `executor` (undefined: the database). */
function itemReads(q: ReturnType<typeof itemQueries>, executor?: Transaction<Database>) {
  return {
    findItem: (itemId: number) => q.item.executeTakeFirst({ itemId }, executor),
    participants: (itemId: number, projectId: number) => q.participants.execute({ itemId, projectId }, executor),

    /**
     * What the card shows besides the item row: comments, answers, links, images and history, in their order,
     * and the name of the plan it is on (null: on none).
     */
    async cardParts(itemId: number) {
      const byId = { itemId };
      const [comments, answers, links, attachments, history, plan, category, fieldValues, holder] = await Promise.all([
        q.comments.execute(byId, executor),
        q.answers.execute(byId, executor),
        q.links.execute(byId, executor),
        q.attachments.execute(byId, executor),
        q.history.execute(byId, executor),
        q.plan.executeTakeFirst(byId, executor),
        q.category.executeTakeFirst(byId, executor),
        q.fieldValues.execute(byId, executor),
        q.holder.executeTakeFirst(byId, executor),
      ]);
      const categoryName = category?.name ?? null;
      const company = holder?.company_id != null ? { id: holder.company_id, name: holder.company_name! } : null;
      const disputeBy = holder?.dispute_by_id != null ? { id: holder.dispute_by_id, name: holder.dispute_by_name! } : null;
      return {
        comments,
        answers,
        links,
        attachments,
        history,
        planName: plan?.name ?? null,
        categoryName,
        fieldValues,
        company,
        disputeBy,
      };
    },
  };
}

/** The item's status under a write's lock, and its change. */
function statusWrites(s: ReturnType<typeof statusQueries>, trx: Transaction<Database>) {
  const { currentStatus, updateStatus, insertStatusChange } = s;
  return {
    currentStatus: (itemId: number) => currentStatus.executeTakeFirst({ itemId }, trx),

    /** The new status and its history entry. */
    async changeStatus(p: { itemId: number; from: string; to: string; userId: number; now: string }) {
      await updateStatus.run({ itemId: p.itemId, status: p.to, now: p.now }, trx);
      await insertStatusChange.run(p, trx);
    },
  };
}

/** The planning fields: deadline, priority, whether an answer is required. */
function planningWrites(trx: Transaction<Database>) {
  return {
    planning: (itemId: number) =>
      trx
        .selectFrom('items')
        .select(['deadline', 'priority', 'requires_answer', 'updated_at'])
        .where('id', '=', itemId)
        .executeTakeFirstOrThrow(),

    async setPlanning(
      itemId: number,
      changes: { deadline?: string | null; priority?: string; requires_answer?: number; updated_at: string },
    ) {
      await trx.updateTable('items').set(changes).where('id', '=', itemId).execute();
    },
  };
}

/** The item's place on a plan of its project. */
function locationWrites(trx: Transaction<Database>) {
  return {
    /** The item's place as its row holds it, with its plan's name. */
    location: (itemId: number) =>
      trx
        .selectFrom('items as i')
        .leftJoin('plans as p', 'p.id', 'i.plan_id')
        .select(['i.plan_id', 'i.plan_x', 'i.plan_y', 'p.name as plan_name'])
        .where('i.id', '=', itemId)
        .executeTakeFirstOrThrow(),

    /** A plan of the project (its name), or undefined: the place must be on a plan of the item's own project. */
    planOfProject: (planId: number, projectId: number) =>
      trx.selectFrom('plans').select(['id', 'name']).where('id', '=', planId).where('project_id', '=', projectId).executeTakeFirst(),

    /** The new place (null: on no plan), its history entry (`note`: the plan's name, null when taken off). */
    async setLocation(p: {
      itemId: number;
      place: { planId: number; x: number; y: number } | null;
      note: string | null;
      userId: number;
      now: string;
    }) {
      await trx
        .updateTable('items')
        .set({ plan_id: p.place?.planId ?? null, plan_x: p.place?.x ?? null, plan_y: p.place?.y ?? null, updated_at: p.now })
        .where('id', '=', p.itemId)
        .execute();
      await noteInHistory(trx, 'location_changed', p);
    },
  };
}

/** The responsible company and the dispute over it (docs/design.md §20). */
function companyWrites(trx: Transaction<Database>) {
  return {
    /** The item's responsible company (docs/design.md §20), with its name; null: none. */
    async responsibleCompany(itemId: number): Promise<{ id: number; name: string } | null> {
      const row = await trx
        .selectFrom('items as i')
        .innerJoin('companies as c', 'c.id', 'i.responsible_company_id')
        .select(['c.id', 'c.name'])
        .where('i.id', '=', itemId)
        .executeTakeFirst();
      return row ?? null;
    },

    /** A company that may be given an item now: it exists and is not retired. */
    choosableCompany: (companyId: number) =>
      trx.selectFrom('companies').select(['id', 'name']).where('id', '=', companyId).where('retired', '=', 0).executeTakeFirst(),

    /** The new responsible company (null: none) and its history entry (`note`: the company's name, null when cleared). */
    async setCompany(p: { itemId: number; companyId: number | null; note: string | null; userId: number; now: string }) {
      await trx.updateTable('items').set({ responsible_company_id: p.companyId, updated_at: p.now }).where('id', '=', p.itemId).execute();
      await noteInHistory(trx, 'company_changed', p);
    },

    /** The item's open dispute (docs/design.md §20): its `dispute_*` columns, all null when none. */
    dispute: (itemId: number) =>
      trx.selectFrom('items').select(['dispute_reason', 'dispute_by', 'dispute_at']).where('id', '=', itemId).executeTakeFirstOrThrow(),

    /** Opens (`dispute`) or closes (null) the item's dispute, with its history entry (`note`: the reason or the resolution). */
    async setDispute(p: { itemId: number; dispute: { reason: string; by: number } | null; note: string; userId: number; now: string }) {
      await trx
        .updateTable('items')
        .set({
          dispute_reason: p.dispute?.reason ?? null,
          dispute_by: p.dispute?.by ?? null,
          dispute_at: p.dispute ? p.now : null,
          updated_at: p.now,
        })
        .where('id', '=', p.itemId)
        .execute();
      await noteInHistory(trx, p.dispute ? 'disputed' : 'dispute_resolved', p);
    },
  };
}

/** The item's updated_at and its document links. */
function linkWrites(trx: Transaction<Database>) {
  return {
    async deleteItemLinks(itemId: number) {
      await trx.deleteFrom('document_links').where('item_id', '=', itemId).where('answer_id', 'is', null).execute();
    },

    /** Moves the item's updated_at: every change of the item or of what hangs on it. */
    async touch(itemId: number, now: string): Promise<void> {
      await touch.run({ itemId, now }, trx);
    },

    /** Inserts links of an item (answerId null) or of an answer, positions in list order; returns them in that order. */
    async insertDocumentLinks(
      itemId: number,
      answerId: number | null,
      links: readonly NewDocumentLink[],
      now: string,
    ): Promise<LinkView[]> {
      if (links.length === 0) return [];
      await trx
        .insertInto('document_links')
        .values(links.map((link, position) => ({ item_id: itemId, answer_id: answerId, ...link, position, created_at: now })))
        .execute();
      // Multi-row RETURNING order is not guaranteed on either dialect: read back by position.
      let query = trx.selectFrom('document_links').select(['id', 'kind', 'title', 'url']).where('item_id', '=', itemId);
      query = answerId === null ? query.where('answer_id', 'is', null) : query.where('answer_id', '=', answerId);
      const rows = await query.orderBy('position').orderBy('id').execute();
      return rows.map(linkView);
    },
  };
}

export function createItemsRepository(db: Kysely<Database>) {
  const q = itemQueries(db);
  const status = statusQueries(db);
  return {
    ...itemReads(q),

    /**
     * The statements of an item write, bound to its transaction (features/items/write-repositories.ts): the
     * reads above under the write's lock, and the changes.
     */
    bind: (trx: Transaction<Database>) => ({
      ...itemReads(q, trx),
      ...statusWrites(status, trx),
      ...planningWrites(trx),
      ...locationWrites(trx),
      ...companyWrites(trx),
      ...linkWrites(trx),
    }),
  };
}

export type ItemsRepository = ReturnType<typeof createItemsRepository>;
export type ItemWrites = ReturnType<ItemsRepository['bind']>;

// Every item write runs these: compiled once (db/precompiled.ts).
export const lockItem = precompileLazily((db: Kysely<Database>, p: { itemId: number }) =>
  db
    .updateTable('items')
    .set((eb) => ({ status: eb.ref('status') }))
    .where('id', '=', p.itemId)
    .returning(['project_id', 'section_id', 'checklist_id']),
);
