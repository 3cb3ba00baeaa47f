import type { Clock } from '../shared/clock.js';
import type { WorkerConfig } from '../shared/config.js';
import { type Db, openDatabase } from '../db/database.js';
import type { JobHandler, Jobs } from '../features/offload/job-runner.js';
import { createDashboardService } from '../features/dashboard/dashboard.service.js';
import { readJobs } from '../features/offload/offloaded-reads.js';
import { createItemReads } from '../features/items/index.js';
import { createProjectsRepository, type ProjectsRepository } from '../features/projects/projects.repository.js';
import { createProjectsService, type ProjectsService } from '../features/projects/projects.service.js';
import { reportJob } from '../features/reports/report-offload.js';
import { createProjectSearch, type ProjectSearch } from '../features/search/project-search.js';
import { createSearchRepository } from '../features/search/search.repository.js';
import { createSearchService } from '../features/search/search.service.js';
import { createWorklistsRepository } from '../features/worklists/worklists.repository.js';
import { createWorklistsService } from '../features/worklists/worklists.service.js';

/** The worker's PostgreSQL pool: one job runs at a time, and a report reads a page's details side by side. */
const WORKER_POOL_SIZE = 4;

/**
 * The composition root of a worker thread of the pool (features/offload), as context.ts is the main
 * thread's: its own read-only connection to the database (SQLite: the same WAL file; PostgreSQL: a small
 * pool), and the jobs it runs. Only the reads a job needs are built.
 */
export async function createJobs(config: WorkerConfig): Promise<Jobs> {
  const db = openDatabase(config.databaseUrl, { readOnly: true, poolSize: Math.min(config.databasePoolSize, WORKER_POOL_SIZE) });
  const projectsRepo = createProjectsRepository(db.kysely);
  const projects = createProjectsService(projectsRepo);
  const items = createItemReads(db.kysely, projectsRepo, config);
  const search = createProjectSearch(projects, items, createSearchService(createSearchRepository(db.kysely, db.dialect), db.dialect));
  // Reports load their modules (PDFKit, sharp, csv-stringify, the blob store) at the first report, not with the
  // thread: most threads only ever build trees and searches, and those modules are ~10 MB of the thread's
  // memory (docs/performance.md, "Issue 31: server RSS").
  let reports: Promise<JobHandler> | null = null;
  const report: JobHandler = async (input, job) =>
    (await (reports ??= reportHandler(config, db, { projects, projectsRepo, search })))(input, job);
  // Fails the start (the pool says so) rather than the first job, when the database cannot be read.
  await db.kysely.selectFrom('projects').select('id').limit(1).execute();
  const worklistsRepo = createWorklistsRepository(db.kysely);
  const worklistsAt = (clock: Clock) => createWorklistsService({ repo: worklistsRepo, projects, projectsRepo, search, clock });
  const dashboardAt = (clock: Clock) => createDashboardService({ projects, repo: worklistsRepo, clock });
  return { handlers: { report, ...readJobs(projects, search, worklistsAt, dashboardAt) }, close: () => db.close() };
}

/** The report job with what it needs, its modules loaded now. */
async function reportHandler(
  config: WorkerConfig,
  db: Db,
  reads: { projects: ProjectsService; projectsRepo: ProjectsRepository; search: ProjectSearch },
): Promise<JobHandler> {
  const { projects, projectsRepo, search } = reads;
  const [
    { createReportRepository },
    { createReportsService },
    { createWorklistsRepository },
    { createWorklistsService },
    { createImageConverter },
    { openBlobStore },
    { createPlansRepository },
    { createPlansService },
  ] = await Promise.all([
    import('../features/reports/report.repository.js'),
    import('../features/reports/report.service.js'),
    import('../features/worklists/worklists.repository.js'),
    import('../features/worklists/worklists.service.js'),
    import('../imaging/images.js'),
    import('../storage/index.js'),
    import('../features/plans/plans.repository.js'),
    import('../features/plans/plans.service.js'),
  ]);
  const blobs = openBlobStore(config.storageUrl, config.s3Credentials);
  const images = createImageConverter();
  const worklistsRepo = createWorklistsRepository(db.kysely);
  const reportRepo = createReportRepository(db.kysely);
  const plans = createPlansService({ repo: createPlansRepository(db.kysely), projects, blobs, urls: config });
  // Per job: the main thread's clock at the time it was asked for (a test's clock included).
  return reportJob((clock: Clock) =>
    createReportsService({
      worklists: createWorklistsService({ repo: worklistsRepo, projects, projectsRepo, search, clock }),
      repo: reportRepo,
      plans,
      blobs,
      images,
      clock,
      urls: config,
    }),
  );
}
