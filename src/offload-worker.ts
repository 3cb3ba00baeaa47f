import type { Clock } from './clock.js';
import type { WorkerConfig } from './config.js';
import { openDatabase } from './db/database.js';
import type { Jobs } from './features/offload/job-runner.js';
import { readJobs } from './features/offload/offloaded-reads.js';
import { createItemsRepository } from './features/items/items.repository.js';
import { createItemsService } from './features/items/items.service.js';
import { createProjectsRepository } from './features/projects/projects.repository.js';
import { createProjectsService } from './features/projects/projects.service.js';
import { reportJob } from './features/reports/report-offload.js';
import { createReportRepository } from './features/reports/report.repository.js';
import { createReportsService } from './features/reports/report.service.js';
import { createProjectSearch } from './features/search/project-search.js';
import { createSearchRepository } from './features/search/search.repository.js';
import { createSearchService } from './features/search/search.service.js';
import { createWorklistsRepository } from './features/worklists/worklists.repository.js';
import { createWorklistsService } from './features/worklists/worklists.service.js';
import { createImageConverter } from './imaging/images.js';
import { openBlobStore } from './storage/index.js';

/** The worker's PostgreSQL pool: one job runs at a time, and a report reads a page's details side by side. */
const WORKER_POOL_SIZE = 4;

/**
 * The composition root of a worker thread of the pool (features/offload), as context.ts is the main
 * thread's: its own read-only connection to the database (SQLite: the same WAL file; PostgreSQL: a small
 * pool), its own blob store and image converter, and the jobs it runs. Only the reads a job needs are built.
 */
export async function createJobs(config: WorkerConfig): Promise<Jobs> {
  const db = openDatabase(config.databaseUrl, { readOnly: true, poolSize: Math.min(config.databasePoolSize, WORKER_POOL_SIZE) });
  const blobs = openBlobStore(config.storageUrl, config.s3Credentials);
  const images = createImageConverter();
  const projectsRepo = createProjectsRepository(db.kysely);
  const projects = createProjectsService(projectsRepo);
  const items = createItemsService(createItemsRepository(db.kysely), projectsRepo, config);
  const search = createProjectSearch(projects, items, createSearchService(createSearchRepository(db.kysely, db.dialect), db.dialect));
  const worklistsRepo = createWorklistsRepository(db.kysely);
  const reportRepo = createReportRepository(db.kysely);
  // Per job: the main thread's clock at the time it was asked for (a test's clock included).
  const reportsAt = (clock: Clock) =>
    createReportsService({
      worklists: createWorklistsService({ repo: worklistsRepo, projects, projectsRepo, search, clock }),
      repo: reportRepo,
      blobs,
      images,
      clock,
      urls: config,
    });
  // Fails the start (the pool says so) rather than the first job, when the database cannot be read.
  await db.kysely.selectFrom('projects').select('id').limit(1).execute();
  return { handlers: { report: reportJob(reportsAt), ...readJobs(projects, search) }, close: () => db.close() };
}
