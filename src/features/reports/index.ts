/**
 * Reports (docs/design.md §17: a project's punch list as CSV or PDF) as one module. They are made in the worker
 * pool: the serving process asks for them (`offloadedOn`), a worker thread runs the job (`jobs.report`).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { Clock } from '../../shared/clock.js';
import type { WorkerConfig } from '../../shared/config.js';
import type { JobHandler } from '../offload/job-runner.js';
import type { WorkerPool } from '../offload/worker-pool.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { WorklistsService } from '../worklists/worklists.service.js';
import { createOffloadedReports, reportJob } from './report-offload.js';

export interface ReportsModuleDeps {
  db: Kysely<Database>;
  projects: ProjectsService;
  /** The worklists at a given time (features/worklists): a report lists what the project's list shows. */
  worklistsAt: (clock: Clock) => WorklistsService;
  /** Where photos and plans' sheets are read from, and the address the links of a report start with. */
  config: Pick<WorkerConfig, 'storageUrl' | 's3Credentials' | 'baseUrl'>;
}

export function createReportsModule(deps: ReportsModuleDeps) {
  let loaded: Promise<JobHandler> | null = null;
  const report: JobHandler = async (input, job) => (await (loaded ??= loadReportJob(deps)))(input, job);
  return {
    /** The worker's side: the report job, its modules loaded at the first report (reportJob, report-offload.ts). */
    jobs: { report },
    /** The serving process's side: reports asked of `pool`, the access checked here first. */
    offloadedOn: (pool: WorkerPool, clock: Clock) => createOffloadedReports({ projects: deps.projects, pool, clock }),
  };
}

export type ReportsModule = ReturnType<typeof createReportsModule>;
export type { ReportFile, ReportOptions } from './report.service.js';

/**
 * The report job with its modules loaded now, not with the thread: most threads only ever build trees and searches,
 * and PDFKit, sharp, csv-stringify and the blob store are ~10 MB of a thread's memory (docs/performance.md,
 * "Issue 31: server RSS").
 */
async function loadReportJob(deps: ReportsModuleDeps): Promise<JobHandler> {
  const [
    { createReportRepository },
    { createReportsService },
    { createImageConverter },
    { openBlobStore },
    { createPlansRepository },
    { createPlansService },
  ] = await Promise.all([
    import('./report.repository.js'),
    import('./report.service.js'),
    import('../../imaging/images.js'),
    import('../../storage/index.js'),
    import('../plans/plans.repository.js'),
    import('../plans/plans.service.js'),
  ]);
  const { db, projects, config } = deps;
  const blobs = openBlobStore(config.storageUrl, config.s3Credentials);
  const images = createImageConverter();
  const repo = createReportRepository(db);
  const plans = createPlansService({ repo: createPlansRepository(db), projects, blobs, urls: config });
  // Per job: the main thread's clock at the time it was asked for (a test's clock included).
  return reportJob((clock: Clock) =>
    createReportsService({ worklists: deps.worklistsAt(clock), repo, plans, blobs, images, clock, urls: config }),
  );
}
