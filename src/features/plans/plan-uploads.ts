import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, extname, join } from 'node:path';
import type { Clock } from '../../shared/clock.js';
import type { PlanLimits } from '../../shared/config.js';
import { concurrencyLimit } from '../../shared/concurrency-limit.js';
import { requiredText } from '../../domain/inputs.js';
import type { Actor } from '../../domain/policy.js';
import { MAX_NAME_LENGTH } from '../../domain/values.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { invalidField } from '../../i18n/reasons.js';
import type { TiledSheet } from '../../imaging/plan-sheets.js';
import type { BlobStore } from '../../storage/index.js';
import type { ProjectAccessReads } from '../projects/projects.repository.js';
import type { AuditEntryBuilder, WritePath } from '../write-path/write-path.js';
import type { PlanRenderer, RenderLimits } from './plan-renderer.js';
import type { Inspection } from './plan-render-protocol.js';
import type { PlanUploadRow, PlansRepository } from './plans.repository.js';
import type { PlansService } from './plans.service.js';

/** An upload as the page that polls it reads it (docs/design.md §19: "the page showing its progress"). */
export interface UploadView {
  id: number;
  project_id: number;
  /** The plan this upload versions; null for new plans. */
  plan_id: number | null;
  name: string;
  /** `processing`, then `done` (its plans in `plan_ids`) or `failed` (why in `error`). */
  status: 'processing' | 'done' | 'failed';
  pages_done: number;
  pages_total: number;
  error: string | null;
  plan_ids: number[];
}

/** The file of an upload: where it is now (the service moves it to its own folder) and the name it was sent with. */
export interface PlanFileInput {
  path: string;
  filename: string;
}

export interface UploadOptions {
  /** The plan's name (default: the file's name without its extension); a PDF of several pages gets "— p. N". */
  name?: string | undefined;
  /** Upload a new version of this plan (a PDF of one page or an image) rather than new plans. */
  planId?: number | undefined;
}

/** Blob keys of an upload's pages: `plans/u<upload>/p<page>/sheet.dzi`, `…/sheet.webp`, `…/sheet_files/…`. */
const uploadPrefix = (uploadId: number) => `plans/u${uploadId}/`;
const pagePrefix = (uploadId: number, page: number) => `${uploadPrefix(uploadId)}p${page}/`;
/** Blobs written at once while a page's tiles are stored. */
const PARALLEL_PUTS = 8;
/** An upload still `processing` this long after its last page (beyond the deadline) belonged to a node that stopped. */
const STALE_MARGIN_MS = 60_000;

function viewOf(row: PlanUploadRow, now: Date, deadlineMs: number): UploadView {
  // A node that stopped mid-upload (a crash, a deploy) leaves its row: it reads as failed once nobody moved it.
  const stale = row.status === 'processing' && now.getTime() - Date.parse(row.updated_at) > deadlineMs + STALE_MARGIN_MS;
  return {
    id: row.id,
    project_id: row.project_id,
    plan_id: row.plan_id,
    name: row.name,
    status: stale ? 'failed' : (row.status as UploadView['status']),
    pages_done: row.pages_done,
    pages_total: row.pages_total,
    error: stale ? 'The server stopped while it processed the file; upload it again' : row.error,
    plan_ids: row.plan_ids ? (JSON.parse(row.plan_ids) as number[]) : [],
  };
}

/** The plan's name: as given (trimmed), else the file's name without its extension. */
function nameOf(given: string | undefined, filename: string): string {
  if (given !== undefined && given.trim() !== '') return requiredText('name', given, MAX_NAME_LENGTH);
  const base = basename(filename, extname(filename)).trim() || 'Plan';
  return [...base].slice(0, MAX_NAME_LENGTH).join('');
}

/** The statements a plan upload's write runs, bound to its transaction. */
export interface PlanWriteRepositories {
  plans: ReturnType<PlansRepository['bind']>;
  projects: ProjectAccessReads;
}

