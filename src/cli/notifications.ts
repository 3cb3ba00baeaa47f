import { shortTime } from './output.js';
import { userListCommand } from './user-list.js';

/** How many of a user's notifications are listed, newest first. */
const LISTED = 500;

export const notificationsListCommand = userListCommand({
  name: 'notifications list',
  usage: `Usage: punchlist notifications list --user EMAIL [--json]

Lists a user's notifications (docs/design.md §15), newest first (at most ${LISTED}): what they were told, when,
whether they read it and when it was emailed. Kinds: see docs/notifications.md.

Options:
  --user EMAIL       whose notifications
  --json             print a JSON array of {id, kind, at, item_id, project_id, read_at, emailed_at, text}
                     instead of a table`,
  things: 'notifications',
  load: (ctx, user) => ctx.notifications.list(user.id, LISTED),
  json: ['id', 'kind', 'at', 'item_id', 'project_id', 'read_at', 'emailed_at', 'text'],
  table: {
    headers: ['ID', 'AT', 'KIND', 'ITEM', 'READ', 'EMAILED', 'TEXT'],
    row: (n) => [
      String(n.id),
      shortTime(n.at),
      n.kind,
      n.item_id === null ? '-' : String(n.item_id),
      shortTime(n.read_at),
      shortTime(n.emailed_at),
      n.text.replace(/\s+/g, ' '),
    ],
  },
});
