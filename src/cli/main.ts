import { isMessageKey, type Language, message, translator } from '../i18n/i18n.js';
import { type Command, CliError, usageWords, wantsHelp } from './args.js';
import type { CliIo } from './io.js';
import { cliLanguage } from './language.js';

export { type CliIo, processIo } from './io.js';

/**
 * The `punchlist` dispatcher: bin/punchlist runs it with the process's io, tests with their own (io.ts). Each
 * command lives in its own module, loaded only when it runs, so `--help` and the short commands do not pay for
 * the HTTP stack.
 */
const COMMANDS: Record<string, { load: () => Promise<Command> }> = {
  serve: { load: async () => (await import('./serve.js')).serveCommand },
  migrate: { load: async () => (await import('./migrate.js')).migrateCommand },
  import: { load: async () => (await import('./import.js')).importCommand },
  'users create': { load: async () => (await import('./users.js')).usersCreateCommand },
  'companies list': { load: async () => (await import('./companies.js')).companiesListCommand },
  'tokens create': { load: async () => (await import('./tokens.js')).tokensCreateCommand },
  'tokens list': { load: async () => (await import('./tokens.js')).tokensListCommand },
  'tokens revoke': { load: async () => (await import('./tokens.js')).tokensRevokeCommand },
  'webhooks create': { load: async () => (await import('./webhooks.js')).webhooksCreateCommand },
  'webhooks list': { load: async () => (await import('./webhooks.js')).webhooksListCommand },
  'webhooks disable': { load: async () => (await import('./webhooks.js')).webhooksDisableCommand },
  'notifications list': { load: async () => (await import('./notifications.js')).notificationsListCommand },
  'templates list': { load: async () => (await import('./templates.js')).templatesListCommand },
  'templates export': { load: async () => (await import('./templates.js')).templatesExportCommand },
  'templates import': { load: async () => (await import('./templates.js')).templatesImportCommand },
  audit: { load: async () => (await import('./audit.js')).auditCommand },
  export: { load: async () => (await import('./export.js')).exportCommand },
  backup: { load: async () => (await import('./backup.js')).backupCommand },
  restore: { load: async () => (await import('./backup.js')).restoreCommand },
  mcp: { load: async () => (await import('./mcp.js')).mcpCommand },
  report: { load: async () => (await import('./report.js')).reportCommand },
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
  report: 'report --project ID [--user EMAIL] [--format pdf|csv] [--status S] [--language L] [--output FILE] [--progress]',
};

/** A command's one line in the help (cli.json's `cli.summary.<name>`, the words of its name joined by dots). */
function summaryOf(language: Language, name: string): string {
  const key = `cli.summary.${name.replace(/ /g, '.')}`;
  return isMessageKey(key) ? message(language, key) : '';
}

/** The whole CLI's help in the operator's language (docs/cli.md). */
export function usage(language: Language): string {
  const t = translator(language);
  return `${t('cli.usage.title')}

${t('cli.usage.commands')}
${Object.keys(COMMANDS)
  .map((name) => `  ${SYNOPSIS[name] ?? name}\n      ${summaryOf(language, name)}`)
  .join('\n')}
  help [COMMAND]
      ${t('cli.usage.help')}

${t('cli.usage.config')}
  DATABASE_URL   ${t('cli.usage.database')}
  STORAGE_URL    ${t('cli.usage.storage')}
  HOST, PORT, BASE_URL, LOG_LEVEL, SESSION_SECRET, DATA_DIR, TRUST_PROXY, RATE_LIMIT_PER_MINUTE
${t('cli.usage.relative')}

${t('cli.usage.language')}

${t('cli.usage.exit')}`;
}

/** The English help, as before. */
export const USAGE = usage('en');

const GROUPS = [
  ...new Set(
    Object.keys(COMMANDS)
      .filter((n) => n.includes(' '))
      .map((n) => n.split(' ')[0] ?? ''),
  ),
];

function groupUsage(group: string, language: Language): string {
  const t = translator(language);
  const names = Object.keys(COMMANDS).filter((n) => n.startsWith(`${group} `));
  const subcommands = names.map((n) => n.slice(group.length + 1)).join('|');
  return `${t('cli.group.usage', { group, subcommands })}\n\n${names
    .map((n) => `  ${SYNOPSIS[n] ?? n}\n      ${summaryOf(language, n)}`)
    .join('\n')}\n\n${t('cli.group.more', { group })}`;
}

/** A command's help in `language` (English where the command has no other). */
const usageOf = (command: Command, language: Language) => (typeof command.usage === 'string' ? command.usage : command.usage(language));

/** Splits argv into the command name (one or two words) and its own arguments. */
function resolve(argv: string[]): { name: string; rest: string[] } | { group: string; rest: string[] } {
  const [first = '', second, ...others] = argv;
  if (GROUPS.includes(first)) {
    if (second === undefined || second.startsWith('-')) return { group: first, rest: argv.slice(1) };
    const name = `${first} ${second}`;
    if (!COMMANDS[name]) throw usageWords('cli.error.unknownCommand', { name }, first);
    return { name, rest: others };
  }
  if (!COMMANDS[first]) throw usageWords('cli.error.unknownCommand', { name: first }, '');
  return { name: first, rest: argv.slice(1) };
}

async function helpFor(words: string[], language: Language): Promise<string> {
  if (words.length === 0) return usage(language);
  const target = resolve(words);
  if ('group' in target) return groupUsage(target.group, language);
  return usageOf(await COMMANDS[target.name]!.load(), language);
}

async function dispatch(argv: string[], io: CliIo, language: Language): Promise<void> {
  const [first] = argv;
  if (first === undefined) {
    io.stdout.write(usage(language) + '\n');
    throw usageWords('cli.error.missingCommand', {}, '');
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    io.stdout.write(
      (await helpFor(
        argv.slice(1).filter((a) => !a.startsWith('-')),
        language,
      )) + '\n',
    );
    return;
  }
  if (first === '--version' || first === '-V') {
    const { createRequire } = await import('node:module');
    const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };
    io.stdout.write(`punchlist ${version}\n`);
    return;
  }
  if (first.startsWith('-')) throw usageWords('cli.error.unknownOption', { option: first }, '');
  const target = resolve(argv);
  if ('group' in target) {
    if (wantsHelp(target.rest)) return void io.stdout.write(groupUsage(target.group, language) + '\n');
    throw usageWords('cli.error.missingSubcommand', { group: target.group }, target.group);
  }
  const command = await COMMANDS[target.name]!.load();
  if (wantsHelp(target.rest)) return void io.stdout.write(usageOf(command, language) + '\n');
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
  // The operator's language (LC_ALL, LC_MESSAGES, LANG): help and the errors the CLI words itself.
  const language = cliLanguage(io.env);
  try {
    await dispatch(argv, io, language);
    return 0;
  } catch (err) {
    io.stderr.write(`punchlist: ${err instanceof CliError ? describeError(new Error(err.in(language))) : describeError(err)}\n`);
    return err instanceof CliError ? err.exitCode : 1;
  }
}
