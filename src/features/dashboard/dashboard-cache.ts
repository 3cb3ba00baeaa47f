import type { Clock } from '../../shared/clock.js';
import type { Actor } from '../../domain/policy.js';
import type { ResponseCache } from '../caches/response-cache.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { DashboardOverview, DashboardService, ProjectFigures } from './dashboard.service.js';

/** The dashboard's reads, wherever they run (the worker pool, or inline before it has started). */
export type DashboardReads = Pick<DashboardService, 'project' | 'overview'>;

/**
 * The dashboard's figures, cached against the data's version (docs/performance.md, "Dashboard"): the last committed
 * event (every write has one), each project's tree version (structure, access, items) and the day (what "overdue"
 * and the weeks are read against). A figure is never older than the last committed write; a dashboard opened
 * again with nothing changed answers from the cache without touching an item. Per user: what each one sees differs.
 */
export function createCachedDashboard(deps: {
  reads: () => DashboardReads;
  projects: ProjectsService;
  cache: ResponseCache | null;
  treeVersion: (projectId: number) => Promise<string | null>;
  lastEventId: () => Promise<number>;
  clock: Clock;
}) {
  const { reads, projects, cache, treeVersion, lastEventId, clock } = deps;
  const today = () => clock.now().toISOString().slice(0, 10);

  async function cached<T>(key: string, version: string | null, build: () => Promise<T>): Promise<T> {
    if (!cache || version === null) return build();
    const hit = cache.get(key, version);
    if (hit) return JSON.parse(hit.data.toString('utf8')) as T;
    const value = await build();
    cache.set(key, version, { data: Buffer.from(JSON.stringify(value)), etag: '' });
    return value;
  }

  return {
    async project(actor: Actor, projectId: number): Promise<ProjectFigures> {
      // The version first: the figures built after it are at least as new.
      const [tree, last] = await Promise.all([treeVersion(projectId), lastEventId()]);
      const version = tree === null ? null : `${last}.${today()}.${tree}`;
      return cached(`dashboard:${actor.role}:${actor.id}:${projectId}`, version, () => reads().project(actor, projectId));
    },

    async overview(actor: Actor): Promise<DashboardOverview> {
      const ids = await projects.projectIds(actor, 'active');
      const [trees, last] = await Promise.all([Promise.all(ids.map(treeVersion)), lastEventId()]);
      const version = `${last}.${today()}.${ids.map((id, i) => `${id}:${trees[i] ?? '-'}`).join(',')}`;
      return cached(`dashboard:${actor.role}:${actor.id}:all`, version, () => reads().overview(actor, ids));
    },
  };
}

export type CachedDashboard = ReturnType<typeof createCachedDashboard>;
