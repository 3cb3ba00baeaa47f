import { type ParseArgsConfig, parseArgs } from 'node:util';
import { isCalendarDate } from '../domain/values.js';
import { type Language, message, type MessageKey, type MessageValues } from '../i18n/i18n.js';
import type { CliIo } from './io.js';

/** Exit status of a usage mistake (unknown command or option, missing or malformed value). */
export const USAGE_EXIT = 2;

/** What a CLI message says of where help is: "(see punchlist tokens create --help)"; `command` empty: the whole CLI's. */
function seeHelp(language: Language, command: string): string {
  return message(language, 'cli.seeHelp', { command: `punchlist${command ? ` ${command}` : ''}` });
}

/** A message of cli.json with its arguments, and the command whose help it points to (its `{see}`), if any. */
interface CliWords {
  key: MessageKey;
  values?: MessageValues;
  help?: string;
}

const say = (language: Language, words: CliWords) =>
  message(language, words.key, words.help === undefined ? words.values : { ...words.values, see: seeHelp(language, words.help) });

/**
 * An expected failure of a command: printed as one line `punchlist: <message>`, no stack trace. With `words`, the
 * line is that message in the operator's language (main.ts); `message` is its English.
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
    readonly words?: CliWords,
  ) {
    super(message);
  }

  /** The line in `language`. */
  in(language: Language): string {
    return this.words ? say(language, this.words) : this.message;
  }
}

export const usageError = (message: string) => new CliError(message, USAGE_EXIT);

/** A failure told by a message of cli.json (its English as the error's message); `help`: the command its `{see}` names. */
export const cliError = (words: CliWords, exitCode = 1) => new CliError(say('en', words), exitCode, words);

/** A usage mistake told by a message of cli.json. */
export const usageWords = (key: MessageKey, values?: MessageValues, help?: string) => cliError({ key, values, help }, USAGE_EXIT);

/**
 * A command of the CLI: its name as typed (`tokens create`), its help text (in the operator's language where it
 * has one: a function of it) and what it does with its io.
 */
export interface Command {
  name: string;
  usage: string | ((language: Language) => string);
  run(argv: string[], io: CliIo): Promise<void>;
}

/** `--help` / `-h` anywhere before `--` asks for the command's help instead of running it. */
export function wantsHelp(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/**
 * node:util parseArgs in strict mode, with its errors turned into one-line usage errors that name the
 * command. `positionals` is the exact number of positional arguments the command takes.
 */
type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

export function parseCommand<O extends OptionsConfig>(command: string, argv: string[], options: O, positionals = 0) {
  let parsed;
  try {
    parsed = parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: true }>({
      args: argv,
      options,
      strict: true,
      allowPositionals: true,
    });
  } catch (err) {
    throw parseError(err, command);
  }
  if (parsed.positionals.length > positionals) {
    throw usageWords('cli.error.unexpectedArgument', { argument: parsed.positionals[positionals]!, command }, command);
  }
  return parsed;
}

function parseError(err: unknown, command: string): CliError {
  const code = (err as { code?: string }).code;
  const text = err instanceof Error ? err.message : String(err);
  const option = /'(-[^' ]*)/.exec(text)?.[1] ?? '';
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return usageWords('cli.error.unknownOption', { option: option || text }, command);
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return usageWords(
        /argument missing|ambiguous/.test(text) ? 'cli.error.optionNeedsValue' : 'cli.error.optionTakesNoValue',
        { option },
        command,
      );
    default:
      return usageWords('cli.error.invalidArguments', { reason: text.split('\n')[0] ?? 'invalid arguments' }, command);
  }
}

/** The value of an option the command cannot do without. */
export function required<T>(command: string, name: string, value: T | undefined): T {
  if (value === undefined || value === '') throw usageWords('cli.error.missingOption', { name }, command);
  return value;
}

/** The positional argument at `index`, which the command cannot do without. */
export function requiredPositional(command: string, label: string, positionals: string[], index = 0): string {
  const value = positionals[index];
  if (value === undefined || value === '') throw usageWords('cli.error.missingPositional', { label }, command);
  return value;
}

/** A positive decimal integer (ids, limits). */
export function positiveInteger(label: string, value: string, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^[1-9][0-9]{0,15}$/.test(value) || Number(value) > max) {
    throw max < Number.MAX_SAFE_INTEGER
      ? usageWords('cli.error.positiveIntegerUpTo', { label, max: String(max), value })
      : usageWords('cli.error.positiveInteger', { label, value });
  }
  return Number(value);
}

/** `Nd` (days) or `Nh` (hours) from now. */
export function parseDuration(label: string, value: string, now: Date): Date {
  const match = /^([1-9][0-9]{0,6})([dh])$/.exec(value);
  const at = match ? new Date(now.getTime() + Number(match[1]) * (match[2] === 'd' ? 86_400_000 : 3_600_000)) : null;
  if (!at || at.getUTCFullYear() > 9999) throw usageWords('cli.error.duration', { label, value });
  return at;
}

/** A calendar date YYYY-MM-DD as the instant its day ends in UTC (the next day at 00:00:00Z). */
export function endOfDayUtc(label: string, value: string): Date {
  if (!isCalendarDate(value)) throw usageWords('cli.error.date', { label, value });
  const start = new Date(`${value}T00:00:00.000Z`);
  return new Date(start.getTime() + 86_400_000);
}

const ISO_DATE_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * An instant written as ISO 8601: a date (its start, UTC) or a date and time; a time without a zone
 * is read as UTC, like every time the service stores. Returned as `toISOString()` so it compares
 * with stored timestamps as text.
 */
export function parseInstant(label: string, value: string): string {
  const bad = () => usageWords('cli.error.instant', { label, value });
  if (isCalendarDate(value)) return new Date(`${value}T00:00:00.000Z`).toISOString();
  const match = ISO_DATE_TIME.exec(value);
  if (!match || !isCalendarDate(match[1] ?? '')) throw bad();
  if (Number(match[2]) > 23 || Number(match[3]) > 59 || Number(match[4] ?? 0) > 59) throw bad();
  const zone = match[5] ?? 'Z';
  const local = value.slice(0, value.length - (match[5]?.length ?? 0)).replace(' ', 'T');
  const at = new Date(local + (/^[+-]\d{4}$/.test(zone) ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone.toUpperCase()));
  if (Number.isNaN(at.getTime())) throw bad();
  return at.toISOString();
}
