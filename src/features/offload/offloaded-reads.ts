import { deflateAhead, type Deflated } from '../../http/gzip.js';
import type { Clock } from '../../shared/clock.js';
import type { Actor } from '../../domain/policy.js';
import type { DashboardReads } from '../dashboard/dashboard-cache.js';
import type { DashboardService } from '../dashboard/dashboard.service.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { ProjectsModule, VisibleItems } from '../projects/index.js';
import type { ProjectSearch, ProjectSearchResult } from '../search/project-search.js';
import type { SearchQuery } from '../search/search.service.js';
import type { WorklistsService } from '../worklists/worklists.service.js';
import type { JobHandler } from './job-runner.js';
import type { OffloadLane } from './lanes.js';
import { SerializedData } from './serialized-data.js';
import type { WorkerPool } from './worker-pool.js';

/** A tree as it crosses from the worker: its JSON, and the same deflated there for the clients that accept gzip. */
interface SerializedTree {
  bytes: Uint8Array;
  deflated: Deflated;
}

const READS = { lane: 'reads' satisfies OffloadLane };

/**
 * The reads that may take more than a few milliseconds of CPU (docs/design.md §10): a project tree (23 ms for 5 000
 * items) and a search (a broad one reads thousands of rows) run in the worker pool's read lane, on the
 * worker's own connections (beside a report, between its awaits, never queued behind it), so the event loop keeps answering the cheap requests meanwhile. The worker checks access
 * as the inline service would (the same services, its own connection). A tree crosses back as JSON bytes, ready
 * for the envelope, and deflated there for the clients that accept gzip; a search result (at most a page of hits) as data, serialized by the response schema.
 */
export function createOffloadedReads(pool: WorkerPool, clock: Clock) {
  /** A WorklistsService read run in the worker, at the main thread's time (the pages' "today"). */
  const worklistsRead = <K extends WorklistRead>(name: K) =>
    (async (...args: unknown[]) => {
      const input: WorklistsJob = { name, args, now: clock.now().toISOString() };
      return (await pool.run('worklists', input, READS)).value;
    }) as WorklistReads[K];
  return {
    async tree(actor: Actor, projectId: number): Promise<SerializedData> {
      // A Uint8Array crosses threads as one (structured clone): the Buffer is a view of the same bytes.
      const { value } = await pool.run<SerializedTree>('tree', { actor, projectId }, READS);
      return new SerializedData(Buffer.from(value.bytes.buffer, value.bytes.byteOffset, value.bytes.byteLength), value.deflated);
    },
    async search(actor: Actor, projectId: number, query: SearchQuery): Promise<ProjectSearchResult> {
      return (await pool.run<ProjectSearchResult>('search', { actor, projectId, query }, READS)).value;
    },
    /** The items of a project's tree a reader sees (the web's bulk form): the tree built there, its ids crossing back. */
    async visibleItems(actor: Actor, projectId: number): Promise<VisibleItems> {
      return (await pool.run<VisibleItems>('visibleItems', { actor, projectId }, READS)).value;
    },
    // The web's heavy pages (WorklistsService's): a project's page (its tree, filter and text search, 40–70 ms for
    // 5 000 items), "My items", "To review" and its count on every page (50 ms for an admin of 100 000 items).
    projectItems: worklistsRead('projectItems'),
    myItems: worklistsRead('myItems'),
    reviewQueue: worklistsRead('reviewQueue'),
    reviewCount: worklistsRead('reviewCount'),
    /** The dashboard's figures (features/dashboard): every visible item of the projects asked for. */
    dashboard: {
      project: async (actor: Actor, projectId: number) =>
        (await pool.run<Awaited<ReturnType<DashboardService['project']>>>('dashboard', dashboardJob('project', [actor, projectId]), READS))
          .value,
      overview: async (actor: Actor, projectIds: readonly number[]) =>
        (
          await pool.run<Awaited<ReturnType<DashboardService['overview']>>>(
            'dashboard',
            dashboardJob('overview', [actor, projectIds]),
            READS,
          )
        ).value,
    } satisfies DashboardReads,
  };
  function dashboardJob(name: DashboardJob['name'], args: unknown[]): DashboardJob {
    return { name, args, now: clock.now().toISOString() };
  }
}

export type OffloadedReads = ReturnType<typeof createOffloadedReads>;

/**
 * The worker's side: the services as the main thread has them, on the worker's connections; the worklists at the
 * main thread's time (a test's clock included), for the page's "today".
 */
export function readJobs(reads: {
  projects: Pick<ProjectsService, 'getTree'>;
  visibleItems: ProjectsModule['visibleItems'];
  search: ProjectSearch;
  worklistsAt: (clock: Clock) => WorklistsService;
  dashboardAt: (clock: Clock) => DashboardService;
}): Record<'tree' | 'visibleItems' | 'search' | 'worklists' | 'dashboard', JobHandler> {
  const { projects, search, worklistsAt, dashboardAt } = reads;
  return {
    tree: async ({ actor, projectId }: { actor: Actor; projectId: number }) => {
      const bytes = Buffer.from(JSON.stringify(await projects.getTree(actor, projectId)));
      return { value: { bytes, deflated: deflateAhead(bytes) } satisfies SerializedTree };
    },
    visibleItems: async ({ actor, projectId }: { actor: Actor; projectId: number }) => ({
      value: await reads.visibleItems(actor, projectId),
    }),
    search: async ({ actor, projectId, query }: { actor: Actor; projectId: number; query: SearchQuery }) => ({
      value: await search.searchProject(actor, projectId, query),
    }),
    worklists: async ({ name, args, now }: WorklistsJob) => {
      if (!WORKLIST_READS.includes(name)) throw new Error(`"${name}" is not a worklists read`);
      const read = worklistsAt({ now: () => new Date(now) })[name] as (...args: unknown[]) => Promise<unknown>;
      return { value: await read(...args) };
    },
    dashboard: async ({ name, args, now }: DashboardJob) => {
      if (name !== 'project' && name !== 'overview') throw new Error(`"${String(name)}" is not a dashboard read`);
      const read = dashboardAt({ now: () => new Date(now) })[name] as (...args: unknown[]) => Promise<unknown>;
      return { value: await read(...args) };
    },
  };
}

interface DashboardJob {
  name: keyof DashboardReads;
  args: unknown[];
  /** The main thread's clock (ISO): the dashboard's "today". */
  now: string;
}

const WORKLIST_READS = ['projectItems', 'myItems', 'reviewQueue', 'reviewCount'] as const;
type WorklistRead = (typeof WORKLIST_READS)[number];

/** The worklists reads the web's pages take from the worker (web/pages/projects.ts), or inline before it runs. */
export type WorklistReads = Pick<WorklistsService, WorklistRead>;

interface WorklistsJob {
  name: WorklistRead;
  args: unknown[];
  /** The main thread's clock (ISO). */
  now: string;
}
