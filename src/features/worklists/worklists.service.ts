import { type Actor, type ItemTarget, type Membership, can } from '../../domain/policy.js';
import { ITEM_STATUSES, type ItemStatus } from '../../domain/values.js';
import { type Language, translator } from '../../i18n/i18n.js';
import { BALL_IN_COURT, type BallInCourt, ballInCourt } from '../../domain/ball-in-court.js';
import type { Clock } from '../../shared/clock.js';
import { parseWeek, weekOf } from '../../domain/weeks.js';
import type { ProjectsRepository } from '../projects/projects.repository.js';
import type { ProjectCard, ProjectsService, ProjectTree, TreeChecklist, TreeItem, TreeSection } from '../projects/projects.service.js';
import type { ProjectSearch } from '../search/project-search.js';
import type { WorklistsRepository } from './worklists.repository.js';

/** What the project page filters by; every filter narrows (they combine with AND). */
export interface ItemFilter {
  status: ItemStatus | null;
  /** Only items where the user is a participant. */
  mine: boolean;
  /** Only items past their deadline and not done. */
  overdue: boolean;
  /** Text, matched by the search feature (items whose text, comments, answers or links match). */
  q: string | null;
  /** Only items where this user (a member of the project) is a participant. */
  participant: number | null;
  // The dashboard's links (features/dashboard): absent is "any".
  /** Only items not done (the dashboard's "open"). */
  open?: boolean;
  /** Only items raised in the week starting that Monday (YYYY-MM-DD, UTC; domain/weeks.ts). */
  raised?: string | null;
  /** Only accepted items: accepted in the week starting that Monday, or at any time (`all`). */
  accepted?: string | null;
  /** Only items held by this company (docs/design.md §20). */
  company?: number | null;
  /** Only items whose move it is of `company`, `review` or `none` (docs/design.md §20, "Ball in court"). */
  ball?: BallInCourt | null;
  /** The order of the list: the project's tree (grouped by checklist), or one flat list by a field. */
  sort: ItemSort;
  /** Only items of this category (its name; docs/design.md §21). */
  category?: string | null;
  /** Only items holding these options, by choice field name (query `field.<name>=<option>`). */
  fields?: Record<string, string>;
}

/** The query prefix of a field's filter: `field.Severity=high`. */
export const FIELD_FILTER_PREFIX = 'field.';

export const ITEM_SORTS = ['tree', 'deadline', 'priority', 'status', 'updated', 'company'] as const;
export type ItemSort = (typeof ITEM_SORTS)[number];

function parseItemSort(value: string | undefined): ItemSort {
  return (ITEM_SORTS as readonly (string | undefined)[]).includes(value) ? (value as ItemSort) : 'tree';
}

/** The filter of a project's list from its query string (what `filterQuery` writes); anything malformed is left out. */
export function parseItemFilter(query: Record<string, string | undefined>): ItemFilter {
  const id = (value: string | undefined) => (value && /^[1-9][0-9]{0,15}$/.test(value) ? Number(value) : null);
  const participant = id(query.participant);
  return {
    status: parseItemStatus(query.status),
    mine: query.mine === '1',
    overdue: query.overdue === '1',
    q: query.q?.trim() || null,
    participant,
    open: query.open === '1',
    raised: parseWeek(query.raised),
    accepted: query.accepted === 'all' ? 'all' : parseWeek(query.accepted),
    company: id(query.company),
    ball: (BALL_IN_COURT as readonly (string | undefined)[]).includes(query.ball) ? (query.ball as BallInCourt) : null,
    sort: parseItemSort(query.sort),
    category: query.category?.trim() || null,
    fields: Object.fromEntries(
      Object.entries(query).flatMap(([key, value]) =>
        key.startsWith(FIELD_FILTER_PREFIX) && key.length > FIELD_FILTER_PREFIX.length && value
          ? [[key.slice(FIELD_FILTER_PREFIX.length), value]]
          : [],
      ),
    ),
  };
}

/**
 * The filter in words (a report's cover and the report page) in `language`; empty for the whole list in tree order.
 * What users typed (text, category, fields) is an argument, never a message.
 */
