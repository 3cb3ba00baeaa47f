/**
 * Plans (docs/design.md §19) as one module: a project's plans, their sheets and tiles, the uploads rendered in a
 * process of their own, and what the web's plan pages read. Pins are the item's (features/items).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { Clock } from '../../shared/clock.js';
import type { PlanLimits } from '../../shared/config.js';
import type { BlobStore } from '../../storage/index.js';
import type { ProjectsRepository } from '../projects/projects.repository.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { WritePaths } from '../write-path/write-path.js';
import { createPlanRenderer } from './plan-renderer.js';
import { createPlanUploads } from './plan-uploads.js';
import { createPlanViews } from './plan-views.js';
import { createPlansRepository } from './plans.repository.js';
import { createPlansService } from './plans.service.js';

export interface PlansModuleDeps {
  db: Kysely<Database>;
  projectsRepo: ProjectsRepository;
  projects: ProjectsService;
  writePaths: WritePaths;
  blobs: BlobStore;
  clock: Clock;
  limits: PlanLimits;
  urls: { baseUrl: string };
}

export function createPlansModule(deps: PlansModuleDeps) {
  const { projectsRepo, projects, blobs, clock } = deps;
  const repo = createPlansRepository(deps.db);
  const plans = createPlansService({ repo, projects, blobs, urls: deps.urls });
  return {
    plans,
    planUploads: createPlanUploads({
      repo,
      plans,
      path: deps.writePaths((trx) => ({ plans: repo.bind(trx), projects: projectsRepo.bind(trx) })),
      renderer: createPlanRenderer(),
      blobs,
      clock,
      limits: deps.limits,
    }),
    planViews: createPlanViews({ repo, plans, projects }),
  };
}

export type PlansModule = ReturnType<typeof createPlansModule>;
