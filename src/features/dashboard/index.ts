/**
 * The dashboard (docs/design.md §23) as one module: its figures computed at a given time (`dashboardAt`: the worker
 * pool's job, at the main thread's time), and the serving process's dashboard, cached against the data's version.
 */
import type { Clock } from '../../shared/clock.js';
import type { ResponseCache } from '../caches/response-cache.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { WorklistsRepository } from '../worklists/worklists.repository.js';
import { createCachedDashboard, type DashboardReads } from './dashboard-cache.js';
import { createDashboardService } from './dashboard.service.js';

export interface DashboardModuleDeps {
  projects: ProjectsService;
  itemDates: Pick<WorklistsRepository, 'itemDates'>;
  clock: Clock;
}

/** What the serving process adds: the pool's reads once it runs (else null: inline), the cache and its versions. */
export interface CachedDashboardDeps {
  offloaded: () => DashboardReads | null;
  cache: ResponseCache | null;
  treeVersion: (projectId: number) => Promise<string | null>;
  lastEventId: () => Promise<number>;
}

export function createDashboardModule(deps: DashboardModuleDeps) {
  const { projects, clock } = deps;
  const dashboardAt = (at: Clock) => createDashboardService({ projects, repo: deps.itemDates, clock: at });
  return {
    dashboardAt,
    cachedDashboard({ offloaded, ...cached }: CachedDashboardDeps) {
      const inline = dashboardAt(clock);
      return createCachedDashboard({ reads: () => offloaded() ?? inline, projects, clock, ...cached });
    },
  };
}

export type DashboardModule = ReturnType<typeof createDashboardModule>;
