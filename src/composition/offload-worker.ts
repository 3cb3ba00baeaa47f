import { systemClock } from '../shared/clock.js';
import type { WorkerConfig } from '../shared/config.js';
import { openDatabase } from '../db/database.js';
import { createDashboardModule } from '../features/dashboard/index.js';
import { createItemReads } from '../features/items/index.js';
import { type Jobs, readJobs } from '../features/offload/index.js';
import { createProjectsModule } from '../features/projects/index.js';
import { createReportsModule } from '../features/reports/index.js';
import { createSearchModule } from '../features/search/index.js';
import { createWorklistsModule } from '../features/worklists/index.js';

/** The worker's PostgreSQL pool: one job runs at a time, and a report reads a page's details side by side. */
const WORKER_POOL_SIZE = 4;

/**
 * The composition root of a worker thread of the pool (features/offload), as context.ts is the main thread's: its
 * own read-only connection to the database (SQLite: the same WAL file; PostgreSQL: a small pool), and the jobs it
 * runs, built by the same module factories as the main thread's (each feature's index.ts). Only the reads a job
 * needs are built; each job runs at the main thread's time, so the modules' own clock is never read.
 */
export async function createJobs(config: WorkerConfig): Promise<Jobs> {
  const db = openDatabase(config.databaseUrl, { readOnly: true, poolSize: Math.min(config.databasePoolSize, WORKER_POOL_SIZE) });
  const { projects, projectsRepo, visibleItems } = createProjectsModule({ db: db.kysely });
  const items = createItemReads(db.kysely, projectsRepo, config);
  const { projectSearch: search } = createSearchModule({ db, projects, items });
  const { worklistsAt, itemDates } = createWorklistsModule({ db: db.kysely, projects, projectsRepo, search, clock: systemClock });
  const { dashboardAt } = createDashboardModule({ projects, itemDates, clock: systemClock });
  // The report job loads its modules (PDFKit, sharp, the blob store) at the first report, not with the thread.
  const reports = createReportsModule({ db: db.kysely, projects, worklistsAt, config });
  // Fails the start (the pool says so) rather than the first job, when the database cannot be read.
  await db.kysely.selectFrom('projects').select('id').limit(1).execute();
  return {
    handlers: { ...reports.jobs, ...readJobs({ projects, visibleItems, search, worklistsAt, dashboardAt }) },
    close: () => db.close(),
  };
}
