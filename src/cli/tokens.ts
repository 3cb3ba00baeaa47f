import { SCOPES, isScope } from '../domain/scopes.js';
import {
  type Command,
  endOfDayUtc,
  parseCommand,
  parseDuration,
  positiveInteger,
  required,
  requiredPositional,
  usageWords,
} from './args.js';
import { message } from '../i18n/i18n.js';
import { cliTranslator } from './language.js';
import { userByEmail, withContext } from './open-context.js';
import { userListCommand } from './user-list.js';
import { printJson, printLine, shortTime } from './output.js';

const DEFAULT_EXPIRY = '30d';

/** What `tokens list --json` prints of each. */
const TOKEN_FIELDS = [
  'id',
  'name',
  'scopes',
  'project_ids',
  'created_at',
  'expires_at',
  'revoked_at',
  'last_used_at',
  'last_used_ip',
  'state',
] as const;

export const tokensCreateCommand: Command = {
  name: 'tokens create',
  usage: (language) =>
    message(language, 'cli.tokens.create.usage', {
      scopes: SCOPES.join(', '),
      expiry: DEFAULT_EXPIRY,
      fields: '{id, token, expires_at, scopes, project_ids}',
    }),
  async run(argv, io) {
    const { values } = parseCommand(this.name, argv, {
      user: { type: 'string' },
      name: { type: 'string' },
      scopes: { type: 'string' },
      projects: { type: 'string' },
      'expires-in': { type: 'string' },
      'expires-at': { type: 'string' },
      'no-expiry': { type: 'boolean' },
      json: { type: 'boolean' },
    });
    const email = required(this.name, 'user', values.user);
    const name = required(this.name, 'name', values.name);
    const scopes = required(this.name, 'scopes', values.scopes)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const unknown = scopes.filter((s) => !isScope(s));
    if (unknown.length) {
      throw usageWords('cli.tokens.create.unknownScope', { unknown: unknown.map((s) => `"${s}"`).join(', '), scopes: SCOPES.join(', ') });
    }
    if (scopes.length === 0) throw usageWords('cli.tokens.create.noScope');
    const expiryOptions = (['expires-in', 'expires-at', 'no-expiry'] as const).filter((o) => values[o] !== undefined);
    if (expiryOptions.length > 1) {
      const [a = '', b = '', c = ''] = expiryOptions.map((o) => `--${o}`);
      throw usageWords('cli.tokens.create.exclusive', { count: expiryOptions.length, a, b, c });
    }
    const projectIds = values.projects === undefined ? null : projectList(values.projects);
    const expiry = expiryFrom(values['expires-in'], values['expires-at'], values['no-expiry']);
    const created = await withContext(io, async (ctx) => {
      const user = await userByEmail(ctx, email);
      return ctx.tokens.createToken({ userId: user.id, name, scopes, expiresAt: expiry(ctx.clock.now()), projectIds });
    });
    if (values.json) return printJson(io, created);
    printLine(io, created.token);
  },
};

/** `--projects 1,2`: project ids; the service then checks that the user sees each one. */
function projectList(value: string): number[] {
  const parts = value.split(',').map((s) => s.trim());
  if (parts.every((s) => s === '')) throw usageWords('cli.tokens.create.noProject');
  return parts.map((s) => positiveInteger('--projects', s));
}

/** Checks the expiry options before anything is opened; the result computes the instant from "now". */
function expiryFrom(expiresIn: string | undefined, expiresAt: string | undefined, noExpiry: boolean | undefined) {
  if (noExpiry) return () => null;
  if (expiresAt !== undefined) {
    const at = endOfDayUtc('--expires-at', expiresAt);
    if (at <= new Date()) throw usageWords('cli.tokens.create.past', { date: expiresAt });
    return () => at;
  }
  const lifetime = expiresIn ?? DEFAULT_EXPIRY;
  parseDuration('--expires-in', lifetime, new Date());
  return (now: Date) => parseDuration('--expires-in', lifetime, now);
}

export const tokensListCommand = userListCommand({
  name: 'tokens list',
  // The fields' list broken as the help's column allows.
  usage: (language) =>
    message(language, 'cli.tokens.list.usage', {
      fields: `{${TOKEN_FIELDS.slice(0, 6).join(', ')},\n${' '.repeat(21)}${TOKEN_FIELDS.slice(6).join(', ')}}`,
    }),
  none: 'cli.none.tokens',
  load: (ctx, user) => ctx.tokens.listTokens(user.id),
  json: TOKEN_FIELDS,
  table: {
    headers: [
      'cli.table.id',
      'cli.table.name',
      'cli.table.state',
      'cli.table.created',
      'cli.table.expires',
      'cli.table.lastUsed',
      'cli.table.from',
      'cli.table.scopes',
      'cli.table.projects',
    ],
    row: (token, t) => [
      String(token.id),
      token.name,
      token.state === 'revoked' ? t('cli.value.revokedAt', { at: shortTime(token.revoked_at) }) : t(`cli.value.${token.state}`),
      shortTime(token.created_at),
      shortTime(token.expires_at, t('cli.value.never')),
      shortTime(token.last_used_at, t('cli.value.never')),
      token.last_used_ip ?? '-',
      token.scopes.join(','),
      token.project_ids?.join(',') ?? t('cli.value.all'),
    ],
  },
});

export const tokensRevokeCommand: Command = {
  name: 'tokens revoke',
  usage: (language) => message(language, 'cli.tokens.revoke.usage'),
  async run(argv, io) {
    const { positionals } = parseCommand(this.name, argv, {}, 1);
    const t = cliTranslator(io);
    const id = positiveInteger(t('cli.tokens.revoke.label'), requiredPositional(this.name, t('cli.tokens.revoke.missing'), positionals));
    await withContext(io, (ctx) => ctx.tokens.revokeToken(id));
    printLine(io, t('cli.tokens.revoke.done', { id: String(id) }));
  },
};