/** `names`: what the filter names by id, where the caller knows it (a company's name: "company Voltline", else "company #3"). */
export function describeFilter(filter: ItemFilter, language: Language = 'en', names: { company?: string } = {}): string[] {
  const t = translator(language);
  const words: string[] = [];
  if (filter.status) words.push(t('filter.status', { status: t(`report.status.${filter.status}`) }));
  if (filter.mine) words.push(t('filter.mine'));
  if (filter.overdue) words.push(t('filter.overdue'));
  if (filter.q) words.push(t('filter.text', { q: filter.q }));
  if (filter.participant !== null) words.push(t('filter.participant', { id: String(filter.participant) }));
  if (filter.open) words.push(t('filter.open'));
  if (filter.raised) words.push(t('filter.raised', { week: filter.raised }));
  if (filter.accepted) words.push(filter.accepted === 'all' ? t('filter.acceptedAll') : t('filter.accepted', { week: filter.accepted }));
  if (filter.category) words.push(t('filter.category', { name: filter.category }));
  for (const [name, value] of Object.entries(filter.fields ?? {})) words.push(`${name} ${value}`);
  if (filter.company != null) words.push(t('filter.company', { name: names.company ?? `#${filter.company}` }));
  if (filter.ball != null) words.push(t('filter.ball', { ball: filter.ball }));
  if (filter.sort !== 'tree') words.push(t('filter.sorted', { sort: filter.sort }));
  return words;
}

/** Past its deadline (before `day`, YYYY-MM-DD) and not done: the "Overdue" filter and the dashboard's figure. */
export const isOverdue = (item: { deadline: string | null; status: string }, day: string) =>
  item.deadline !== null && item.deadline < day && item.status !== 'done';

/** Sorted lists: open work first (blocked, then in progress, then pending), done last. */
const STATUS_ORDER: Record<string, number> = { blocked: 0, in_progress: 1, pending: 2, done: 3 };
const PRIORITY_ORDER: Record<string, number> = { high: 0, medium: 1, low: 2 };

interface SortableItem {
  status: string;
  priority: string;
  deadline: string | null;
  updated_at: string;
  responsible_company: { name: string } | null;
}

/** Compares two items by `sort`; equal ones keep the tree order (the sort is stable). */
const COMPARE: Record<Exclude<ItemSort, 'tree'>, (a: SortableItem, b: SortableItem) => number> = {
  // Earliest deadline first; items without one last.
  deadline: (a, b) =>
    a.deadline === b.deadline ? 0 : a.deadline === null ? 1 : b.deadline === null ? -1 : a.deadline < b.deadline ? -1 : 1,
  priority: (a, b) => (PRIORITY_ORDER[a.priority] ?? 9) - (PRIORITY_ORDER[b.priority] ?? 9),
  status: (a, b) => (STATUS_ORDER[a.status] ?? 9) - (STATUS_ORDER[b.status] ?? 9),
  // The most recently changed first.
  updated: (a, b) => (a.updated_at === b.updated_at ? 0 : a.updated_at > b.updated_at ? -1 : 1),
  // By the company's name; items held by none last.
  company: (a, b) => {
    const [x, y] = [a.responsible_company?.name ?? null, b.responsible_company?.name ?? null];
    return x === y ? 0 : x === null ? 1 : y === null ? -1 : x.localeCompare(y);
  },
};

const WORKLIST_PAGE_SIZE = 100;

/**
 * The filter of the project page from its query parameters: the page, its report links and the report
 * routes read it here, so a parameter added to the page reaches the reports by itself.
 */
function parseItemStatus(value: string | undefined): ItemStatus | null {
  return (ITEM_STATUSES as readonly (string | undefined)[]).includes(value) ? (value as ItemStatus) : null;
}

interface Page {
  page: number;
  pages: number;
  total: number;
}

/** An item of a project's list, where it sits, with its participants and the time it last changed. */
export interface ItemRow {
  section: TreeSection;
  checklist: TreeChecklist;
  item: TreeItem & { updated_at: string; participants: { id: number; name: string }[] };
}

/** The project's tree and every item that passes the filter, in the page's order. */
export interface FilteredItems {
  tree: ProjectTree;
  rows: ItemRow[];
  /** Today (YYYY-MM-DD): what "overdue" was read against. */
  day: string;
  members: { id: number; name: string; role: string }[];
  membership: Membership | null;
}

