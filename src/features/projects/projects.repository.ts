import { bindStatements } from '../../db/bind-statements.js';
import type { Kysely, Transaction } from 'kysely';
import { precompile } from '../../db/precompiled.js';
import type { Database, Project } from '../../db/tables.js';
import type { Membership } from '../../domain/policy.js';
import type { MemberRole } from '../../domain/values.js';
import { qualified, TREE_CHECKLIST_FIELDS, TREE_ITEM_FIELDS, TREE_SECTION_FIELDS } from '../caches/cached-columns.js';

export type ArchivedFilter = 'active' | 'archived' | 'all';

export interface StructureRows {
  sections: { id: number; project_id: number; name: string; position: number }[];
  checklists: { id: number; project_id: number; section_id: number; name: string; position: number }[];
}

export interface StatusCount {
  project_id: number;
  section_id: number;
  checklist_id: number;
  status: string;
  /** The items' responsible company (a member limited to their company's items counts theirs only). */
  company_id: number | null;
  count: number;
}

export function toMembership(row: {
  role: string;
  section_ids: string | null;
  checklist_ids: string | null;
  company_items_only?: number;
  company_id?: number | null;
}): Membership {
  return {
    role: row.role as MemberRole,
    sectionIds: row.section_ids === null ? null : (JSON.parse(row.section_ids) as number[]),
    checklistIds: row.checklist_ids === null ? null : (JSON.parse(row.checklist_ids) as number[]),
    companyItems: row.company_items_only === 1 ? { companyId: row.company_id ?? null } : null,
  };
}

/** The columns toMembership reads, from `project_members as m` joined with `users as u` (docs/design.md §20). */
const MEMBERSHIP_COLUMNS = ['m.role', 'm.section_ids', 'm.checklist_ids', 'm.company_items_only', 'u.company_id'] as const;

async function memberships(db: Kysely<Database>, userId: number, projectIds: number[]): Promise<Map<number, Membership>> {
  if (projectIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('project_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.project_id', ...MEMBERSHIP_COLUMNS])
    .where('m.user_id', '=', userId)
    .where('m.project_id', 'in', projectIds)
    .execute();
  return new Map(rows.map((r) => [r.project_id, toMembership(r)]));
}

/** Every membership of the user, by project. */
async function allMemberships(db: Kysely<Database>, userId: number): Promise<Map<number, Membership>> {
  const rows = await db
    .selectFrom('project_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.project_id', ...MEMBERSHIP_COLUMNS])
    .where('m.user_id', '=', userId)
    .execute();
  return new Map(rows.map((r) => [r.project_id, toMembership(r)]));
}

/**
 * A page of projects ordered by id; `memberId` restricts to that user's projects, `projectIds` (a token's
 * limit) to those projects.
 */
