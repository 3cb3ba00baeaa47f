import type { Clock } from '../../shared/clock.js';
import { BALL_IN_COURT, type BallInCourt } from '../../domain/ball-in-court.js';
import type { Actor } from '../../domain/policy.js';
import { ITEM_STATUSES, type ItemStatus } from '../../domain/values.js';
import { daysBetween, lastWeeks, median, weekOf } from '../../domain/weeks.js';
import type { ProjectsService } from '../projects/projects.service.js';
import { isOverdue } from '../worklists/worklists.service.js';
import type { WorklistsRepository } from '../worklists/worklists.repository.js';

/** How many weeks the dashboard's "raised and closed" looks back, the current one included. */
export const DASHBOARD_WEEKS = 12;

/** The figures of a project's dashboard (docs/design.md §23), of the items the actor can see. */
export interface ProjectFigures {
  project: { id: number; name: string };
  total: number;
  byStatus: Record<ItemStatus, number>;
  /** Not done. */
  open: number;
  overdue: number;
  /** Accepted (their verdict), at any time. */
  accepted: number;
  /** Raised and accepted per week (its Monday, UTC), oldest first. */
  weeks: { week: string; raised: number; accepted: number }[];
  /** Median days from raised to accepted over the accepted items; null when none is. */
  medianDaysToAccept: number | null;
  /** Every item by whose move it waits on (docs/design.md §20): the three sum to `total`. */
  byBall: Record<BallInCourt, number>;
  /** Every item by the company holding it, most first (then by name), those held by none last (`id` null). */
  byCompany: CompanyCount[];
  /** Every item by its category (its name, as the list's filter), most first, those of none last (`name` null). */
  byCategory: CategoryCount[];
}

export interface CompanyCount {
  id: number | null;
  name: string | null;
  count: number;
}

export interface CategoryCount {
  name: string | null;
  count: number;
}

/** Every active project the actor sees, each with its figures, and the same summed. */
export interface DashboardOverview {
  today: string;
  projects: ProjectFigures[];
  totals: Omit<ProjectFigures, 'project'>;
}

interface FigureItem {
  id: number;
  status: string;
  deadline: string | null;
  ball_in_court: BallInCourt;
  responsible_company: { id: number; name: string } | null;
  category: string | null;
}

/** Counts by key, most first, then by label (the locale-independent order), the key of none last. */
function ranked<T extends { count: number }>(counts: Map<string, T>, label: (row: T) => string | null): T[] {
  return [...counts.values()].sort((a, b) => {
    const [x, y] = [label(a), label(b)];
    if ((x === null) !== (y === null)) return x === null ? 1 : -1;
    return b.count - a.count || ((x ?? '') < (y ?? '') ? -1 : (x ?? '') > (y ?? '') ? 1 : 0);
  });
}

/** Adds `row` (by its key) to `counts`. */
function add<T extends { count: number }>(counts: Map<string, T>, key: string, row: T): void {
  const known = counts.get(key);
  if (known) known.count += row.count;
  else counts.set(key, { ...row });
}

const companyKey = (id: number | null) => (id === null ? '-' : String(id));
const categoryKey = (name: string | null) => (name === null ? '-' : `:${name}`);

interface Dates {
  created_at: string;
  accepted_at: string | null;
}

