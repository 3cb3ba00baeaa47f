/**
 * Worklists as one module: a project's list (its tree filtered), "My items" and "To review". The worker threads
 * run them at the main thread's time (`worklistsAt`), for the pages' "today".
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { Clock } from '../../shared/clock.js';
import { createWorklistsRepository, type WorklistsRepository } from './worklists.repository.js';
import { createWorklistsService, type WorklistsDeps } from './worklists.service.js';

export function createWorklistsModule(deps: { db: Kysely<Database> } & Omit<WorklistsDeps, 'repo'>) {
  const { projects, projectsRepo, search } = deps;
  const repo = createWorklistsRepository(deps.db);
  const worklistsAt = (clock: Clock) => createWorklistsService({ repo, projects, projectsRepo, search, clock });
  const itemDates: Pick<WorklistsRepository, 'itemDates'> = repo;
  return {
    worklists: worklistsAt(deps.clock),
    worklistsAt,
    /** The dates of the items a reader sees (features/dashboard's figures). */
    itemDates,
  };
}

export type WorklistsModule = ReturnType<typeof createWorklistsModule>;
