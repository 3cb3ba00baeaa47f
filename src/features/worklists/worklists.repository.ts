import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/tables.js';
import { bindStatements } from '../../db/bind-statements.js';

/** Where an item sits: what the policy decides on (the lists across projects check each row, or each checklist). */
const PLACE = ['i.project_id', 'i.section_id', 'i.checklist_id'] as const;

/** The two kinds of what waits for a review, in the active projects (`projectIds`, or all when null), unselected. */
function waitingForReview(db: Kysely<Database>, projectIds: readonly number[] | null) {
  let answers = db
    .selectFrom('answers as a')
    .innerJoin('items as i', 'i.id', 'a.item_id')
    .innerJoin('projects as p', 'p.id', 'i.project_id')
    .where('a.status', '=', 'pending')
    .where('p.archived', '=', 0);
  let done = db
    .selectFrom('items as i')
    .innerJoin('projects as p', 'p.id', 'i.project_id')
    .where('i.status', '=', 'done')
    .where('i.verdict', 'is', null)
    .where('p.archived', '=', 0);
  // Items an executor disputes (docs/design.md §20): a manager resolves them.
  let disputes = db
    .selectFrom('items as i')
    .innerJoin('projects as p', 'p.id', 'i.project_id')
    .where('i.dispute_at', 'is not', null)
    .where('p.archived', '=', 0);
  if (projectIds !== null) {
    answers = answers.where('i.project_id', 'in', [...projectIds]);
    done = done.where('i.project_id', 'in', [...projectIds]);
    disputes = disputes.where('i.project_id', 'in', [...projectIds]);
  }
  return { answers, done, disputes };
}

/** Ids of the items of one project where the user is a participant. */
async function participantItemIds(db: Kysely<Database>, userId: number, projectId: number): Promise<Set<number>> {
  const rows = await db
    .selectFrom('item_participants as ip')
    .innerJoin('items as i', 'i.id', 'ip.item_id')
    .select('i.id')
    .where('ip.user_id', '=', userId)
    .where('i.project_id', '=', projectId)
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** When each item of a project last changed, for sorting by "updated". */
async function updatedAt(db: Kysely<Database>, projectId: number): Promise<Map<number, string>> {
  const rows = await db.selectFrom('items').select(['id', 'updated_at']).where('project_id', '=', projectId).execute();
  return new Map(rows.map((r) => [r.id, r.updated_at]));
}

/**
 * When each item of a project was raised, and when it was accepted (its last "accepted" verdict, while it still
 * has that verdict; an imported item accepted without a history entry: its last change). The dashboard's weeks
 * and its median, and the project list's filters they link to.
 */
async function itemDates(
  db: Kysely<Database>,
  projectId: number,
): Promise<Map<number, { created_at: string; accepted_at: string | null }>> {
  const rows = await db
    .selectFrom('items as i')
    .leftJoin('item_history as h', (join) =>
      join.onRef('h.item_id', '=', 'i.id').on('h.kind', '=', 'verdict_set').on('h.note', '=', 'accepted'),
    )
    .select(['i.id', 'i.created_at', 'i.verdict', 'i.updated_at', (eb) => eb.fn.max('h.at').as('accepted_at')])
    .where('i.project_id', '=', projectId)
    .groupBy(['i.id', 'i.created_at', 'i.verdict', 'i.updated_at'])
    .execute();
  return new Map(
    rows.map((r) => [r.id, { created_at: r.created_at, accepted_at: r.verdict === 'accepted' ? (r.accepted_at ?? r.updated_at) : null }]),
  );
}

/** The participants of each item of a project (by item id), with their names, in name order. */
async function participantsOf(db: Kysely<Database>, projectId: number): Promise<Map<number, { id: number; name: string }[]>> {
  const rows = await db
    .selectFrom('item_participants as ip')
    .innerJoin('items as i', 'i.id', 'ip.item_id')
    .innerJoin('users as u', 'u.id', 'ip.user_id')
    .select(['ip.item_id', 'u.id', 'u.name'])
    .where('i.project_id', '=', projectId)
    .orderBy('u.name')
    .orderBy('u.id')
    .execute();
  const byItem = new Map<number, { id: number; name: string }[]>();
  for (const r of rows) {
    const list = byItem.get(r.item_id) ?? [];
    list.push({ id: r.id, name: r.name });
    byItem.set(r.item_id, list);
  }
  return byItem;
}

/** The active users who are members of a project, in name order: who can be picked as a participant. */
function projectMembers(db: Kysely<Database>, projectId: number) {
  return db
    .selectFrom('project_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.id', 'u.name', 'm.role'])
    .where('m.project_id', '=', projectId)
    .where('u.active', '=', 1)
    .orderBy('u.name')
    .orderBy('u.id')
    .execute();
}

