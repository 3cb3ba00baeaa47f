import { type Command, CliError, usageError, wantsHelp } from './args.js';
import type { CliIo } from './io.js';

export { type CliIo, processIo } from './io.js';

/**
 * The `punchlist` dispatcher: bin/punchlist runs it with the process's io, tests with their own (io.ts). Each
 * command lives in its own module, loaded only when it runs, so `--help` and the short commands do not pay for
 * the HTTP stack.
 */
const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  serve: { summary: 'apply migrations, then serve (never loads demo data)', load: async () => (await import('./serve.js')).serveCommand },
  migrate: { summary: 'apply database migrations only', load: async () => (await import('./migrate.js')).migrateCommand },
  import: {
    summary: 'load a fixture file, keeping its ids (all or nothing)',
    load: async () => (await import('./import.js')).importCommand,
  },
  'users create': { summary: 'create a user', load: async () => (await import('./users.js')).usersCreateCommand },
  'companies list': {
    summary: "list the workspace's companies (retired ones too)",
    load: async () => (await import('./companies.js')).companiesListCommand,
  },
  'tokens create': {
    summary: 'create an API token; prints the raw token once',
    load: async () => (await import('./tokens.js')).tokensCreateCommand,
  },
  'tokens list': {
    summary: "list a user's API tokens and their state",
    load: async () => (await import('./tokens.js')).tokensListCommand,
  },
  'tokens revoke': { summary: 'revoke an API token', load: async () => (await import('./tokens.js')).tokensRevokeCommand },
  'webhooks create': {
    summary: 'create a webhook endpoint for a user; prints its signing secret once',
    load: async () => (await import('./webhooks.js')).webhooksCreateCommand,
  },
  'webhooks list': {
    summary: "list a user's webhook endpoints and their state",
    load: async () => (await import('./webhooks.js')).webhooksListCommand,
  },
  'webhooks disable': {
    summary: 'disable a webhook endpoint (an operator action)',
    load: async () => (await import('./webhooks.js')).webhooksDisableCommand,
  },
  'notifications list': {
    summary: "list a user's notifications, newest first",
    load: async () => (await import('./notifications.js')).notificationsListCommand,
  },
  'templates list': { summary: 'list the templates', load: async () => (await import('./templates.js')).templatesListCommand },
  'templates export': {
    summary: "print a template's JSON document",
    load: async () => (await import('./templates.js')).templatesExportCommand,
  },
  'templates import': {
    summary: 'store a template from its JSON document',
    load: async () => (await import('./templates.js')).templatesImportCommand,
  },
  audit: { summary: 'show the API call records, newest first', load: async () => (await import('./audit.js')).auditCommand },
  export: {
    summary: 'write the whole database as a fixture (JSON) to FILE or stdout (backups, moving to PostgreSQL)',
    load: async () => (await import('./export.js')).exportCommand,
  },
  backup: {
    summary: 'copy the SQLite database and its blobs into DIR while the server runs',
    load: async () => (await import('./backup.js')).backupCommand,
  },
  restore: { summary: 'restore a backup into an empty data location', load: async () => (await import('./backup.js')).restoreCommand },
  mcp: { summary: 'serve the MCP tools on stdio, calling the API with a token', load: async () => (await import('./mcp.js')).mcpCommand },
  report: {
    summary: "write a project's punch list as CSV (default) or PDF, to FILE or stdout",
    load: async () => (await import('./report.js')).reportCommand,
  },
};

const SYNOPSIS: Record<string, string> = {
  import: 'import FILE.json',
  'users create': 'users create --email E --name N [--role admin|member] [--password P]',
  'companies list': 'companies list [--json]',
  'tokens create':
    'tokens create --user EMAIL --name NAME --scopes a,b,c [--expires-in Nd|Nh | --expires-at YYYY-MM-DD | --no-expiry] [--json]',
  'tokens list': 'tokens list --user EMAIL [--json]',
  'tokens revoke': 'tokens revoke ID',
  'webhooks create': 'webhooks create --user EMAIL --url URL [--events a,b] [--project ID] [--json]',
  'webhooks list': 'webhooks list --user EMAIL [--json]',
  'webhooks disable': 'webhooks disable ID',
  'notifications list': 'notifications list --user EMAIL [--json]',
  audit: 'audit [--token ID] [--user EMAIL] [--since ISO] [--limit N] [--json | --ndjson]',
  export: 'export [FILE] [--quiet]',
  backup: 'backup DIR',
  restore: 'restore DIR',
  mcp: 'mcp [--token TOKEN | env PUNCHLIST_TOKEN] [--url BASE_URL] [--read-only]',
  report: 'report --project ID [--user EMAIL] [--format pdf|csv] [--status S] [--output FILE] [--progress]',
};

