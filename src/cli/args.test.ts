import { describe, expect, it } from 'vitest';
import { CliError, endOfDayUtc, parseCommand, parseDuration, parseInstant, positiveInteger, USAGE_EXIT, wantsHelp } from './args.js';
import { formatTable, shortTime } from './output.js';

const usage = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(USAGE_EXIT);
    expect((err as CliError).message).not.toContain('\n');
    return (err as CliError).message;
  }
  throw new Error('expected a usage error');
};

describe('CLI argument parsing', () => {
  it('parses options strictly and turns parseArgs errors into one-line usage errors', () => {
    const options = { email: { type: 'string' }, json: { type: 'boolean' } } as const;
    const { values, positionals } = parseCommand('users create', ['--email', 'a@x.test', '--json', 'FILE'], options, 1);
    expect(values).toEqual({ email: 'a@x.test', json: true });
    expect(positionals).toEqual(['FILE']);
    expect(usage(() => parseCommand('users create', ['--nope'], options))).toBe(
      'unknown option --nope (see punchlist users create --help)',
    );
    expect(usage(() => parseCommand('users create', ['--email'], options))).toContain('option --email needs a value');
    expect(usage(() => parseCommand('users create', ['--email', '--json'], options))).toContain('option --email needs a value');
    expect(usage(() => parseCommand('users create', ['--json=yes'], options))).toContain('--json takes no value');
    expect(usage(() => parseCommand('users create', ['extra'], options))).toContain('unexpected argument "extra"');
    expect(wantsHelp(['--x', '-h'])).toBe(true);
    expect(wantsHelp(['--', '--help'])).toBe(false);
  });

  it('reads expiry durations and end-of-day dates', () => {
    const now = new Date('2026-05-01T10:00:00.000Z');
    expect(parseDuration('--expires-in', '30d', now).toISOString()).toBe('2026-05-31T10:00:00.000Z');
    expect(parseDuration('--expires-in', '12h', now).toISOString()).toBe('2026-05-01T22:00:00.000Z');
    for (const bad of ['0d', '30', '1w', '-1d', '1.5d', '9999999d']) usage(() => parseDuration('--expires-in', bad, now));
    expect(endOfDayUtc('--expires-at', '2026-12-31').toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(endOfDayUtc('--expires-at', '2028-02-29').toISOString()).toBe('2028-03-01T00:00:00.000Z');
    for (const bad of ['2026-02-30', '2026-1-1', '31.12.2026', '2026-12-31T00:00:00Z']) usage(() => endOfDayUtc('--expires-at', bad));
  });

  it('reads instants for --since as UTC unless a zone is given', () => {
    expect(parseInstant('--since', '2026-05-01')).toBe('2026-05-01T00:00:00.000Z');
    expect(parseInstant('--since', '2026-05-01T12:30:00Z')).toBe('2026-05-01T12:30:00.000Z');
    expect(parseInstant('--since', '2026-05-01T12:30')).toBe('2026-05-01T12:30:00.000Z');
    expect(parseInstant('--since', '2026-05-01 12:30:15.250')).toBe('2026-05-01T12:30:15.250Z');
    expect(parseInstant('--since', '2026-05-01T12:30:00+02:00')).toBe('2026-05-01T10:30:00.000Z');
    expect(parseInstant('--since', '2026-05-01T12:30:00-0130')).toBe('2026-05-01T14:00:00.000Z');
    for (const bad of ['yesterday', '2026-02-30T00:00Z', '2026-05-01T25:00Z', '1714560000']) usage(() => parseInstant('--since', bad));
  });

  it('reads positive integers', () => {
    expect(positiveInteger('--limit', '100', 1000)).toBe(100);
    for (const bad of ['0', '-1', '1e3', '01', 'abc', '1001']) usage(() => positiveInteger('--limit', bad, 1000));
  });
});

describe('CLI output', () => {
  it('aligns table columns by code points and keeps cells on one line', () => {
    expect(
      formatTable(
        ['ID', 'TEXT', 'STATE'],
        [
          ['1', 'Проверка', 'done'],
          ['22', 'a\nb', 'pending'],
        ],
      ),
    ).toBe(['ID  TEXT      STATE', '1   Проверка  done', '22  a b       pending'].join('\n'));
    expect(shortTime('2026-05-01T12:34:56.789Z')).toBe('2026-05-01 12:34Z');
    expect(shortTime(null, 'never')).toBe('never');
  });
});