/** The project page's list: the tree with its counts per checklist, and one page of the items that pass the filter. */
export interface ProjectItems extends Page {
  project: ProjectCard;
  sections: TreeSection[];
  counts: Map<number, { items: number; done: number; matching: number }>;
  today: string;
  members: FilteredItems['members'];
  membership: Membership | null;
  rows: ItemRow[];
  /** The companies holding items the user sees in the project, by name (the page's filter offers them). */
  companies: { id: number; name: string }[];
}

/** A line of "My items": an item the user takes part in, with its project's name. */
export interface MyItemRow {
  id: number;
  project_id: number;
  section_id: number;
  checklist_id: number;
  text: string;
  status: string;
  priority: string;
  deadline: string | null;
  project_name: string;
  responsible_company: { id: number; name: string } | null;
  ball_in_court: BallInCourt;
}

export interface MyItems extends Page {
  today: string;
  rows: MyItemRow[];
}

interface ReviewPlace {
  project_id: number;
  section_id: number;
  checklist_id: number;
  project_name: string;
  item_id: number;
  item_text: string;
  /** Since when it waits: the answer's time, or when the item was done. */
  since: string;
}

/** A line of "To review": an answer waiting for its review, or a done item waiting for its verdict. */
export type ReviewRow =
  | (ReviewPlace & { kind: 'answer'; answer_id: number; author_name: string })
  | (ReviewPlace & { kind: 'verdict'; answer_id: null; author_name: null })
  | (ReviewPlace & { kind: 'dispute'; answer_id: null; author_name: null });

export interface ReviewQueue extends Page {
  rows: ReviewRow[];
  /** The navigation's count beside "To review": `total`, or null for those who review nowhere (no link). */
  toReview: number | null;
}

/** Which page of `total` rows is shown for the page `requested`, and where it starts. */
function pageAt(total: number, requested: number): Page & { offset: number } {
  const pages = Math.max(1, Math.ceil(total / WORKLIST_PAGE_SIZE));
  const page = Math.min(Math.max(1, requested), pages);
  return { page, pages, total, offset: (page - 1) * WORKLIST_PAGE_SIZE };
}

function pageOf<T>(list: T[], requested: number): Page & { rows: T[] } {
  const { offset, ...page } = pageAt(list.length, requested);
  return { rows: list.slice(offset, offset + WORKLIST_PAGE_SIZE), ...page };
}

/** Where a row of a list across projects sits, for the policy: the row's project is an active one (the lists skip archived ones). */
function rowTarget(
  row: { project_id: number; section_id: number; checklist_id: number; company_id?: number | null },
  memberships: Map<number, Membership>,
): ItemTarget {
  return {
    projectId: row.project_id,
    archived: false,
    membership: memberships.get(row.project_id) ?? null,
    sectionId: row.section_id,
    checklistId: row.checklist_id,
    participantIds: [],
    responsibleCompanyId: row.company_id,
  };
}

/** What the work lists' functions are given. */
export interface WorklistsDeps {
  repo: WorklistsRepository;
  projects: ProjectsService;
  projectsRepo: ProjectsRepository;
  search: ProjectSearch;
  clock: Clock;
}

/** Today's date (UTC, YYYY-MM-DD). */
function today(deps: WorklistsDeps): string {
  return deps.clock.now().toISOString().slice(0, 10);
}

/** Where the actor reviews: every project (null) or those they manage; nowhere: null. */
async function reviewScope(deps: WorklistsDeps, actor: Actor) {
  const memberships = await deps.projectsRepo.allMemberships(actor.id);
  const managed = [...memberships].filter(([, m]) => m.role === 'manager').map(([id]) => id);
  if (actor.role !== 'admin' && managed.length === 0) return null;
  return { memberships, projectIds: actor.role === 'admin' ? null : managed };
}

/**
 * What waits for the actor's review, counted per checklist in SQL with the policy applied to each checklist (it
 * depends on nothing finer): every web page shows the count, and loading the whole queue cost an admin ~600 ms
 * per page in the benchmark's 100 000-item workspace (docs/performance.md, "The web's pages"; the page itself is
 * cut in SQL: "To review"). Null: they review nowhere. `checklists`: those to list, or null for all of the scope's.
 */