export const USAGE = `Usage: punchlist <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, { summary }]) => `  ${SYNOPSIS[name] ?? name}\n      ${summary}`)
  .join('\n')}
  help [COMMAND]
      show this help, or a command's help (also: punchlist COMMAND --help)

Configuration comes from the environment only:
  DATABASE_URL   sqlite:PATH (default sqlite:./data/punchlist.db) or postgres://…
  STORAGE_URL    file:PATH (default file:./data/storage) or s3://BUCKET?endpoint=…&region=…
  HOST, PORT, BASE_URL, LOG_LEVEL, SESSION_SECRET, DATA_DIR, TRUST_PROXY, RATE_LIMIT_PER_MINUTE
Relative paths are relative to the current directory.

Exit status: 0 on success; otherwise 1 (or 2 for a usage mistake) with one line
"punchlist: <reason>" on stderr.`;

const GROUPS = [
  ...new Set(
    Object.keys(COMMANDS)
      .filter((n) => n.includes(' '))
      .map((n) => n.split(' ')[0] ?? ''),
  ),
];

function groupUsage(group: string): string {
  const names = Object.keys(COMMANDS).filter((n) => n.startsWith(`${group} `));
  return `Usage: punchlist ${group} <${names.map((n) => n.slice(group.length + 1)).join('|')}> [options]\n\n${names
    .map((n) => `  ${SYNOPSIS[n] ?? n}\n      ${COMMANDS[n]?.summary ?? ''}`)
    .join('\n')}\n\nRun punchlist ${group} <subcommand> --help for its options.`;
}

/** Splits argv into the command name (one or two words) and its own arguments. */
function resolve(argv: string[]): { name: string; rest: string[] } | { group: string; rest: string[] } {
  const [first = '', second, ...others] = argv;
  if (GROUPS.includes(first)) {
    if (second === undefined || second.startsWith('-')) return { group: first, rest: argv.slice(1) };
    const name = `${first} ${second}`;
    if (!COMMANDS[name]) throw usageError(`unknown command "${name}" (see punchlist ${first} --help)`);
    return { name, rest: others };
  }
  if (!COMMANDS[first]) throw usageError(`unknown command "${first}" (see punchlist --help)`);
  return { name: first, rest: argv.slice(1) };
}

async function helpFor(words: string[]): Promise<string> {
  if (words.length === 0) return USAGE;
  const target = resolve(words);
  if ('group' in target) return groupUsage(target.group);
  return (await COMMANDS[target.name]!.load()).usage;
}

async function dispatch(argv: string[], io: CliIo): Promise<void> {
  const [first] = argv;
  if (first === undefined) {
    io.stdout.write(USAGE + '\n');
    throw usageError('missing command (see punchlist --help)');
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    io.stdout.write((await helpFor(argv.slice(1).filter((a) => !a.startsWith('-')))) + '\n');
    return;
  }
  if (first === '--version' || first === '-V') {
    const { createRequire } = await import('node:module');
    const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };
    io.stdout.write(`punchlist ${version}\n`);
    return;
  }
  if (first.startsWith('-')) throw usageError(`unknown option ${first} (see punchlist --help)`);
  const target = resolve(argv);
  if ('group' in target) {
    if (wantsHelp(target.rest)) return void io.stdout.write(groupUsage(target.group) + '\n');
    throw usageError(`missing subcommand for ${target.group} (see punchlist ${target.group} --help)`);
  }
  const command = await COMMANDS[target.name]!.load();
  if (wantsHelp(target.rest)) return void io.stdout.write(command.usage + '\n');
  await command.run(target.rest, io);
}

/** One line, whatever the error: the reason, never a stack trace. */
export function describeError(err: unknown): string {
  let message = err instanceof Error ? err.message : String(err);
  // A refused connection to several addresses arrives as an AggregateError without a message of its own.
  if (!message && err instanceof AggregateError) message = err.errors.map((e) => (e instanceof Error ? e.message : String(e))).join('; ');
  if (!message) message = (err as { code?: string }).code ?? 'unexpected error';
  return message.replace(/\s*\n\s*/g, ' ').trim();
}

/**
 * Runs one command with `io` and returns its exit status: 0, or after one line `punchlist: <reason>` on
 * stderr, 1 (2 for a usage mistake). Never throws; the caller (bin/punchlist) ends the process.
 */
export async function main(argv: string[], io: CliIo): Promise<number> {
  try {
    await dispatch(argv, io);
    return 0;
  } catch (err) {
    io.stderr.write(`punchlist: ${describeError(err)}\n`);
    return err instanceof CliError ? err.exitCode : 1;
  }
}
