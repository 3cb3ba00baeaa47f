import { message, translator } from '../i18n/i18n.js';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fieldMessage } from '../i18n/reasons.js';
import { ApiError } from '../shared/errors.js';
import { type Command, cliError, parseCommand, positiveInteger, requiredPositional } from './args.js';
import { cliLanguage } from './language.js';
import { withContext } from './open-context.js';
import { formatTable, printJson, printLine } from './output.js';

/** The command line acts as the operator: an admin of the workspace, whose writes name no user. */
const OPERATOR = { id: 0, role: 'admin' as const };

export const templatesListCommand: Command = {
  name: 'templates list',
  usage: (language) =>
    message(language, 'cli.templates.list.usage', { fields: '{id, name, sections, checklists: [{section, name, items}], created_at}' }),
  async run(argv, io) {
    const { values } = parseCommand(this.name, argv, { json: { type: 'boolean' } });
    const list = await withContext(io, (ctx) => ctx.templates.list());
    if (values.json) return printJson(io, list);
    const t = translator(cliLanguage(io.env));
    printLine(
      io,
      formatTable(
        [t('cli.table.id'), t('cli.table.name'), t('cli.table.sections'), t('cli.table.checklists')],
        list.map((t) => [String(t.id), t.name, String(t.sections), String(t.checklists.length)]),
      ),
    );
  },
};

export const templatesExportCommand: Command = {
  name: 'templates export',
  usage: (language) => message(language, 'cli.templates.export.usage'),
  async run(argv, io) {
    const t = translator(cliLanguage(io.env));
    const { positionals } = parseCommand(this.name, argv, {}, 1);
    const id = positiveInteger(t('cli.templates.idLabel'), requiredPositional(this.name, t('cli.templates.missingId'), positionals));
    const body = await withContext(io, (ctx) =>
      ctx.templates.exportTemplate(id).catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 404) throw cliError({ key: 'cli.templates.notFound', values: { id: String(id) } });
        throw err;
      }),
    );
    printJson(io, body);
  },
};

export const templatesImportCommand: Command = {
  name: 'templates import',
  usage: (language) => message(language, 'cli.templates.import.usage'),
  async run(argv, io) {
    const language = cliLanguage(io.env);
    const { positionals } = parseCommand(this.name, argv, {}, 1);
    const file = requiredPositional(this.name, message(language, 'cli.templates.missingFile'), positionals);
    let input: unknown;
    try {
      input = JSON.parse(await readFile(resolve(io.cwd, file), 'utf8'));
    } catch (err) {
      throw cliError({ key: 'cli.templates.unreadable', values: { file, reason: (err as Error).message } });
    }
    const id = await withContext(io, (ctx) =>
      ctx.templates.importTemplate(OPERATOR, input).catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 422) {
          // The service's reasons in the operator's language: "field: reason", as its English message lists them.
          const reason = err.details?.map((d) => `${d.field}: ${fieldMessage(language, d)}`).join('; ') ?? err.message;
          throw cliError({ key: 'cli.templates.refused', values: { file, reason } });
        }
        throw err;
      }),
    );
    printLine(io, message(language, 'cli.templates.imported', { id: String(id), file }));
  },
};