/** The items of active projects where the user is a participant: open ones first, then by deadline (none last), then id. */
function participantItems(db: Kysely<Database>, userId: number) {
  return (
    db
      .selectFrom('item_participants as ip')
      .innerJoin('items as i', 'i.id', 'ip.item_id')
      .innerJoin('projects as p', 'p.id', 'i.project_id')
      .leftJoin('companies as co', 'co.id', 'i.responsible_company_id')
      .select(['i.id', 'i.text', 'i.status', 'i.priority', 'i.deadline', ...PLACE, 'p.name as project_name'])
      // What decides whose move it is (docs/design.md §20).
      .select(['i.verdict', 'i.dispute_at', 'co.id as company_id', 'co.name as company_name'])
      .select((eb) =>
        eb
          .exists(eb.selectFrom('answers as a').select('a.id').whereRef('a.item_id', '=', 'i.id').where('a.status', '=', 'pending'))
          .as('answer_pending'),
      )
      .where('ip.user_id', '=', userId)
      .where('p.archived', '=', 0)
      .orderBy((eb) => eb.case().when('i.status', '=', 'done').then(1).else(0).end())
      .orderBy((eb) => eb.case().when('i.deadline', 'is', null).then(1).else(0).end())
      .orderBy('i.deadline')
      .orderBy('i.id')
      .execute()
  );
}

/** How many rows reviewPage lists, per checklist (the policy is applied to each). */
async function reviewCounts(db: Kysely<Database>, projectIds: readonly number[] | null) {
  if (projectIds !== null && projectIds.length === 0) return [];
  const count = db.fn.countAll<number | string>().as('count');
  const { answers, done, disputes } = waitingForReview(db, projectIds);
  const rows = await Promise.all([
    disputes
      .select([...PLACE, count])
      .groupBy([...PLACE])
      .execute(),
    answers
      .select([...PLACE, count])
      .groupBy([...PLACE])
      .execute(),
    done
      .select([...PLACE, count])
      .groupBy([...PLACE])
      .execute(),
  ]);
  return rows.flat().map((r) => ({ ...r, count: Number(r.count) }));
}

/**
 * One page of what waits for a review in the active projects (`projectIds`, or all when null) and, when named,
 * only in `checklistIds`: answers pending review and done items without a verdict, each with where it is,
 * oldest first (then by item, answers before the verdict). Sorted and cut in SQL: an admin's queue in a large
 * workspace is tens of thousands of rows (docs/performance.md, "To review").
 */
async function reviewPage(
  db: Kysely<Database>,
  projectIds: readonly number[] | null,
  checklistIds: readonly number[] | null,
  offset: number,
  limit: number,
) {
  if (projectIds?.length === 0 || checklistIds?.length === 0) return [];
  let { answers, done, disputes } = waitingForReview(db, projectIds);
  if (checklistIds !== null) {
    answers = answers.where('i.checklist_id', 'in', [...checklistIds]);
    done = done.where('i.checklist_id', 'in', [...checklistIds]);
    disputes = disputes.where('i.checklist_id', 'in', [...checklistIds]);
  }
  // The keys are sorted and cut first; only the page's rows are read whole.
  const keys = done
    .select([
      sql<'answer' | 'verdict' | 'dispute'>`'verdict'`.as('kind'),
      'i.id as item_id',
      sql<number | null>`null`.as('answer_id'),
      'i.updated_at as since',
    ])
    .unionAll(answers.select([sql<'answer'>`'answer'`.as('kind'), 'a.item_id', 'a.id as answer_id', 'a.created_at as since']))
    .unionAll(
      disputes.select([
        sql<'dispute'>`'dispute'`.as('kind'),
        'i.id as item_id',
        sql<number | null>`null`.as('answer_id'),
        sql<string>`i.dispute_at`.as('since'),
      ]),
    )
    .orderBy('since')
    .orderBy('item_id')
    .orderBy('kind')
    .orderBy('answer_id')
    .limit(limit)
    .offset(offset);
  return db
    .selectFrom(keys.as('k'))
    .innerJoin('items as i', 'i.id', 'k.item_id')
    .innerJoin('projects as p', 'p.id', 'i.project_id')
    .leftJoin('answers as a', 'a.id', 'k.answer_id')
    .leftJoin('users as u', 'u.id', 'a.author_id')
    .select([
      'k.kind',
      'k.item_id',
      'k.answer_id',
      'k.since',
      'i.text as item_text',
      ...PLACE,
      'p.name as project_name',
      'u.name as author_name',
    ])
    .orderBy('k.since')
    .orderBy('k.item_id')
    .orderBy('k.kind')
    .orderBy('k.answer_id')
    .execute();
}

/** The queries behind the work lists: the items a user takes part in. */
export function createWorklistsRepository(db: Kysely<Database>) {
  return bindStatements(db, {
    participantItemIds,
    updatedAt,
    itemDates,
    participantsOf,
    projectMembers,
    participantItems,
    reviewCounts,
    reviewPage,
  });
}

export type WorklistsRepository = ReturnType<typeof createWorklistsRepository>;