/** What the uploads are given. */
export interface PlanUploadsDeps {
  repo: PlansRepository;
  plans: PlansService;
  /** The project-level write path over the plans' statements (features/write-path/). */
  path: WritePath<PlanWriteRepositories>;
  renderer: PlanRenderer;
  blobs: BlobStore;
  clock: Clock;
  limits: PlanLimits;
}

/** The uploads' deps with what they keep on this node while it runs. */
interface PlanUploadsNode extends PlanUploadsDeps {
  renderLimits: RenderLimits;
  inspectLimits: RenderLimits;
  oneAtATime: ReturnType<typeof concurrencyLimit>;
  running: Map<number, Promise<void>>;
  /** The service's own folder, made at the first upload. */
  workRoot: Promise<string> | null;
  closed: boolean;
  /** Aborts the running renders when the node stops (their uploads fail, nothing of them is kept). */
  stopping: AbortController;
}

/** The service's own folder (0700), a folder per upload inside it; removed with the upload. */
function workFolder(node: PlanUploadsNode): Promise<string> {
  return (node.workRoot ??= mkdtemp(join(tmpdir(), 'punchlist-plans-')));
}

async function takeFile(node: PlanUploadsNode, file: PlanFileInput): Promise<{ dir: string; path: string }> {
  const dir = join(await workFolder(node), randomUUID());
  await mkdir(dir, { mode: 0o700 });
  const path = join(dir, 'source');
  try {
    await rename(file.path, path);
  } catch {
    // Another file system: copied, and the original removed.
    await copyFile(file.path, path);
    await rm(file.path, { force: true });
  }
  return { dir, path };
}

/** Stores a page's files; returns its blob prefix. */
async function storePage(node: PlanUploadsNode, uploadId: number, page: number, dir: string, sheet: TiledSheet) {
  const prefix = pagePrefix(uploadId, page);
  const queue = [...sheet.files];
  const store = async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const type = file.endsWith('.dzi') ? 'application/xml' : 'image/webp';
      await node.blobs.put(prefix + file, await readFile(join(dir, `p${page}`, file)), type);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL_PUTS }, store));
  await rm(join(dir, `p${page}`), { recursive: true, force: true });
  return prefix;
}

async function removeBlobs(node: PlanUploadsNode, uploadId: number) {
  const keys: string[] = [];
  for await (const key of node.blobs.list(uploadPrefix(uploadId))) keys.push(key);
  for (const key of keys) await node.blobs.delete(key);
}

