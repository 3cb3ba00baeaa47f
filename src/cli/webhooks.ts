import { type Language, message } from '../i18n/i18n.js';
import { fieldMessage } from '../i18n/reasons.js';
import type { Actor } from '../domain/policy.js';
import { EVENT_TYPES, type UserRole } from '../domain/values.js';
import type { User } from '../db/tables.js';
import { ApiError } from '../shared/errors.js';
import { type Command, cliError, parseCommand, positiveInteger, required, requiredPositional, usageWords } from './args.js';
import { cliLanguage, cliTranslator } from './language.js';
import { userByEmail, withContext } from './open-context.js';
import { userListCommand } from './user-list.js';
import { printJson, printLine, shortTime } from './output.js';

/** The reason an endpoint disabled from the command line shows (web Profile, `webhooks list`). */
export const OPERATOR_REASON = 'disabled by an operator';

const actorOf = (user: User): Actor => ({ id: user.id, role: user.role as UserRole });

/** The known event types, three a line, indented under the option. */
function eventTypeLines(): string {
  const lines: string[] = [];
  for (let i = 0; i < EVENT_TYPES.length; i += 3) lines.push(`                       ${EVENT_TYPES.slice(i, i + 3).join(', ')}`);
  return lines.join(',\n');
}

/** The service's refusal of the URL, said in the command's terms: `--url X: <reason>`. */
function refusedUrl(err: unknown, url: string, language: Language): unknown {
  if (!(err instanceof ApiError) || err.status !== 422 || err.details?.[0]?.field !== 'url') return err;
  const detail = err.details[0];
  const reason = fieldMessage(language, detail);
  const hinted = detail.reason?.key === 'reason.url.private' ? message(language, 'cli.webhooks.privateHint', { reason }) : reason;
  return cliError({ key: 'cli.webhooks.refusedUrl', values: { url, reason: hinted } });
}

export const webhooksCreateCommand: Command = {
  name: 'webhooks create',
  usage: (language) => message(language, 'cli.webhooks.create.usage', { types: eventTypeLines(), fields: '{id, secret}' }),
  async run(argv, io) {
    const { values } = parseCommand(this.name, argv, {
      user: { type: 'string' },
      url: { type: 'string' },
      events: { type: 'string' },
      project: { type: 'string' },
      json: { type: 'boolean' },
    });
    const email = required(this.name, 'user', values.user);
    const url = required(this.name, 'url', values.url);
    let events: string[] | null = null;
    if (values.events !== undefined) {
      events = values.events
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean);
      const unknown = events.filter((e) => !(EVENT_TYPES as readonly string[]).includes(e));
      if (unknown.length) {
        throw usageWords('cli.webhooks.unknownEvents', { types: unknown.map((e) => `"${e}"`).join(', '), known: EVENT_TYPES.join(', ') });
      }
      if (events.length === 0) throw usageWords('cli.webhooks.noEvents');
    }
    const projectId = values.project === undefined ? null : positiveInteger('--project', values.project);
    const created = await withContext(io, async (ctx) => {
      const user = await userByEmail(ctx, email);
      return ctx.webhooks.create(actorOf(user), { url, events, projectId }).catch((err: unknown) => {
        throw refusedUrl(err, url, cliLanguage(io.env));
      });
    });
    if (values.json) return printJson(io, { id: created.id, secret: created.secret });
    printLine(io, created.secret);
  },
};

export const webhooksListCommand = userListCommand({
  name: 'webhooks list',
  usage: (language) => message(language, 'cli.webhooks.list.usage', { fields: '{id, url, events, project_id, state, created_at}' }),
  none: 'cli.none.webhooks',
  load: (ctx, user) => ctx.webhooks.list(actorOf(user)),
  json: ['id', 'url', 'events', 'project_id', 'state', 'created_at'],
  table: {
    headers: ['cli.table.id', 'cli.table.state', 'cli.table.created', 'cli.table.project', 'cli.table.events', 'cli.table.url'],
    // The reason is stored text (an operator's, the sender's): shown as written, inside the language's words.
    row: (w, t) => [
      String(w.id),
      w.state === 'disabled'
        ? t('cli.value.disabledBecause', { reason: w.disabled_reason ?? t('cli.value.noReason') })
        : t('cli.value.active'),
      shortTime(w.created_at),
      w.project_id === null ? t('cli.value.all') : String(w.project_id),
      w.events === null ? t('cli.value.all') : w.events.join(','),
      w.url,
    ],
  },
});

export const webhooksDisableCommand: Command = {
  name: 'webhooks disable',
  usage: (language) => message(language, 'cli.webhooks.disable.usage', { reason: OPERATOR_REASON }),
  async run(argv, io) {
    const t = cliTranslator(io);
    const { positionals } = parseCommand(this.name, argv, {}, 1);
    const id = positiveInteger(t('cli.webhooks.label'), requiredPositional(this.name, t('cli.webhooks.missing'), positionals));
    await withContext(io, (ctx) => ctx.webhooks.disable(null, id, { reason: OPERATOR_REASON }));
    printLine(io, t('cli.webhooks.disabled', { id: String(id) }));
  },
};