async function reviewable(deps: WorklistsDeps, actor: Actor) {
  const scope = await reviewScope(deps, actor);
  if (!scope) return null;
  const counts = await deps.repo.reviewCounts(scope.projectIds);
  const allowed = counts.filter((c) => can(actor, 'answer.review', rowTarget(c, scope.memberships)));
  return {
    projectIds: scope.projectIds,
    checklists: allowed.length === counts.length ? null : [...new Set(allowed.map((c) => c.checklist_id))],
    total: allowed.reduce((n, c) => n + c.count, 0),
  };
}

/** "To review" (docs/design.md §14): answers waiting for review and done items without a verdict, oldest first. */
async function reviewQueue(deps: WorklistsDeps, actor: Actor, requestedPage: number): Promise<ReviewQueue> {
  const { repo } = deps;
  const queue = await reviewable(deps, actor);
  const { offset, ...page } = pageAt(queue?.total ?? 0, requestedPage);
  const toReview = queue?.total ?? null;
  if (!queue?.total) return { rows: [], ...page, toReview };
  const rows = await repo.reviewPage(queue.projectIds, queue.checklists, offset, WORKLIST_PAGE_SIZE);
  return { rows: rows as ReviewRow[], ...page, toReview };
}

/** The count beside "To review" in the navigation; null for those who review nowhere (no link). */
async function reviewCount(deps: WorklistsDeps, actor: Actor): Promise<number | null> {
  return (await reviewable(deps, actor))?.total ?? null;
}

/**
 * The project's sections and checklists with per-checklist counts, and one page of the items that pass the
 * filter, in tree order or sorted; each row with its participants. Also the project's members (the participant
 * filter's choices) and the user's membership (what the page offers them). The checklists list only the items
 * `named` (a bulk change's refusals, shown by their text), not the whole tree: a 5 000-item tree is ~1 MB to copy
 * from the worker thread that builds this (features/offload), and the page shows its counts.
 */
async function projectItems(
  deps: WorklistsDeps,
  actor: Actor,
  projectId: number,
  filter: ItemFilter,
  requestedPage: number,
  named: readonly number[] = [],
): Promise<ProjectItems> {
  const { tree, rows, day, members, membership } = await filteredItems(deps, actor, projectId, filter);
  const counts = new Map<number, { items: number; done: number; matching: number }>();
  for (const c of tree.sections.flatMap((s) => s.checklists)) {
    counts.set(c.id, { items: c.items.length, done: c.items.filter((i) => i.status === 'done').length, matching: 0 });
  }
  for (const row of rows) counts.get(row.checklist.id)!.matching++;
  const kept = new Set(named);
  const outline = new Map<TreeSection | TreeChecklist, TreeSection | TreeChecklist>();
  const sections = tree.sections.map((section) => {
    const checklists = section.checklists.map((checklist) => {
      const lighter = { ...checklist, items: checklist.items.filter((i) => kept.has(i.id)) };
      outline.set(checklist, lighter);
      return lighter;
    });
    const lighter = { ...section, checklists };
    outline.set(section, lighter);
    return lighter;
  });
  const page = pageOf(rows, requestedPage);
  const pageRows = page.rows.map((r) => ({
    ...r,
    section: outline.get(r.section) as TreeSection,
    checklist: outline.get(r.checklist) as TreeChecklist,
  }));
  const holders = new Map(
    tree.sections
      .flatMap((s) => s.checklists.flatMap((c) => c.items.flatMap((i) => (i.responsible_company ? [i.responsible_company] : []))))
      .map((c) => [c.id, c]),
  );
  const companies = [...holders.values()].sort((a, b) => a.name.localeCompare(b.name));
  return { project: tree.project, sections, counts, today: day, members, membership, ...page, rows: pageRows, companies };
}

