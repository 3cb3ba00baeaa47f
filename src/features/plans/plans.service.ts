import type { Readable } from 'node:stream';
import { type Actor, can, canOnProject } from '../../domain/policy.js';
import { forbidden, notFound } from '../../shared/errors.js';
import { cropSheet, DZI_NAME } from '../../imaging/plan-sheets.js';
import type { BlobStore } from '../../storage/index.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { PlanRow, PlansRepository, PlanVersionRow } from './plans.repository.js';

/** A pin: an item the reader can see, where it is on the plan, and its status (its colour). */
export interface PinView {
  item_id: number;
  x: number;
  y: number;
  status: string;
}

/** A plan as v1 and the web show it (docs/design.md §19); `pins` are those of the items the reader can see. */
export interface PlanView {
  id: number;
  project_id: number;
  name: string;
  version: number;
  width: number;
  height: number;
  versions: { version: number; width: number; height: number; created_at: string }[];
  /** The current sheet as one WebP (`/api/plans/file.php`). */
  file_url: string;
  /** The viewer's Deep Zoom descriptor of the current version; its tiles are beside it (`…/sheet_files/`). */
  tiles_url: string;
  pins: PinView[];
  created_at: string;
  updated_at: string;
}

/** A file of a plan's version, to stream: `etag` is the same for the same bytes (they never change under a version). */
export interface PlanFile {
  stream: Readable;
  size: number;
  etag: string;
  contentType: string;
}

/** The paths of a version's files, as served (files.routes.ts): `/api/plans/tiles/<plan>/<version>/…`. */
export const planTilesPath = (planId: number, version: number) => `/api/plans/tiles/${planId}/${version}/${DZI_NAME}.dzi`;
export const planFilePath = (planId: number, version?: number) =>
  `/api/plans/file.php?id=${planId}${version === undefined ? '' : `&version=${version}`}`;

/** Version rows kept in memory (a few hundred bytes each). */
const VERSION_ROWS_KEPT = 1000;

/** A tile's path under its version: `sheet_files/<level>/<column>_<row>.webp`. */
const TILE_PATH = /^sheet_files\/(0|[1-9][0-9]?)\/(0|[1-9][0-9]{0,4})_(0|[1-9][0-9]{0,4})\.webp$/;

/** The plan's view from its rows; `pins` as the caller filtered them. */
function planView(baseUrl: string, plan: PlanRow, versions: PlanVersionRow[], pins: PinView[]): PlanView {
  const current = versions.find((v) => v.version === plan.current_version);
  if (!current) throw new Error(`plan ${plan.id} has no row for its version ${plan.current_version}`);
  return {
    id: plan.id,
    project_id: plan.project_id,
    name: plan.name,
    version: plan.current_version,
    width: current.width,
    height: current.height,
    versions: versions.map((v) => ({ version: v.version, width: v.width, height: v.height, created_at: v.created_at })),
    file_url: baseUrl + planFilePath(plan.id),
    tiles_url: baseUrl + planTilesPath(plan.id, plan.current_version),
    pins,
    created_at: plan.created_at,
    updated_at: plan.updated_at,
  };
}

/** What the plans service's functions are given. */
export interface PlansDeps {
  repo: PlansRepository;
  projects: ProjectsService;
  blobs: BlobStore;
  urls: { baseUrl: string };
  /** A version's row never changes once made: the tiles of a viewer (tens per view) read it from here. */
  versionRows: Map<string, PlanVersionRow>;
}

/** The pins of the project that the actor sees, by plan. */
async function visiblePins(deps: PlansDeps, actor: Actor, projectId: number): Promise<Map<number, PinView[]>> {
  const { project, membership } = await deps.projects.access(actor, projectId);
  const target = { projectId, archived: project.archived === 1, membership, participantIds: [] };
  const byPlan = new Map<number, PinView[]>();
  for (const item of await deps.repo.placedItems(projectId)) {
    const place = { sectionId: item.section_id, checklistId: item.checklist_id, responsibleCompanyId: item.responsible_company_id };
    if (!can(actor, 'read', { ...target, ...place })) continue;
    const pins = byPlan.get(item.plan_id!) ?? [];
    pins.push({ item_id: item.id, x: item.plan_x!, y: item.plan_y!, status: item.status });
    byPlan.set(item.plan_id!, pins);
  }
  return byPlan;
}

