/**
 * Search as one module: a project's text search (the item aggregate's visibility over the dialect's full-text
 * index), and the indexer that feeds SQLite's FTS5 outside the writes' transactions (migration 010).
 */
import type { Db } from '../../db/database.js';
import type { JobRunner } from '../../jobs/job-runner.js';
import type { ItemsService } from '../items/index.js';
import type { ProjectsService } from '../projects/projects.service.js';
import { createProjectSearch } from './project-search.js';
import { createSearchIndexer } from './search-indexer.js';
import { createSearchRepository } from './search.repository.js';
import { createSearchService } from './search.service.js';

export function createSearchModule(deps: { db: Db; projects: ProjectsService; items: ItemsService }) {
  const { dialect } = deps.db;
  const repo = createSearchRepository(deps.db.kysely, dialect);
  return {
    projectSearch: createProjectSearch(deps.projects, deps.items, createSearchService(repo, dialect)),
    /** The indexer, a job of the serving process's runner (a worker thread, read-only, has none). */
    indexerOn: (jobs: Pick<JobRunner, 'job'>) => createSearchIndexer(repo, dialect, jobs),
  };
}

export type SearchModule = ReturnType<typeof createSearchModule>;
