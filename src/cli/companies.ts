import { message } from '../i18n/i18n.js';
import { type Command, parseCommand } from './args.js';
import { cliTranslator } from './language.js';
import { withContext } from './open-context.js';
import { formatTable, printJson, printLine } from './output.js';

export const companiesListCommand: Command = {
  name: 'companies list',
  usage: (language) => message(language, 'cli.companies.usage', { fields: '{id, name, trade, retired}' }),
  async run(argv, io) {
    const { values } = parseCommand(this.name, argv, { json: { type: 'boolean' } });
    const companies = await withContext(io, (ctx) => ctx.companies.listCompanies());
    if (values.json) return printJson(io, companies);
    const t = cliTranslator(io);
    if (companies.length === 0) return printLine(io, t('cli.none.companies'));
    printLine(
      io,
      formatTable(
        [t('cli.table.id'), t('cli.table.name'), t('cli.table.trade'), t('cli.table.state')],
        companies.map((c) => [String(c.id), c.name, c.trade, t(c.retired ? 'cli.value.retired' : 'cli.value.active')]),
      ),
    );
  },
};
