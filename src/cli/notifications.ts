import { message } from '../i18n/i18n.js';
import { shortTime } from './output.js';
import { userListCommand } from './user-list.js';

/** What `--json` prints of each. */
const FIELDS = ['id', 'kind', 'at', 'item_id', 'project_id', 'read_at', 'emailed_at', 'text'] as const;

/** How many of a user's notifications are listed, newest first. */
const LISTED = 500;

export const notificationsListCommand = userListCommand({
  name: 'notifications list',
  usage: (language) => message(language, 'cli.notifications.list.usage', { limit: String(LISTED), fields: `{${FIELDS.join(', ')}}` }),
  none: 'cli.none.notifications',
  load: (ctx, user) => ctx.notifications.list(user.id, LISTED),
  json: FIELDS,
  table: {
    headers: ['cli.table.id', 'cli.table.at', 'cli.table.kind', 'cli.table.item', 'cli.table.read', 'cli.table.emailed', 'cli.table.text'],
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
