import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Actor } from '../domain/policy.js';
import { ITEM_STATUSES, type UserRole } from '../domain/values.js';
import { ApiError } from '../errors.js';
import { packFilter } from '../features/companies/company-packs.service.js';
import { type Command, CliError, parseCommand, positiveInteger, required, usageError } from './args.js';
import { userByEmail, withContext } from './open-context.js';

/** Under this many items a report takes a moment: no progress lines even on a terminal. */
const PROGRESS_FROM_ITEMS = 500;

export const reportCommand: Command = {
  name: 'report',
  usage: `Usage: punchlist report --project ID [--company ID] [--user EMAIL] [--format pdf|csv] [--status S] [--output FILE] [--progress]

Writes a project's punch list (docs/design.md §17): CSV (default; UTF-8 with BOM, one row per item) or PDF (A4:
a cover with the progress and counters, then the items by section and checklist with their last answer,
review, verdict and photos).

Options:
  --project ID     the project
  --company ID     the company's pack (docs/design.md §20): only the open items (not done) this company holds
  --user EMAIL     only what this user can see (a project they cannot see: "not found", exit 1);
                   default: the whole project
  --format F       csv (default) or pdf
  --status S       only the items of this status: ${ITEM_STATUSES.join(', ')}
  --output FILE    write to FILE (replaced; removed again if the report fails); default: stdout
  --progress       progress lines on stderr whatever stderr is (default: only on a terminal, for
                   reports of ${PROGRESS_FROM_ITEMS} items or more)`,
  async run(argv, io) {
    const { values } = parseCommand(this.name, argv, {
      project: { type: 'string' },
      company: { type: 'string' },
      user: { type: 'string' },
      format: { type: 'string' },
      status: { type: 'string' },
      output: { type: 'string' },
      progress: { type: 'boolean' },
    });
    const projectId = positiveInteger('--project', required(this.name, 'project', values.project));
    const format = values.format ?? 'csv';
    if (format !== 'csv' && format !== 'pdf') throw usageError(`--format must be csv or pdf, got "${format}"`);
    const status = values.status ?? null;
    if (status !== null && !(ITEM_STATUSES as readonly string[]).includes(status)) {
      throw usageError(`--status must be one of ${ITEM_STATUSES.join(', ')}, got "${status}"`);
    }
    const companyId = values.company === undefined ? null : positiveInteger('--company', values.company);
    const output = values.output === undefined ? undefined : resolve(io.cwd, values.output);
    if (format === 'pdf' && output === undefined && io.stdout.isTTY) {
      throw usageError('a PDF is not for a terminal: give --output FILE or redirect stdout');
    }

    await withContext(io, async (ctx) => {
      const [{ createReportsService, WHOLE_PROJECT }, { createReportRepository }] = await Promise.all([
        import('../features/reports/report.service.js'),
        import('../features/reports/report.repository.js'),
      ]);
      // Made here, not in the worker pool (ctx.reports): this process answers nobody else, and a worker thread's
      // start (its modules loaded again) would cost more than the report of most projects.
      const reports = createReportsService({
        worklists: ctx.worklists,
        repo: createReportRepository(ctx.db.kysely),
        plans: ctx.plans,
        blobs: ctx.blobs,
        images: ctx.images,
        clock: ctx.clock,
        urls: ctx.config,
      });
      let actor: Actor = WHOLE_PROJECT;
      let madeBy = 'an operator (punchlist report)';
      if (values.user !== undefined) {
        const user = await userByEmail(ctx, values.user);
        actor = { id: user.id, role: user.role as UserRole };
        madeBy = user.name;
      }
      if (companyId !== null && !(await ctx.companies.listCompanies()).some((c) => c.id === companyId)) {
        throw new CliError(`company ${companyId} not found`);
      }
      const showProgress = (total: number) => values.progress === true || (io.stderr.isTTY === true && total >= PROGRESS_FROM_ITEMS);
      let report;
      try {
        report = await reports.openReport(actor, projectId, {
          format,
          filter:
            companyId !== null
              ? packFilter(companyId, status as (typeof ITEM_STATUSES)[number] | null)
              : {
                  status: status as (typeof ITEM_STATUSES)[number] | null,
                  mine: false,
                  overdue: false,
                  q: null,
                  participant: null,
                  sort: 'tree',
                },
          madeBy,
          onProgress: (done, total) => {
            if (!showProgress(total)) return;
            const line = `punchlist: report ${done}/${total} items`;
            io.stderr.write(io.stderr.isTTY ? `\r${line}${done === total ? '\n' : ''}` : `${line}\n`);
          },
        });
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) {
          throw new CliError(`project ${projectId} not found${values.user === undefined ? '' : ` (or not visible to ${values.user})`}`);
        }
        throw err;
      }
      if (output === undefined) {
        await pipeline(report.stream, io.stdout, { end: false });
        return;
      }
      try {
        await pipeline(report.stream, createWriteStream(output));
      } catch (err) {
        await rm(output, { force: true });
        throw err;
      }
    });
  },
};