/** The project's tree and every item that passes the filter, in the page's order (the reports list them all). */
async function filteredItems(deps: WorklistsDeps, actor: Actor, projectId: number, filter: ItemFilter): Promise<FilteredItems> {
  const { repo, projects, projectsRepo, search } = deps;
  const tree = await projects.getTree(actor, projectId);
  const [mine, matching, participants, updated, members, membership, dates] = await Promise.all([
    filter.mine ? repo.participantItemIds(actor.id, projectId) : null,
    filter.q ? search.matchingItemIds(actor, projectId, filter.q) : null,
    repo.participantsOf(projectId),
    repo.updatedAt(projectId),
    repo.projectMembers(projectId),
    projectsRepo.membership(actor.id, projectId),
    filter.raised || filter.accepted ? repo.itemDates(projectId) : null,
  ]);
  const day = today(deps);
  const acceptedAt = (id: number) => dates?.get(id)?.accepted_at ?? null;
  const fieldFilters = Object.entries(filter.fields ?? {});
  // The text filter finds items by their company's name too (docs/design.md §20).
  const needle = filter.q?.toLocaleLowerCase() ?? '';
  const heldByMatching = (i: TreeItem) => needle !== '' && (i.responsible_company?.name.toLocaleLowerCase().includes(needle) ?? false);
  const passes = (i: TreeItem) =>
    (filter.status === null || i.status === filter.status) &&
    (!filter.category || i.category === filter.category) &&
    fieldFilters.every(([name, value]) => i.fields[name] === value) &&
    (filter.company == null || i.responsible_company?.id === filter.company) &&
    (filter.ball == null || i.ball_in_court === filter.ball) &&
    (mine === null || mine.has(i.id)) &&
    (matching === null || matching.has(i.id) || heldByMatching(i)) &&
    (filter.participant === null || (participants.get(i.id) ?? []).some((p) => p.id === filter.participant)) &&
    (!filter.overdue || isOverdue(i, day)) &&
    (!filter.open || i.status !== 'done') &&
    (!filter.raised || weekOf(dates?.get(i.id)?.created_at ?? '') === filter.raised) &&
    (!filter.accepted || (acceptedAt(i.id) !== null && (filter.accepted === 'all' || weekOf(acceptedAt(i.id)!) === filter.accepted)));
  const rows = tree.sections.flatMap((section) =>
    section.checklists.flatMap((checklist) =>
      checklist.items.filter(passes).map((i) => ({
        section,
        checklist,
        item: { ...i, updated_at: updated.get(i.id) ?? '', participants: participants.get(i.id) ?? [] },
      })),
    ),
  );
  if (filter.sort !== 'tree') {
    const compare = COMPARE[filter.sort];
    rows.sort((a, b) => compare(a.item, b.item));
  }
  return { tree, rows, day, members, membership };
}

/** The items where the user is a participant, in the active projects they can see: open first, then by deadline. */
async function myItems(deps: WorklistsDeps, actor: Actor, requestedPage: number): Promise<MyItems> {
  const { repo, projectsRepo } = deps;
  const rows = await repo.participantItems(actor.id);
  const projectIds = [...new Set(rows.map((r) => r.project_id))];
  const memberships = await projectsRepo.memberships(actor.id, projectIds);
  const visible = rows
    .filter((r) => can(actor, 'read', rowTarget(r, memberships)))
    .map(({ verdict, dispute_at, company_id, company_name, answer_pending, ...r }) => ({
      ...r,
      responsible_company: company_id === null ? null : { id: company_id, name: company_name! },
      ball_in_court: ballInCourt({ status: r.status, verdict, answerPending: Boolean(answer_pending), disputed: dispute_at !== null }),
    }));
  return { today: today(deps), ...pageOf(visible, requestedPage) };
}

/**
 * The work lists of the web interface: a project's items filtered and paged (the tree with its counts),
 * and "My items" across projects. Visibility comes from the projects service and the one policy.
 */
export function createWorklistsService(deps: WorklistsDeps) {
  return {
    reviewQueue: reviewQueue.bind(null, deps),
    reviewCount: reviewCount.bind(null, deps),
    projectItems: projectItems.bind(null, deps),
    filteredItems: filteredItems.bind(null, deps),
    myItems: myItems.bind(null, deps),
  };
}

export type WorklistsService = ReturnType<typeof createWorklistsService>;
