import type { AppContext } from '../composition/context.js';
import type { User } from '../db/tables.js';
import { type Command, parseCommand, required } from './args.js';
import { userByEmail, withContext } from './open-context.js';
import { formatTable, printJson, printLine } from './output.js';

/**
 * A `punchlist <things> list --user EMAIL [--json]` command: the named user's rows as a JSON array of the
 * `json` fields (in that order), or as a table for people; "no <things> for EMAIL" when there are none.
 */
export function userListCommand<R>(c: {
  name: string;
  usage: Command['usage'];
  /** What the rows are, for "no … for EMAIL". */
  things: string;
  load: (ctx: AppContext, user: User) => Promise<R[]>;
  json: readonly (keyof R & string)[];
  table: { headers: string[]; row: (r: R) => string[] };
}): Command {
  return {
    name: c.name,
    usage: c.usage,
    async run(argv, io) {
      const { values } = parseCommand(this.name, argv, { user: { type: 'string' }, json: { type: 'boolean' } });
      const email = required(this.name, 'user', values.user);
      const rows = await withContext(io, async (ctx) => c.load(ctx, await userByEmail(ctx, email)));
      if (values.json)
        return printJson(
          io,
          rows.map((r) => Object.fromEntries(c.json.map((field) => [field, r[field]]))),
        );
      if (rows.length === 0) return printLine(io, `no ${c.things} for ${email}`);
      printLine(io, formatTable(c.table.headers, rows.map(c.table.row)));
    },
  };
}
