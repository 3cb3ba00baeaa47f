import type { Clock } from '../../shared/clock.js';
import type { Language } from '../../i18n/i18n.js';
import type { Actor } from '../../domain/policy.js';
import type { JobHandler } from '../offload/job-runner.js';
import type { OffloadLane } from '../offload/lanes.js';
import type { WorkerPool } from '../offload/worker-pool.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { ItemFilter } from '../worklists/worklists.service.js';
import type { ReportFile, ReportFormat, ReportOptions, ReportsService } from './report.service.js';

/** A report as a job of the worker pool: plain data, copied into the worker thread. */
interface ReportJob {
  actor: Actor;
  projectId: number;
  format: ReportFormat;
  filter: ItemFilter;
  madeBy: string;
  timeZone?: string | null;
  language?: Language;
  /** The main thread's clock (ISO): the report's date, and "today" for the overdue filter. */
  madeAt: string;
}

type ReportHead = Omit<ReportFile, 'stream'>;

/**
 * Reports made in the worker pool (features/offload): the tree of a 5 000-item project, the details read
 * page by page, PDFKit's layout and font subsetting no longer run on the event loop that answers the cheap
 * requests (docs/design.md §10, docs/performance.md "Reports"). The access check stays here, on the main thread:
 * a project the actor cannot see is a 404 before the queue, and never takes a worker.
 */
export function createOffloadedReports(deps: { projects: ProjectsService; pool: WorkerPool; clock: Clock }) {
  const { projects, pool, clock } = deps;
  return {
    async openReport(actor: Actor, projectId: number, options: ReportOptions): Promise<ReportFile> {
      await projects.access(actor, projectId);
      const job: ReportJob = {
        actor,
        projectId,
        format: options.format,
        filter: options.filter,
        madeBy: options.madeBy,
        timeZone: options.timeZone,
        language: options.language,
        madeAt: clock.now().toISOString(),
      };
      const onProgress = options.onProgress && (([done, total]: [number, number]) => options.onProgress!(done, total));
      const { value, stream } = await pool.run<ReportHead>('report', job, { lane: 'reports' satisfies OffloadLane, onProgress });
      return { ...value, stream: stream! };
    },
  };
}

export type Reports = ReturnType<typeof createOffloadedReports>;

/**
 * The worker's side: the report made by the reports service as before, on the worker's own connections and
 * at the main thread's time; its file streams back through the pool.
 */
export function reportJob(reportsAt: (clock: Clock) => ReportsService): JobHandler {
  return async (job: ReportJob, { progress }) => {
    const madeAt = new Date(job.madeAt);
    const report = await reportsAt({ now: () => madeAt }).openReport(job.actor, job.projectId, {
      format: job.format,
      filter: job.filter,
      madeBy: job.madeBy,
      timeZone: job.timeZone,
      language: job.language,
      onProgress: (done, total) => progress([done, total]),
    });
    const { stream, ...head } = report;
    return { value: head satisfies ReportHead, stream };
  };
}