async function page(
  db: Kysely<Database>,
  filter: {
    archived: ArchivedFilter;
    memberId: number | null;
    projectIds?: readonly number[] | null;
    limit: number;
    offset: number;
  },
) {
  let base = db.selectFrom('projects as p');
  if (filter.projectIds != null) {
    if (filter.projectIds.length === 0) return { rows: [], total: 0 };
    base = base.where('p.id', 'in', [...filter.projectIds]);
  }
  if (filter.memberId !== null) {
    base = base.innerJoin('project_members as m', (j) => j.onRef('m.project_id', '=', 'p.id').on('m.user_id', '=', filter.memberId));
  }
  if (filter.archived !== 'all') base = base.where('p.archived', '=', filter.archived === 'archived' ? 1 : 0);
  const [rows, count] = await Promise.all([
    base.selectAll('p').orderBy('p.id').limit(filter.limit).offset(filter.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

async function structure(db: Kysely<Database>, projectIds: number[]): Promise<StructureRows> {
  if (projectIds.length === 0) return { sections: [], checklists: [] };
  const [sections, checklists] = await Promise.all([
    db.selectFrom('sections').select(TREE_SECTION_FIELDS).where('project_id', 'in', projectIds).orderBy('position').orderBy('id').execute(),
    db
      .selectFrom('checklists')
      .select(TREE_CHECKLIST_FIELDS)
      .where('project_id', 'in', projectIds)
      .orderBy('position')
      .orderBy('id')
      .execute(),
  ]);
  return { sections, checklists };
}

async function statusCounts(db: Kysely<Database>, projectIds: number[]): Promise<StatusCount[]> {
  if (projectIds.length === 0) return [];
  const rows = await db
    .selectFrom('items')
    .select(['project_id', 'section_id', 'checklist_id', 'status', 'responsible_company_id as company_id'])
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('project_id', 'in', projectIds)
    .groupBy(['project_id', 'section_id', 'checklist_id', 'status', 'responsible_company_id'])
    .execute();
  return rows.map((r) => ({ ...r, count: Number(r.count) }));
}

/**
 * The project's items in their order, each with its place on a plan (the plan's name: null when on none), its
 * responsible company and what decides whose move it is (docs/design.md §20).
 */
function itemsOf(db: Kysely<Database>, projectId: number) {
  return (
    db
      .selectFrom('items as i')
      .leftJoin('plans as pl', 'pl.id', 'i.plan_id')
      .leftJoin('categories as cat', 'cat.id', 'i.category_id')
      .leftJoin('companies as co', 'co.id', 'i.responsible_company_id')
      // Whose move it is (docs/design.md §20) waits on an answer to review.
      .select((eb) => [
        eb
          .exists(eb.selectFrom('answers as a').select('a.id').whereRef('a.item_id', '=', 'i.id').where('a.status', '=', 'pending'))
          .as('answer_pending'),
      ])
      // What a line of the tree shows is declared with the cache's columns (features/caches/cached-columns.ts).
      .select([
        ...qualified('i', TREE_ITEM_FIELDS),
        'pl.name as plan_name',
        'cat.name as category',
        'co.id as company_id',
        'co.name as company_name',
      ])
      .where('i.project_id', '=', projectId)
      .orderBy('i.position')
      .orderBy('i.id')
      .execute()
  );
}

/** The custom field values of the project's items (docs/design.md §21), with their field's name, in the fields' order. */
function fieldValuesOf(db: Kysely<Database>, projectId: number) {
  return db
    .selectFrom('item_field_values as v')
    .innerJoin('custom_fields as f', 'f.id', 'v.field_id')
    .select(['v.item_id', 'f.name', 'v.text_value', 'v.number_value', 'v.date_value', 'v.option_value'])
    .where('v.project_id', '=', projectId)
    .orderBy('f.position')
    .orderBy('f.id')
    .execute();
}

export function createProjectsRepository(db: Kysely<Database>) {
  // Run by every item and project request (access checks): compiled once (db/precompiled.ts).
  const projectById = precompile(db, (db, p: { id: number }) => db.selectFrom('projects').selectAll().where('id', '=', p.id));
  const membershipOf = precompile(db, (db, p: { userId: number; projectId: number }) =>
    db
      .selectFrom('project_members as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select(MEMBERSHIP_COLUMNS)
      .where('m.user_id', '=', p.userId)
      .where('m.project_id', '=', p.projectId),
  );
  /** The reads of an access check, on `executor` (undefined: the database). */
  const accessReads = (executor?: Transaction<Database>) => ({
    findProject(id: number): Promise<Project | undefined> {
      return projectById.executeTakeFirst({ id }, executor);
    },

    async membership(userId: number, projectId: number): Promise<Membership | null> {
      const row = await membershipOf.executeTakeFirst({ userId, projectId }, executor);
      return row ? toMembership(row) : null;
    },
  });
  return {
    ...bindStatements(db, { memberships, allMemberships, page, structure, statusCounts, itemsOf, fieldValuesOf }),
    ...accessReads(),

    /** The access reads bound to a write's transaction (they run under its lock): features/items/write-repositories.ts. */
    bind: (trx: Transaction<Database>) => accessReads(trx),
  };
}

export type ProjectsRepository = ReturnType<typeof createProjectsRepository>;
/** What an access check reads: the database's repository, or the one bound to a write's transaction. */
export type ProjectAccessReads = ReturnType<ProjectsRepository['bind']>;