/** The background part: render, store, then the plans and their events in one write. */
async function processUpload(
  node: PlanUploadsNode,
  actor: Actor,
  upload: PlanUploadRow,
  inspection: Inspection,
  work: { dir: string; path: string },
) {
  const pages = Array.from({ length: inspection.pages }, (_, i) => i + 1);
  const stored = new Map<number, { prefix: string; sheet: TiledSheet }>();
  let storing = Promise.resolve();
  try {
    await node.oneAtATime(async () => {
      if (node.closed) throw new Error('The server is shutting down');
      const task = { path: work.path, source: inspection.source, pages, outDir: work.dir };
      await node.renderer.render(task, { ...node.renderLimits, signal: node.stopping.signal }, (page, sheet) => {
        storing = storing.then(async () => {
          stored.set(page, { prefix: await storePage(node, upload.id, page, work.dir, sheet), sheet });
          await node.repo.recordProgress(upload.id, stored.size, node.clock.now().toISOString());
        });
      });
      await storing;
    });
    // The uploader may have lost the right meanwhile: checked again under the project's lock.
    const authorize = (repos: PlanWriteRepositories) => node.plans.authorizeUpload(actor, upload.project_id, repos.projects);
    await node.path.writeProject({ projectId: upload.project_id, actor, authorize }, async (repos, emit) => {
      const now = node.clock.now().toISOString();
      const versionOf = (page: number) => {
        const { prefix, sheet } = stored.get(page)!;
        return {
          width: sheet.width,
          height: sheet.height,
          source_kind: inspection.source,
          source_name: upload.name,
          source_page: inspection.source === 'pdf' ? page : null,
          tile_size: sheet.tileSize,
          tile_overlap: sheet.overlap,
          levels: sheet.levels,
          blob_prefix: prefix,
        };
      };
      const planIds: number[] = [];
      if (upload.plan_id !== null) {
        const plan = await repos.plans.findPlan(upload.plan_id);
        if (!plan || plan.project_id !== upload.project_id) throw notFound('The plan');
        await repos.plans.addVersion({ planId: plan.id, userId: actor.id, now, version: versionOf(1) });
        planIds.push(plan.id);
        emit('plan.version_added', { plan: await node.plans.planForEvent(plan.id, repos.plans) }, {});
      } else {
        let position = await repos.plans.nextPosition(upload.project_id);
        for (const page of pages) {
          const name = pages.length > 1 ? `${upload.name} — p. ${page}` : upload.name;
          const id = await repos.plans.insertPlan({
            projectId: upload.project_id,
            name,
            position: position++,
            userId: actor.id,
            now,
            version: versionOf(page),
          });
          planIds.push(id);
          emit('plan.created', { plan: await node.plans.planForEvent(id, repos.plans) }, {});
        }
      }
      await repos.plans.finishUpload(upload.id, planIds, now);
    });
  } catch (err) {
    await storing.catch(() => undefined);
    await removeBlobs(node, upload.id).catch(() => undefined);
    const reason =
      err instanceof ApiError && err.status < 500 ? (err.details?.[0]?.message ?? err.message) : 'The file could not be processed';
    await node.repo.recordFailure(upload.id, reason, node.clock.now().toISOString()).catch(() => undefined);
  } finally {
    await rm(work.dir, { recursive: true, force: true });
  }
}

/**
 * Starts an upload: 404 when the project (or the plan to version) is not visible, 403 unless a manager or an
 * admin, 422 with a reason when the file is not a plan (text, a broken, encrypted or empty PDF, an image under
 * 16×16, over PLAN_MAX_MB or PLAN_MAX_PAGES; a new version of more than one page). The service takes the file
 * (moves it to its own folder) and removes it whatever happens. Answers the upload `processing`.
 */
async function startUpload(
  node: PlanUploadsNode,
  actor: Actor,
  projectId: number,
  file: PlanFileInput,
  options: UploadOptions = {},
  buildAudit?: AuditEntryBuilder,
): Promise<UploadView> {
  let work: { dir: string; path: string } | null = null;
  try {
    await node.plans.authorizeUpload(actor, projectId);
    if (options.planId !== undefined) {
      const plan = await node.repo.findPlan(options.planId);
      if (!plan || plan.project_id !== projectId) throw notFound('The plan');
    }
    const name = nameOf(options.name, file.filename);
    const { size } = await stat(file.path);
    if (size === 0) throw invalidField('file', 'reason.plan.empty');
    if (size > node.limits.maxMb * 1024 * 1024) throw invalidField('file', 'reason.plan.larger', { mb: node.limits.maxMb });
    work = await takeFile(node, file);
    const inspection = await node.renderer.inspect(work.path, node.limits.maxPages, node.inspectLimits);
    if (options.planId !== undefined && inspection.pages !== 1) {
      throw invalidField('file', 'reason.plan.oneSheet');
    }
    const now = node.clock.now().toISOString();
    const authorize = (repos: PlanWriteRepositories) => node.plans.authorizeUpload(actor, projectId, repos.projects);
    const request = { projectId, actor, audit: buildAudit, authorize };
    const uploadId = await node.path.writeProject(request, (repos) =>
      repos.plans.insertUpload({
        project_id: projectId,
        plan_id: options.planId ?? null,
        name,
        source_kind: inspection.source,
        pages_total: inspection.pages,
        created_by: actor.id,
        created_at: now,
        updated_at: now,
      }),
    );
    const row = (await node.repo.findUpload(uploadId))!;
    const owned = work;
    work = null;
    const job = processUpload(node, actor, row, inspection, owned).finally(() => node.running.delete(uploadId));
    node.running.set(uploadId, job);
    return viewOf(row, node.clock.now(), node.renderLimits.timeoutMs);
  } finally {
    await rm(file.path, { force: true });
    if (work) await rm(work.dir, { recursive: true, force: true });
  }
}

