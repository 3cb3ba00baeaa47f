import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Actor } from '../domain/policy.js';
import { ITEM_STATUSES, type UserRole } from '../domain/values.js';
import { ApiError } from '../shared/errors.js';
import { packFilter } from '../features/companies/company-packs.service.js';
import { isLanguage, LANGUAGES, message } from '../i18n/i18n.js';
import { type Command, cliError, parseCommand, positiveInteger, required, usageWords } from './args.js';
import { cliLanguage } from './language.js';
import { userByEmail, withContext } from './open-context.js';

/** Under this many items a report takes a moment: no progress lines even on a terminal. */
const PROGRESS_FROM_ITEMS = 500;

export const reportCommand: Command = {
  name: 'report',
  usage: (language) =>
    message(language, 'cli.report.usage', {
      statuses: ITEM_STATUSES.join(', '),
      languages: LANGUAGES.join(', '),
      threshold: String(PROGRESS_FROM_ITEMS),
    }),
  async run(argv, io) {
    const { values } = parseCommand(this.name, argv, {
      project: { type: 'string' },
      company: { type: 'string' },
      user: { type: 'string' },
      format: { type: 'string' },
      status: { type: 'string' },
      output: { type: 'string' },
      progress: { type: 'boolean' },
      language: { type: 'string' },
    });
    const projectId = positiveInteger('--project', required(this.name, 'project', values.project));
    const format = values.format ?? 'csv';
    if (format !== 'csv' && format !== 'pdf') throw usageWords('cli.report.format', { value: format });
    const status = values.status ?? null;
    if (status !== null && !(ITEM_STATUSES as readonly string[]).includes(status)) {
      throw usageWords('cli.report.status', { statuses: ITEM_STATUSES.join(', '), value: status });
    }
    const companyId = values.company === undefined ? null : positiveInteger('--company', values.company);
    // The PDF's language: --language, else the operator's (LC_ALL, LC_MESSAGES, LANG), else English.
    const language = values.language ?? cliLanguage(io.env);
    if (!isLanguage(language)) throw usageWords('cli.report.language', { languages: LANGUAGES.join(', '), value: language });
    const output = values.output === undefined ? undefined : resolve(io.cwd, values.output);
    if (format === 'pdf' && output === undefined && io.stdout.isTTY) {
      throw usageWords('cli.report.terminal');
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
      let madeBy = message(language, 'cli.report.operator');
      if (values.user !== undefined) {
        const user = await userByEmail(ctx, values.user);
        actor = { id: user.id, role: user.role as UserRole };
        madeBy = user.name;
      }
      if (companyId !== null && !(await ctx.companies.listCompanies()).some((c) => c.id === companyId)) {
        throw cliError({ key: 'cli.report.companyNotFound', values: { id: String(companyId) } });
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
          language,
          onProgress: (done, total) => {
            if (!showProgress(total)) return;
            const line = `punchlist: report ${done}/${total} items`;
            io.stderr.write(io.stderr.isTTY ? `\r${line}${done === total ? '\n' : ''}` : `${line}\n`);
          },
        });
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) {
          const id = String(projectId);
          throw cliError(
            values.user === undefined
              ? { key: 'cli.report.notFound', values: { id } }
              : { key: 'cli.report.notVisible', values: { id, user: values.user } },
          );
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