/** The plan, 404 when it does not exist or the actor cannot see its project. */
async function visiblePlan(deps: PlansDeps, actor: Actor, planId: number): Promise<PlanRow> {
  const plan = await deps.repo.findPlan(planId);
  if (!plan) throw notFound('The plan');
  await deps.projects.access(actor, plan.project_id).catch((err: unknown) => {
    throw (err as { status?: number }).status === 404 ? notFound('The plan') : err;
  });
  return plan;
}

/** A version's row, from the service's cache (`deps.versionRows`). */
async function findVersion(deps: PlansDeps, planId: number, version: number) {
  const key = `${planId}:${version}`;
  let row = deps.versionRows.get(key);
  if (!row) {
    row = await deps.repo.findVersion(planId, version);
    if (!row) return undefined;
    if (deps.versionRows.size >= VERSION_ROWS_KEPT) deps.versionRows.delete(deps.versionRows.keys().next().value!);
    deps.versionRows.set(key, row);
  }
  return row;
}

/** A version of a visible plan (the current one by default); 404 for a version it does not have. */
async function visibleVersion(
  deps: PlansDeps,
  actor: Actor,
  planId: number,
  version?: number,
): Promise<{ plan: PlanRow; version: PlanVersionRow }> {
  const plan = await visiblePlan(deps, actor, planId);
  const row = await findVersion(deps, planId, version ?? plan.current_version);
  if (!row) throw notFound('The plan version');
  return { plan, version: row };
}

async function openBlob(deps: PlansDeps, key: string, etag: string, contentType: string): Promise<PlanFile> {
  const blob = await deps.blobs.get(key);
  if (!blob) throw notFound('The file');
  return { stream: blob.stream, size: blob.size, etag, contentType };
}

/** The project's plans in their order, each with the pins the actor sees. 404: the project is not visible. */
async function listPlans(deps: PlansDeps, actor: Actor, projectId: number): Promise<{ plans: PlanView[] }> {
  const { repo, urls } = deps;
  const pins = await visiblePins(deps, actor, projectId);
  const plans = await repo.plansOf(projectId);
  const versions = await repo.versionsOf(plans.map((p) => p.id));
  return {
    plans: plans.map((plan) =>
      planView(
        urls.baseUrl,
        plan,
        versions.filter((v) => v.plan_id === plan.id),
        pins.get(plan.id) ?? [],
      ),
    ),
  };
}

/** One plan with the pins the actor sees; 404 when it or its project is not visible. */
async function getPlan(deps: PlansDeps, actor: Actor, planId: number): Promise<{ plan: PlanView }> {
  const { repo, urls } = deps;
  const plan = await visiblePlan(deps, actor, planId);
  const [pins, versions] = await Promise.all([visiblePins(deps, actor, plan.project_id), repo.versionsOf([planId])]);
  return { plan: planView(urls.baseUrl, plan, versions, pins.get(planId) ?? []) };
}

/** Whether the actor may upload plans and new versions in the project (the web shows the forms or not). */
async function canUpload(deps: PlansDeps, actor: Actor, projectId: number): Promise<boolean> {
  const { projects } = deps;
  const { project, membership } = await projects.access(actor, projectId);
  return canOnProject(actor, 'project.plans', { projectId, archived: project.archived === 1, membership });
}

/** The whole sheet of a version (the current one by default) as one WebP, at most 2048 px a side. */
async function openSheet(deps: PlansDeps, actor: Actor, planId: number, version?: number): Promise<PlanFile> {
  const { version: row } = await visibleVersion(deps, actor, planId, version);
  return openBlob(deps, `${row.blob_prefix}${DZI_NAME}.webp`, `"plan-${row.id}-sheet"`, 'image/webp');
}