/** An upload's progress (the web page polls it); 404 unless the actor sees its project. */
async function uploadStatus(node: PlanUploadsNode, actor: Actor, uploadId: number): Promise<UploadView> {
  const row = await node.repo.findUpload(uploadId);
  if (!row) throw notFound('The upload');
  await node.plans.seeProject(actor, row.project_id, 'The upload');
  return viewOf(row, node.clock.now(), node.renderLimits.timeoutMs);
}

/** The project's latest uploads, newest first (the plans page shows those still processing, and failures). */
async function recentUploads(node: PlanUploadsNode, actor: Actor, projectId: number, limit = 10): Promise<UploadView[]> {
  await node.plans.seeProject(actor, projectId, 'The project');
  const now = node.clock.now();
  return (await node.repo.uploadsOf(projectId, limit)).map((row) => viewOf(row, now, node.renderLimits.timeoutMs));
}

/** Resolves once the upload's background work is over on this node (tests, the demo, the CLI). */
async function waitForUpload(node: PlanUploadsNode, uploadId: number): Promise<void> {
  await node.running.get(uploadId);
}

/** Stops the running uploads (they fail, leaving nothing), refuses new ones, removes the working folder. */
async function close(node: PlanUploadsNode) {
  node.closed = true;
  node.stopping.abort();
  await Promise.allSettled([...node.running.values()]);
  if (node.workRoot) await rm(await node.workRoot, { recursive: true, force: true });
  node.workRoot = null;
}

/**
 * Uploads of plans (docs/design.md §19, docs/decisions.md "Plans and pins"). The request waits for the checks only:
 * the file's size, then what it is (a rendering process reads it: a PDF's pages, its encryption; an image's
 * header), each refusal a 422 with its reason, nothing kept. It then records an upload (`processing`, its
 * pages) and answers; the pages are rendered in the background, one upload at a time per node, each page's
 * tiles stored as it is done (the upload's `pages_done`), and the plans made (or the new version added) in one
 * write with their events once every page is there. A failure keeps only the upload's row with its reason (the
 * page that polls says why): no plan, no blob, no file.
 */
export function createPlanUploads(deps: PlanUploadsDeps) {
  const renderLimits: RenderLimits = {
    timeoutMs: deps.limits.renderTimeoutSeconds * 1000,
    memoryMb: deps.limits.renderMemoryMb,
    nice: deps.limits.renderNice,
  };
  const node: PlanUploadsNode = {
    ...deps,
    renderLimits,
    // Reading the file is short and its request waits for it: at the normal priority.
    inspectLimits: { ...renderLimits, timeoutMs: Math.max(5000, renderLimits.timeoutMs / 10), nice: 0 },
    // One upload renders at a time on a node: a render keeps a core busy, and the others wait their turn.
    oneAtATime: concurrencyLimit(1),
    running: new Map(),
    workRoot: null,
    closed: false,
    stopping: new AbortController(),
  };
  return {
    startUpload: startUpload.bind(null, node),
    uploadStatus: uploadStatus.bind(null, node),
    recentUploads: recentUploads.bind(null, node),
    waitForUpload: waitForUpload.bind(null, node),
    close: close.bind(null, node),

    /** The service's working folder (each upload's folder is inside it, removed with the upload). */
    workFolder: () => workFolder(node),
  };
}

export type PlanUploads = ReturnType<typeof createPlanUploads>;