/** The figures of `items` (what the actor sees) on `today`; `acceptDays` collects the raised-to-accepted durations. */
function figuresOf(items: FigureItem[], dates: Map<number, Dates>, today: string, acceptDays: number[]) {
  const weeks = lastWeeks(today, DASHBOARD_WEEKS).map((week) => ({ week, raised: 0, accepted: 0 }));
  const byWeek = new Map(weeks.map((w) => [w.week, w]));
  const byStatus = Object.fromEntries(ITEM_STATUSES.map((s) => [s, 0])) as Record<ItemStatus, number>;
  const byBall = Object.fromEntries(BALL_IN_COURT.map((b) => [b, 0])) as Record<BallInCourt, number>;
  const companies = new Map<string, CompanyCount>();
  const categories = new Map<string, CategoryCount>();
  let overdue = 0;
  let accepted = 0;
  for (const item of items) {
    if (item.status in byStatus) byStatus[item.status as ItemStatus]++;
    byBall[item.ball_in_court]++;
    const company = item.responsible_company;
    add(companies, companyKey(company?.id ?? null), { id: company?.id ?? null, name: company?.name ?? null, count: 1 });
    add(categories, categoryKey(item.category), { name: item.category, count: 1 });
    if (isOverdue(item, today)) overdue++;
    const when = dates.get(item.id);
    if (!when) continue;
    const raisedIn = byWeek.get(weekOf(when.created_at));
    if (raisedIn) raisedIn.raised++;
    if (when.accepted_at === null) continue;
    accepted++;
    acceptDays.push(Math.max(0, daysBetween(when.created_at, when.accepted_at)));
    const acceptedIn = byWeek.get(weekOf(when.accepted_at));
    if (acceptedIn) acceptedIn.accepted++;
  }
  return {
    total: items.length,
    byStatus,
    open: items.length - byStatus.done,
    overdue,
    accepted,
    weeks,
    byBall,
    byCompany: ranked(companies, (c) => c.name),
    byCategory: ranked(categories, (c) => c.name),
  };
}

/**
 * The dashboard's figures (docs/design.md §23), computed from the same visible tree and the same predicates as the
 * project list's filters (worklists), so each figure opens a list of exactly the items it counts. Heavy for large
 * workspaces (every item of every project): the web runs it in the worker pool and caches it (dashboard-cache.ts).
 */
export function createDashboardService(deps: { projects: ProjectsService; repo: Pick<WorklistsRepository, 'itemDates'>; clock: Clock }) {
  const { projects, repo, clock } = deps;
  const today = () => clock.now().toISOString().slice(0, 10);

  async function figures(actor: Actor, projectId: number, day: string, acceptDays: number[]): Promise<ProjectFigures> {
    const [tree, dates] = await Promise.all([projects.getTree(actor, projectId), repo.itemDates(projectId)]);
    const items = tree.sections.flatMap((s) => s.checklists.flatMap((c) => c.items));
    const own: number[] = [];
    const counted = figuresOf(items, dates, day, own);
    acceptDays.push(...own);
    return { project: { id: tree.project.id, name: tree.project.name }, ...counted, medianDaysToAccept: median(own) };
  }

  return {
    /** A project's dashboard (404 when the actor cannot see the project). */
    async project(actor: Actor, projectId: number): Promise<ProjectFigures> {
      return figures(actor, projectId, today(), []);
    },

    /** Across the active projects the actor sees, one after another (each a tree's worth of work). */
    async overview(actor: Actor, projectIds: readonly number[]): Promise<DashboardOverview> {
      const day = today();
      const acceptDays: number[] = [];
      const list: ProjectFigures[] = [];
      for (const id of projectIds) list.push(await figures(actor, id, day, acceptDays));
      const totals = {
        ...figuresOf([], new Map(), day, []),
        medianDaysToAccept: median(acceptDays),
      };
      const companies = new Map<string, CompanyCount>();
      const categories = new Map<string, CategoryCount>();
      for (const p of list) {
        for (const b of BALL_IN_COURT) totals.byBall[b] += p.byBall[b];
        for (const c of p.byCompany) add(companies, companyKey(c.id), c);
        for (const c of p.byCategory) add(categories, categoryKey(c.name), c);
        totals.total += p.total;
        totals.open += p.open;
        totals.overdue += p.overdue;
        totals.accepted += p.accepted;
        for (const s of ITEM_STATUSES) totals.byStatus[s] += p.byStatus[s];
        p.weeks.forEach((w, i) => {
          totals.weeks[i]!.raised += w.raised;
          totals.weeks[i]!.accepted += w.accepted;
        });
      }
      totals.byCompany = ranked(companies, (c) => c.name);
      totals.byCategory = ranked(categories, (c) => c.name);
      return { today: day, projects: list, totals };
    },
  };
}

export type DashboardService = ReturnType<typeof createDashboardService>;
