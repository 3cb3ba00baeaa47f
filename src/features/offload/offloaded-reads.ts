import { deflateAhead, type Deflated } from '../../http/gzip.js';
import type { Clock } from '../../clock.js';
import type { Actor } from '../../domain/policy.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { ProjectSearch, ProjectSearchResult } from '../search/project-search.js';
import type { SearchQuery } from '../search/search.service.js';
import type { ItemFilter, MyItems, ProjectItems, ReviewQueue, WorklistsService } from '../worklists/worklists.service.js';
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
 * The reads that may take more than a few milliseconds of CPU (DESIGN.md §10): a project tree (23 ms for 5 000
 * items) and a search (a broad one reads thousands of rows) run in the worker pool's read lane, on the
 * worker's own connections (beside a report, between its awaits, never queued behind it), so the event loop keeps answering the cheap requests meanwhile. The worker checks access
 * as the inline service would (the same services, its own connection). A tree crosses back as JSON bytes, ready
 * for the envelope, and deflated there for the clients that accept gzip; a search result (at most a page of hits) as data, serialized by the response schema.
 */
export function createOffloadedReads(pool: WorkerPool, clock: Clock) {
  return {
    async tree(actor: Actor, projectId: number): Promise<SerializedData> {
      // A Uint8Array crosses threads as one (structured clone): the Buffer is a view of the same bytes.
      const { value } = await pool.run<SerializedTree>('tree', { actor, projectId }, READS);
      return new SerializedData(Buffer.from(value.bytes.buffer, value.bytes.byteOffset, value.bytes.byteLength), value.deflated);
    },
    async search(actor: Actor, projectId: number, query: SearchQuery): Promise<ProjectSearchResult> {
      return (await pool.run<ProjectSearchResult>('search', { actor, projectId, query }, READS)).value;
    },
    /** The web's project page (WorklistsService.projectItems): its tree, filter and text search, 40–70 ms for 5 000 items. */
    async projectItems(actor: Actor, projectId: number, filter: ItemFilter, page: number, named: readonly number[]): Promise<ProjectItems> {
      const input = { actor, projectId, filter, page, named, now: clock.now().toISOString() };
      return (await pool.run<ProjectItems>('projectItems', input, READS)).value;
    },
    /** The web's "My items" (WorklistsService.myItems): every item the user takes part in, then a page; 12 ms for 900. */
    async myItems(actor: Actor, page: number): Promise<MyItems> {
      return (await pool.run<MyItems>('myItems', { actor, page, now: clock.now().toISOString() }, READS)).value;
    },
    /** The count beside "To review" on every web page (WorklistsService.reviewCount): 50 ms for an admin of 100 000 items. */
    async reviewCount(actor: Actor): Promise<number | null> {
      return (await pool.run<number | null>('reviewCount', { actor, now: clock.now().toISOString() }, READS)).value;
    },
    /** The web's "To review" (WorklistsService.reviewQueue): every waiting row of the projects the user reviews, then a page. */
    async reviewQueue(actor: Actor, page: number): Promise<ReviewQueue> {
      return (await pool.run<ReviewQueue>('reviewQueue', { actor, page, now: clock.now().toISOString() }, READS)).value;
    },
  };
}

export type OffloadedReads = ReturnType<typeof createOffloadedReads>;

/**
 * The worker's side: the services as the main thread has them, on the worker's connections; the worklists at the
 * main thread's time (a test's clock included), for the page's "today".
 */
export function readJobs(
  projects: ProjectsService,
  search: ProjectSearch,
  worklistsAt: (clock: Clock) => WorklistsService,
): Record<'tree' | 'search' | 'projectItems' | 'myItems' | 'reviewCount' | 'reviewQueue', JobHandler> {
  return {
    tree: async ({ actor, projectId }: { actor: Actor; projectId: number }) => {
      const bytes = Buffer.from(JSON.stringify(await projects.getTree(actor, projectId)));
      return { value: { bytes, deflated: deflateAhead(bytes) } satisfies SerializedTree };
    },
    search: async ({ actor, projectId, query }: { actor: Actor; projectId: number; query: SearchQuery }) => ({
      value: await search.searchProject(actor, projectId, query),
    }),
    projectItems: async (input: ProjectItemsInput) => {
      const worklists = worklistsAt({ now: () => new Date(input.now) });
      return { value: await worklists.projectItems(input.actor, input.projectId, input.filter, input.page, input.named) };
    },
    myItems: async ({ actor, page, now }: { actor: Actor; page: number; now: string }) => ({
      value: await worklistsAt({ now: () => new Date(now) }).myItems(actor, page),
    }),
    reviewCount: async ({ actor, now }: { actor: Actor; now: string }) => ({
      value: await worklistsAt({ now: () => new Date(now) }).reviewCount(actor),
    }),
    reviewQueue: async ({ actor, page, now }: { actor: Actor; page: number; now: string }) => ({
      value: await worklistsAt({ now: () => new Date(now) }).reviewQueue(actor, page),
    }),
  };
}

interface ProjectItemsInput {
  actor: Actor;
  projectId: number;
  filter: ItemFilter;
  page: number;
  named: readonly number[];
  now: string;
}
