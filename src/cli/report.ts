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

type CommandIo = Parameters<Command['run']>[1];
type Context = Parameters<Parameters<typeof withContext>[1]>[0];
type Status = (typeof ITEM_STATUSES)[number];

/** The command's options, checked before the database is opened. */
function reportOptions(argv: string[], io: CommandIo) {
  const { values } = parseCommand('report', argv, {
    project: { type: 'string' },
    company: { type: 'string' },
    user: { type: 'string' },
    format: { type: 'string' },
    status: { type: 'string' },
    output: { type: 'string' },
    progress: { type: 'boolean' },
    language: { type: 'string' },
  });
  const projectId = positiveInteger('--project', required('report', 'project', values.project));
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
  return {
    projectId,
    format: format as 'csv' | 'pdf',
    status: status as Status | null,
    companyId,
    language,
    output,
    user: values.user,
    progress: values.progress === true,
  };
}

type ReportOptions = ReturnType<typeof reportOptions>;

/** Opens the report as the options ask: who it is for, which items, progress lines on the terminal. */
async function openReport(ctx: Context, io: CommandIo, options: ReportOptions) {
  const { projectId, companyId, status, language } = options;
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
  if (options.user !== undefined) {
    const user = await userByEmail(ctx, options.user);
    actor = { id: user.id, role: user.role as UserRole };
    madeBy = user.name;
  }
  if (companyId !== null && !(await ctx.companies.listCompanies()).some((c) => c.id === companyId)) {
    throw cliError({ key: 'cli.report.companyNotFound', values: { id: String(companyId) } });
  }
  const showProgress = (total: number) => options.progress || (io.stderr.isTTY === true && total >= PROGRESS_FROM_ITEMS);
  try {
    return await reports.openReport(actor, projectId, {
      format: options.format,
      filter:
        companyId !== null
          ? packFilter(companyId, status)
          : { status, mine: false, overdue: false, q: null, participant: null, sort: 'tree' },
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
        options.user === undefined
          ? { key: 'cli.report.notFound', values: { id } }
          : { key: 'cli.report.notVisible', values: { id, user: options.user } },
      );
    }
    throw err;
  }
}

/** The report to standard output, or to the file (removed when writing it fails). */
async function writeReport(stream: NodeJS.ReadableStream, output: string | undefined, io: CommandIo) {
  if (output === undefined) {
    await pipeline(stream, io.stdout, { end: false });
    return;
  }
  try {
    await pipeline(stream, createWriteStream(output));
  } catch (err) {
    await rm(output, { force: true });
    throw err;
  }
}

export const reportCommand: Command = {
  name: 'report',
  usage: (language) =>
    message(language, 'cli.report.usage', {
      statuses: ITEM_STATUSES.join(', '),
      languages: LANGUAGES.join(', '),
      threshold: String(PROGRESS_FROM_ITEMS),
    }),
  async run(argv, io) {
    const options = reportOptions(argv, io);
    await withContext(io, async (ctx) => {
      const report = await openReport(ctx, io, options);
      await writeReport(report.stream, options.output, io);
    });
  },
};
