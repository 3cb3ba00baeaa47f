import { type Actor, can, canOnProject } from '../../domain/policy.js';
import type { ItemStatus } from '../../domain/values.js';
import { notFound } from '../../shared/errors.js';
import type { ProjectsService } from '../projects/projects.service.js';
import { DZI_NAME } from '../../imaging/plan-sheets.js';
import type { PlansRepository } from './plans.repository.js';
import { planFilePath, type PlansService } from './plans.service.js';

/**
 * Where an item is (docs/design.md §19): on a plan, at fractions 0–1 of its sheet from the top left. Every version
 * of the plan keeps it, since it is relative to the sheet.
 */
export interface ItemLocation {
  plan_id: number;
  plan_name: string;
  x: number;
  y: number;
}

/** The pins filter of the plan's page, as the project page's ("Item status", "Participant"). */
export interface PinFilter {
  version: number | null;
  status: ItemStatus | null;
  participant: number | null;
}

/**
 * What the web's plan pages read (docs/design.md §19), beside v1's plans/list and plans/get: the plans with their
 * pin counts, one plan's page (its version shown, its pins with their items' texts, filtered, its members), an
 * item's place with the project's plans, and the place of "Add item here". Pins are those of the items the reader
 * sees, as everywhere: no count or colour betrays the others.
 */
/** What the plan pages read: the plans' rows, the plan reads with their access checks, the projects. */
export interface PlanViewsDeps {
  repo: PlansRepository;
  plans: PlansService;
  projects: ProjectsService;
}

export function createPlanViews(deps: PlanViewsDeps) {
  return {
    planList: planList.bind(null, deps),
    projectOf: projectOf.bind(null, deps),
    planPage: planPage.bind(null, deps),
    placeOf: placeOf.bind(null, deps),
    newItemPlace: newItemPlace.bind(null, deps),
  };
}

async function access(deps: PlanViewsDeps, actor: Actor, projectId: number) {
  const { projects } = deps;
  const { project, membership } = await projects.access(actor, projectId);
  const target = { projectId, archived: project.archived === 1, membership };
  return { project, target, manage: canOnProject(actor, 'project.plans', target) };
}

/** The project's plans, each with how many pins the reader sees on it. 404: the project is not visible. */
async function planList(deps: PlanViewsDeps, actor: Actor, projectId: number) {
  const { plans } = deps;
  const [{ project, manage }, { plans: list }] = await Promise.all([access(deps, actor, projectId), plans.listPlans(actor, projectId)]);
  return {
    project: { id: project.id, name: project.name },
    canUpload: manage,
    plans: list.map((p) => ({ id: p.id, name: p.name, version: p.version, width: p.width, height: p.height, pinCount: p.pins.length })),
  };
}

/** The project a visible plan belongs to (404 otherwise). */
async function projectOf(deps: PlanViewsDeps, actor: Actor, planId: number) {
  const { plans } = deps;
  const { plan } = await plans.getPlan(actor, planId);
  return plan.project_id;
}

/** The plan's page: the version shown (`version`, else the current one), the pins the reader sees, filtered. */
async function planPage(deps: PlanViewsDeps, actor: Actor, planId: number, filter: PinFilter) {
  const { repo, plans } = deps;
  const { plan } = await plans.getPlan(actor, planId);
  const shownVersion = filter.version ?? plan.version;
  const shown = plan.versions.find((v) => v.version === shownVersion);
  if (!shown) throw notFound('The plan version');
  const [{ project, target, manage }, items, members] = await Promise.all([
    access(deps, actor, plan.project_id),
    repo.itemsOnPlan(planId),
    repo.projectMembers(plan.project_id),
  ]);
  const pins = items
    .filter((i) =>
      can(actor, 'read', {
        ...target,
        sectionId: i.section_id,
        checklistId: i.checklist_id,
        participantIds: i.participantIds,
        responsibleCompanyId: i.responsible_company_id,
      }),
    )
    .filter(
      (i) =>
        (filter.status === null || i.status === filter.status) &&
        (filter.participant === null || i.participantIds.includes(filter.participant)),
    )
    .map((i) => ({ itemId: i.id, text: i.text, status: i.status as ItemStatus, x: i.plan_x!, y: i.plan_y! }));
  const version = await repo.findVersion(planId, shownVersion);
  return {
    project: { id: project.id, name: project.name },
    plan: { id: plan.id, name: plan.name, version: plan.version, width: plan.width, height: plan.height, pinCount: plan.pins.length },
    shown: {
      version: shown.version,
      width: shown.width,
      height: shown.height,
      tiles: `/api/plans/tiles/${plan.id}/${shown.version}/${DZI_NAME}_files/`,
      sheet: planFilePath(plan.id, shown.version),
      tileSize: version!.tile_size,
      overlap: version!.tile_overlap,
    },
    versions: plan.versions.map((v) => ({ version: v.version, createdAt: v.created_at, current: v.version === plan.version })),
    pins,
    members,
    canManage: manage,
  };
}

/** An item's place on its page, and the project's plans when the reader may place it. */
async function placeOf(deps: PlanViewsDeps, actor: Actor, item: { id: number; project_id: number; location: ItemLocation | null }) {
  const { repo } = deps;
  const [{ manage }, list] = await Promise.all([access(deps, actor, item.project_id), repo.plansOf(item.project_id)]);
  return {
    itemId: item.id,
    location: item.location,
    plans: manage ? list.map((p) => ({ id: p.id, name: p.name })) : null,
    sheet: item.location ? planFilePath(item.location.plan_id) : null,
  };
}

/** "Add item here": the plan of the project and the place tapped (null when the plan is not the project's). */
async function newItemPlace(deps: PlanViewsDeps, actor: Actor, projectId: number, planId: number, place: { x: number; y: number }) {
  const { repo } = deps;
  const plan = await repo.findPlan(planId);
  if (!plan || plan.project_id !== projectId) return null;
  await access(deps, actor, projectId);
  const fraction = (v: number) => (Number.isFinite(v) && v >= 0 && v <= 1 ? v : null);
  return { plan: { id: plan.id, name: plan.name, sheet: planFilePath(plan.id) }, x: fraction(place.x), y: fraction(place.y) };
}

export type PlanViews = ReturnType<typeof createPlanViews>;
