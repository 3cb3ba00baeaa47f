import { ballInCourt, type BallInCourt } from '../../domain/ball-in-court.js';
import {
  type Actor,
  canOnProject,
  type Membership,
  projectLimit,
  seesChecklist,
  seesCompanyItem,
  seesSection,
} from '../../domain/policy.js';
import { ITEM_STATUSES } from '../../domain/values.js';
import type { Project } from '../../db/tables.js';
import { notFound } from '../../shared/errors.js';
import { fieldsView } from '../../domain/vocabulary.js';
import type { ArchivedFilter, ProjectAccessReads, ProjectsRepository, StatusCount, StructureRows } from './projects.repository.js';

export interface ProjectCard {
  id: number;
  name: string;
  description: string;
  deadline: string | null;
  verdict: string | null;
  archived: boolean;
  progress: { done: number; total: number; percent: number };
  counters: { sections: number; checklists: number; items: number; pending: number; in_progress: number; done: number; blocked: number };
  created_at: string;
  updated_at: string;
}

/** An item as a line of the project tree (the project page lists them under their checklists). */
export interface TreeItem {
  id: number;
  text: string;
  status: string;
  priority: string;
  deadline: string | null;
  requires_answer: boolean;
  /** Its place on a plan (docs/design.md §19), as the item card shows it; null when on none. */
  location: { plan_id: number; plan_name: string; x: number; y: number } | null;
  /** Its category's name and custom field values (docs/design.md §21), as the item card shows them. */
  category: string | null;
  fields: Record<string, string>;
  /** docs/design.md §20: the company that holds it, and whose move it is. */
  responsible_company: { id: number; name: string } | null;
  ball_in_court: BallInCourt;
}

export interface TreeChecklist {
  id: number;
  name: string;
  position: number;
  items: TreeItem[];
}

export interface TreeSection {
  id: number;
  name: string;
  position: number;
  checklists: TreeChecklist[];
}

/** One page of the projects the actor sees (v1 projects/list, the web's project list). */
export interface ProjectList {
  projects: ProjectCard[];
  total: number;
  limit: number;
  offset: number;
}

/** The project with the sections, checklists and items the actor sees, in their order. */
export interface ProjectTree {
  project: ProjectCard;
  sections: TreeSection[];
}

/** What a user sees of one project: `all`, or the ids of visible sections and checklists. */
interface ProjectVisibility {
  projectId: number;
  sectionIds: ReadonlySet<number> | 'all';
  checklistIds: ReadonlySet<number> | 'all';
  /** docs/design.md §20: set when only the items of that company (null: none) are visible. */
  companyItems?: { companyId: number | null } | null;
}

interface ProjectAccess {
  project: Project;
  membership: Membership | null;
}

/** Admins see everything; a member sees per membership (partial access narrows it). */
function visibleParts(actor: Actor, membership: Membership | null, structure: StructureRows, projectId: number) {
  const sections = structure.sections.filter((s) => s.project_id === projectId);
  const checklists = structure.checklists.filter((c) => c.project_id === projectId);
  if (actor.role === 'admin' || !membership) return { sections, checklists };
  return {
    sections: sections.filter((s) =>
      seesSection(
        membership,
        s.id,
        checklists.filter((c) => c.section_id === s.id).map((c) => c.id),
      ),
    ),
    checklists: checklists.filter((c) => seesChecklist(membership, c.section_id, c.id)),
  };
}

function buildCard(
  actor: Actor,
  project: Project,
  membership: Membership | null,
  parts: ReturnType<typeof visibleParts>,
  counts: StatusCount[],
): ProjectCard {
  const visible = new Set(parts.checklists.map((c) => c.id));
  // A member limited to their company's items counts only those (docs/design.md §20).
  const seen = (companyId: number | null) => actor.role === 'admin' || !membership || seesCompanyItem(membership, companyId);
  const byStatus: Record<string, number> = Object.fromEntries(ITEM_STATUSES.map((s) => [s, 0]));
  let items = 0;
  for (const row of counts) {
    if (row.project_id !== project.id || !visible.has(row.checklist_id) || !seen(row.company_id)) continue;
    items += row.count;
    byStatus[row.status] = (byStatus[row.status] ?? 0) + row.count;
  }
  const done = byStatus.done ?? 0;
  return {
    id: project.id,
    name: project.name,
    description: project.description,
    deadline: project.deadline,
    verdict: project.verdict,
    archived: project.archived === 1,
    progress: { done, total: items, percent: items === 0 ? 0 : Math.floor((100 * done) / items) },
    counters: {
      sections: parts.sections.length,
      checklists: parts.checklists.length,
      items,
      pending: byStatus.pending ?? 0,
      in_progress: byStatus.in_progress ?? 0,
      done,
      blocked: byStatus.blocked ?? 0,
    },
    created_at: project.created_at,
    updated_at: project.updated_at,
  };
}

export interface ProjectsDeps {
  repo: ProjectsRepository;
}

type TreeItemRow = Awaited<ReturnType<ProjectsRepository['itemsOf']>>[number];
type FieldValueRow = Awaited<ReturnType<ProjectsRepository['fieldValuesOf']>>[number];

async function cards(deps: ProjectsDeps, actor: Actor, projects: Project[], memberships: Map<number, Membership>): Promise<ProjectCard[]> {
  const ids = projects.map((p) => p.id);
  const [structure, counts] = await Promise.all([deps.repo.structure(ids), deps.repo.statusCounts(ids)]);
  return projects.map((p) => {
    const membership = memberships.get(p.id) ?? null;
    return buildCard(actor, p, membership, visibleParts(actor, membership, structure, p.id), counts);
  });
}

