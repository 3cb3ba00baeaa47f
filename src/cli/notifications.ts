import { type Command, parseCommand, required } from './args.js';
import { userByEmail, withContext } from './open-context.js';
import { formatTable, printJson, printLine, shortTime } from './output.js';

/** How many of a user's notifications are listed, newest first. */
const LISTED = 500;

export const notificationsListCommand: Command = {
  name: 'notifications list',
  usage: `Usage: punchlist notifications list --user EMAIL [--json]

Lists a user's notifications (DESIGN.md §15), newest first (at most ${LISTED}): what they were told, when,
whether they read it and when it was emailed. Kinds: see docs/notifications.md.

Options:
  --user EMAIL       whose notifications
  --json             print a JSON array of {id, kind, at, item_id, project_id, read_at, emailed_at, text}
                     instead of a table`,
  async run(argv) {
    const { values } = parseCommand(this.name, argv, { user: { type: 'string' }, json: { type: 'boolean' } });
    const email = required(this.name, 'user', values.user);
    const rows = await withContext(async (ctx) => ctx.notifications.list((await userByEmail(ctx, email)).id, LISTED));
    if (values.json) {
      return printJson(
        rows.map((n) => ({
          id: n.id,
          kind: n.kind,
          at: n.at,
          item_id: n.item_id,
          project_id: n.project_id,
          read_at: n.read_at,
          emailed_at: n.emailed_at,
          text: n.text,
        })),
      );
    }
    if (rows.length === 0) return printLine(`no notifications for ${email}`);
    printLine(
      formatTable(
        ['ID', 'AT', 'KIND', 'ITEM', 'READ', 'EMAILED', 'TEXT'],
        rows.map((n) => [
          String(n.id),
          shortTime(n.at),
          n.kind,
          n.item_id === null ? '-' : String(n.item_id),
          shortTime(n.read_at),
          shortTime(n.emailed_at),
          n.text.replace(/\s+/g, ' '),
        ]),
      ),
    );
  },
};
