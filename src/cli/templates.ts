import { message } from '../i18n/i18n.js';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ApiError } from '../shared/errors.js';
import { type Command, CliError, parseCommand, positiveInteger, requiredPositional } from './args.js';
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
    printLine(
      io,
      formatTable(
        ['id', 'name', 'sections', 'checklists'],
        list.map((t) => [String(t.id), t.name, String(t.sections), String(t.checklists.length)]),
      ),
    );
  },
};

export const templatesExportCommand: Command = {
  name: 'templates export',
  usage: (language) => message(language, 'cli.templates.export.usage'),
  async run(argv, io) {
    const { positionals } = parseCommand(this.name, argv, {}, 1);
    const id = positiveInteger('ID', requiredPositional(this.name, 'template id (ID)', positionals));
    const body = await withContext(io, (ctx) =>
      ctx.templates.exportTemplate(id).catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 404) throw new CliError(`no template with id ${id}`);
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
    const { positionals } = parseCommand(this.name, argv, {}, 1);
    const file = requiredPositional(this.name, 'template file (FILE.json)', positionals);
    let input: unknown;
    try {
      input = JSON.parse(await readFile(resolve(io.cwd, file), 'utf8'));
    } catch (err) {
      throw new CliError(`cannot read ${file} as JSON: ${(err as Error).message}`);
    }
    const id = await withContext(io, (ctx) =>
      ctx.templates.importTemplate(OPERATOR, input).catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 422) throw new CliError(`${file} refused, nothing imported: ${err.message}`);
        throw err;
      }),
    );
    printLine(io, `imported template ${id} from ${file}`);
  },
};
