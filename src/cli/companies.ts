import { type Command, parseCommand } from './args.js';
import { withContext } from './open-context.js';
import { formatTable, printJson, printLine } from './output.js';

export const companiesListCommand: Command = {
  name: 'companies list',
  usage: `Usage: punchlist companies list [--json]

Lists the workspace's companies (docs/design.md §20), retired ones too.

Options:
  --json             print an array of {id, name, trade, retired} instead of a table`,
  async run(argv, io) {
    const { values } = parseCommand(this.name, argv, { json: { type: 'boolean' } });
    const companies = await withContext(io, (ctx) => ctx.companies.listCompanies());
    if (values.json) return printJson(io, companies);
    if (companies.length === 0) return printLine(io, 'no companies');
    printLine(
      io,
      formatTable(
        ['ID', 'NAME', 'TRADE', 'STATE'],
        companies.map((c) => [String(c.id), c.name, c.trade, c.retired ? 'retired' : 'active']),
      ),
    );
  },
};