/**
 * The project and the actor's membership, or 404 when the actor cannot see it. `reads`: the repositories
 * of a structural write (the check runs under the project's lock), else the database's.
 */
async function access(deps: ProjectsDeps, actor: Actor, projectId: number, reads: ProjectAccessReads = deps.repo): Promise<ProjectAccess> {
  const [project, membership] = await Promise.all([reads.findProject(projectId), reads.membership(actor.id, projectId)]);
  if (!project || !canOnProject(actor, 'read', { projectId, archived: project.archived === 1, membership })) {
    throw notFound('The project');
  }
  return { project, membership };
}

async function listProjects(
  deps: ProjectsDeps,
  actor: Actor,
  filter: { archived: ArchivedFilter; limit: number; offset: number },
): Promise<ProjectList> {
  const memberId = actor.role === 'admin' ? null : actor.id;
  const { rows, total } = await deps.repo.page({ ...filter, memberId, projectIds: projectLimit(actor) });
  const memberships = await deps.repo.memberships(
    actor.id,
    rows.map((p) => p.id),
  );
  return { projects: await cards(deps, actor, rows, memberships), total, limit: filter.limit, offset: filter.offset };
}

/** The ids of the projects the actor sees (as listProjects lists them), without their cards: the dashboard's. */
async function projectIds(deps: ProjectsDeps, actor: Actor, archived: ArchivedFilter): Promise<number[]> {
  const memberId = actor.role === 'admin' ? null : actor.id;
  const { rows } = await deps.repo.page({
    archived,
    memberId,
    projectIds: projectLimit(actor),
    limit: Number.MAX_SAFE_INTEGER,
    offset: 0,
  });
  return rows.map((p) => p.id);
}

async function getProject(deps: ProjectsDeps, actor: Actor, projectId: number): Promise<{ project: ProjectCard }> {
  const { project, membership } = await access(deps, actor, projectId);
  const [card] = await cards(deps, actor, [project], new Map(membership ? [[project.id, membership]] : []));
  return { project: card! };
}

/** Rows grouped by a key, each group in the rows' order. */
function groupBy<T>(rows: readonly T[], key: (row: T) => number): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const row of rows) {
    const list = groups.get(key(row)) ?? [];
    list.push(row);
    groups.set(key(row), list);
  }
  return groups;
}

/** One item of the tree, with its field values. */
function treeItem(i: TreeItemRow, values: FieldValueRow[]) {
  return {
    id: i.id,
    text: i.text,
    status: i.status,
    priority: i.priority,
    deadline: i.deadline,
    requires_answer: i.requires_answer === 1,
    location:
      i.plan_id === null || i.plan_name === null ? null : { plan_id: i.plan_id, plan_name: i.plan_name, x: i.plan_x!, y: i.plan_y! },
    category: i.category,
    fields: fieldsView(values),
    responsible_company: i.company_id === null ? null : { id: i.company_id, name: i.company_name! },
    ball_in_court: ballInCourt({
      status: i.status,
      verdict: i.verdict,
      answerPending: Boolean(i.answer_pending),
      disputed: i.dispute_at !== null,
    }),
  };
}

async function getTree(deps: ProjectsDeps, actor: Actor, projectId: number): Promise<ProjectTree> {
  const { repo } = deps;
  const { project, membership } = await access(deps, actor, projectId);
  const [structure, counts, items, fieldRows] = await Promise.all([
    repo.structure([projectId]),
    repo.statusCounts([projectId]),
    repo.itemsOf(projectId),
    repo.fieldValuesOf(projectId),
  ]);
  const valuesByItem = groupBy(fieldRows, (row) => row.item_id);
  const parts = visibleParts(actor, membership, structure, projectId);
  const limited = actor.role !== 'admin' && membership?.companyItems;
  const itemsByChecklist = groupBy(
    items.filter((item) => !limited || seesCompanyItem(membership, item.company_id)),
    (item) => item.checklist_id,
  );
  return {
    project: buildCard(actor, project, membership, parts, counts),
    sections: parts.sections.map((s) => ({
      id: s.id,
      name: s.name,
      position: s.position,
      checklists: parts.checklists
        .filter((c) => c.section_id === s.id)
        .map((c) => ({
          id: c.id,
          name: c.name,
          position: c.position,
          items: (itemsByChecklist.get(c.id) ?? []).map((i) => treeItem(i, valuesByItem.get(i.id) ?? [])),
        })),
    })),
  };
}

/** The visible part of a project, for search and other project-wide queries. 404 when invisible. */
async function visibility(deps: ProjectsDeps, actor: Actor, projectId: number): Promise<ProjectVisibility> {
  const { membership } = await access(deps, actor, projectId);
  const companyItems = actor.role === 'admin' ? null : (membership?.companyItems ?? null);
  if (actor.role === 'admin' || !membership || (membership.sectionIds === null && membership.checklistIds === null)) {
    return { projectId, sectionIds: 'all', checklistIds: 'all', companyItems };
  }
  const parts = visibleParts(actor, membership, await deps.repo.structure([projectId]), projectId);
  return {
    projectId,
    sectionIds: new Set(parts.sections.map((s) => s.id)),
    checklistIds: new Set(parts.checklists.map((c) => c.id)),
    companyItems,
  };
}

export function createProjectsService(repo: ProjectsRepository) {
  const deps: ProjectsDeps = { repo };
  return {
    access: access.bind(null, deps),
    listProjects: listProjects.bind(null, deps),
    projectIds: projectIds.bind(null, deps),
    getProject: getProject.bind(null, deps),
    getTree: getTree.bind(null, deps),
    visibility: visibility.bind(null, deps),
  };
}

export type ProjectsService = ReturnType<typeof createProjectsService>;
