import { SCOPES, isScope } from '../domain/scopes.js';
import {
  type Command,
  endOfDayUtc,
  parseCommand,
  parseDuration,
  positiveInteger,
  required,
  requiredPositional,
  usageError,
} from './args.js';
import { userByEmail, withContext } from './open-context.js';
import { userListCommand } from './user-list.js';
import { printJson, printLine, shortTime } from './output.js';

const DEFAULT_EXPIRY = '30d';

export const tokensCreateCommand: Command = {
  name: 'tokens create',
  usage: `Usage: punchlist tokens create --user EMAIL --name NAME --scopes a,b,c [--projects 1,2]
                              [--expires-in Nd|Nh | --expires-at YYYY-MM-DD | --no-expiry] [--json]

Creates an API token for a user and prints the raw token alone on stdout. It is shown only this once
(only its SHA-256 is stored).

Options:
  --user EMAIL       the user the token acts as
  --name NAME        a label for the token (1-200 characters)
  --scopes a,b,c     comma-separated scopes, at least one of:
                       ${SCOPES.join(', ')}
  --projects 1,2     limit the token to these project ids (each one the user must see); default:
                     every project the user can see, now and later
  --expires-in D     lifetime from now: Nd (days) or Nh (hours); default ${DEFAULT_EXPIRY}
  --expires-at DATE  valid through that date: expires at the end of that day, UTC
                     (the next day at 00:00:00Z)
  --no-expiry        never expires
  --json             print {id, token, expires_at, scopes, project_ids} instead of the raw token alone

--expires-in, --expires-at and --no-expiry exclude each other.`,
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
      throw usageError(`unknown scope ${unknown.map((s) => `"${s}"`).join(', ')} (known scopes: ${SCOPES.join(', ')})`);
    }
    if (scopes.length === 0) throw usageError('--scopes must name at least one scope');
    const expiryOptions = (['expires-in', 'expires-at', 'no-expiry'] as const).filter((o) => values[o] !== undefined);
    if (expiryOptions.length > 1) {
      throw usageError(`${expiryOptions.map((o) => `--${o}`).join(' and ')} exclude each other: choose one`);
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
  if (parts.every((s) => s === '')) throw usageError('--projects must name at least one project id');
  return parts.map((s) => positiveInteger('--projects', s));
}

/** Checks the expiry options before anything is opened; the result computes the instant from "now". */
function expiryFrom(expiresIn: string | undefined, expiresAt: string | undefined, noExpiry: boolean | undefined) {
  if (noExpiry) return () => null;
  if (expiresAt !== undefined) {
    const at = endOfDayUtc('--expires-at', expiresAt);
    if (at <= new Date()) throw usageError(`--expires-at ${expiresAt} is in the past`);
    return () => at;
  }
  const lifetime = expiresIn ?? DEFAULT_EXPIRY;
  parseDuration('--expires-in', lifetime, new Date());
  return (now: Date) => parseDuration('--expires-in', lifetime, now);
}

export const tokensListCommand = userListCommand({
  name: 'tokens list',
  usage: `Usage: punchlist tokens list --user EMAIL [--json]

Lists a user's API tokens, newest first, with their state (active, expired or revoked). Never shows a
raw token.

Options:
  --user EMAIL       whose tokens
  --json             print a JSON array of {id, name, scopes, project_ids, created_at, expires_at,
                     revoked_at, last_used_at, last_used_ip, state} instead of a table
                     (project_ids: null when the token reaches every project of its user)`,
  things: 'tokens',
  load: (ctx, user) => ctx.tokens.listTokens(user.id),
  json: ['id', 'name', 'scopes', 'project_ids', 'created_at', 'expires_at', 'revoked_at', 'last_used_at', 'last_used_ip', 'state'],
  table: {
    headers: ['ID', 'NAME', 'STATE', 'CREATED', 'EXPIRES', 'LAST USED', 'FROM', 'SCOPES', 'PROJECTS'],
    row: (t) => [
      String(t.id),
      t.name,
      t.state === 'revoked' ? `revoked ${shortTime(t.revoked_at)}` : t.state,
      shortTime(t.created_at),
      shortTime(t.expires_at, 'never'),
      shortTime(t.last_used_at, 'never'),
      t.last_used_ip ?? '-',
      t.scopes.join(','),
      t.project_ids?.join(',') ?? 'all',
    ],
  },
});

export const tokensRevokeCommand: Command = {
  name: 'tokens revoke',
  usage: `Usage: punchlist tokens revoke ID

Revokes the API token with that id (see punchlist tokens list): it stops working at once, and when an
application got it through OAuth its authorization ends too (its refresh token stops), as when the token
is revoked in the Profile. Revoking a revoked token again changes nothing.`,
  async run(argv, io) {
    const { positionals } = parseCommand(this.name, argv, {}, 1);
    const id = positiveInteger('the token ID', requiredPositional(this.name, 'token ID', positionals));
    await withContext(io, (ctx) => ctx.tokens.revokeToken(id));
    printLine(io, `revoked token ${id}`);
  },
};