/**
 * A file of a version's Deep Zoom pyramid: `sheet.dzi` or `sheet_files/<level>/<column>_<row>.webp`. 404 for
 * any other path, an invisible plan, a version it does not have, or a tile outside the pyramid.
 */
async function openTile(deps: PlansDeps, actor: Actor, planId: number, version: number, path: string): Promise<PlanFile> {
  const isDzi = path === `${DZI_NAME}.dzi`;
  if (!isDzi && !TILE_PATH.test(path)) throw notFound('The tile');
  const { version: row } = await visibleVersion(deps, actor, planId, version);
  const etag = `"plan-${row.id}-${path.replace(/[^A-Za-z0-9_.-]/g, '-')}"`;
  return openBlob(deps, row.blob_prefix + path, etag, isDzi ? 'application/xml' : 'image/webp');
}

/**
 * A square crop of the current sheet around a place (fractions), WebP, `side` px at most (the new-item form
 * shows where "Add item here" was tapped); `pin`: where the place is in the crop, as fractions.
 */
async function cropAround(deps: PlansDeps, actor: Actor, planId: number, place: { x: number; y: number }, side = 320) {
  const sheet = await openSheet(deps, actor, planId);
  const chunks: Buffer[] = [];
  for await (const chunk of sheet.stream) chunks.push(chunk as Buffer);
  return cropSheet(Buffer.concat(chunks), { x: Math.min(1, Math.max(0, place.x)), y: Math.min(1, Math.max(0, place.y)) }, side);
}

/** 404 (`what` was not found) unless the actor sees the project. */
async function seeProject(deps: PlansDeps, actor: Actor, projectId: number, what: string) {
  const { projects } = deps;
  await projects.access(actor, projectId).catch((err: unknown) => {
    throw (err as { status?: number }).status === 404 ? notFound(what) : err;
  });
}

/** 403 unless the actor may upload plans in the project (404 first when they cannot see it). */
async function authorizeUpload(deps: PlansDeps, actor: Actor, projectId: number, reads?: Parameters<ProjectsService['access']>[2]) {
  const { projects } = deps;
  const { project, membership } = await projects.access(actor, projectId, reads);
  if (!canOnProject(actor, 'project.plans', { projectId, archived: project.archived === 1, membership })) {
    throw forbidden(project.archived === 1 ? 'The project is archived: its plans are read-only' : 'Only managers upload plans');
  }
  return project;
}

/** The plan as events carry it (no pins: who reads the event decides what they may see). */
async function planForEvent(deps: PlansDeps, planId: number, reads: Pick<PlansRepository, 'findPlan' | 'versionsOf'>) {
  const { urls } = deps;
  const plan = (await reads.findPlan(planId))!;
  const view: Partial<PlanView> = planView(urls.baseUrl, plan, await reads.versionsOf([planId]), []);
  delete view.pins;
  return view;
}

/**
 * Plans to read (docs/design.md §19): any member of the project sees its plans (404 for anybody else, a token limited to
 * other projects included), and on them the pins of the items they can see only: a partial member's plan shows
 * neither the place, the status nor the count of the others. The sheet, its tiles and crops are served after the
 * same check.
 */
export function createPlansService(given: Omit<PlansDeps, 'versionRows'>) {
  const deps: PlansDeps = { ...given, versionRows: new Map() };
  return {
    listPlans: listPlans.bind(null, deps),
    getPlan: getPlan.bind(null, deps),
    canUpload: canUpload.bind(null, deps),
    openSheet: openSheet.bind(null, deps),
    openTile: openTile.bind(null, deps),
    cropAround: cropAround.bind(null, deps),
    seeProject: seeProject.bind(null, deps),
    authorizeUpload: authorizeUpload.bind(null, deps),
    planForEvent: planForEvent.bind(null, deps),
  };
}

export type PlansService = ReturnType<typeof createPlansService>;
