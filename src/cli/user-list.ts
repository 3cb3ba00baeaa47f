import type { AppContext } from '../composition/context.js';
import type { User } from '../db/tables.js';
import type { MessageKey, Translate } from '../i18n/i18n.js';
import { type Command, parseCommand, required } from './args.js';
import { userByEmail, withContext } from './open-context.js';
import { cliTranslator } from './language.js';
import { formatTable, printJson, printLine } from './output.js';

/**
 * A `punchlist <things> list --user EMAIL [--json]` command: the named user's rows as a JSON array of the
 * `json` fields (in that order), or as a table for people in the operator's language; `none` ("no … for EMAIL") when
 * there are none.
 */
export function userListCommand<R>(c: {
  name: string;
  usage: Command['usage'];
  /** What is said when there are no rows ({email}). */
  none: MessageKey;
  load: (ctx: AppContext, user: User) => Promise<R[]>;
  json: readonly (keyof R & string)[];
  table: { headers: MessageKey[]; row: (r: R, t: Translate) => string[] };
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
      const t = cliTranslator(io);
      if (rows.length === 0) return printLine(io, t(c.none, { email }));
      printLine(
        io,
        formatTable(
          c.table.headers.map((h) => t(h)),
          rows.map((r) => c.table.row(r, t)),
        ),
      );
    },
  };
}
