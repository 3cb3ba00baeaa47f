import type { Translate } from '../i18n/i18n.js';
import type { CliIo } from './io.js';

/** What the commands print (to the command's io): machine-readable JSON or aligned tables for people. */

export function printJson(io: CliIo, value: unknown): void {
  io.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

/** Resolves once the text is handed over to the pipe or file: waiting for it is the backpressure. */
export function writeStdout(io: CliIo, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    io.stdout.write(text, (err) => (err ? reject(err) : resolve()));
  });
}

export function printLine(io: CliIo, line: string): void {
  io.stdout.write(line + '\n');
}

/** An import's or export's counts (`3 projects, 12 items`): the kinds are the fixture's keys, as the file names them. */
export function countsText(t: Translate, counts: Record<string, number>): string {
  return Object.entries(counts)
    .map(([kind, count]) => t('cli.count', { count, kind }))
    .join(', ');
}

/** Width in terminal columns, counting code points (good enough for Latin and Cyrillic text). */
const width = (text: string) => [...text].length;

/** Newlines and tabs inside a cell would break the alignment. */
const cell = (text: string) => text.replace(/[\r\n\t]+/g, ' ');

/** Columns left-aligned, separated by two spaces; the last column is not padded. */
export function formatTable(headers: string[], rows: string[][]): string {
  const lines = [headers, ...rows.map((r) => r.map(cell))];
  const widths = headers.map((_, col) => Math.max(...lines.map((line) => width(line[col] ?? ''))));
  return lines
    .map((line) =>
      line
        .map((text, col) => (col === line.length - 1 ? text : text + ' '.repeat((widths[col] ?? 0) - width(text))))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** `2026-05-01T12:34:56.789Z` → `2026-05-01 12:34Z`; null → the placeholder. */
export function shortTime(iso: string | null, placeholder = '-'): string {
  if (!iso) return placeholder;
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return match ? `${match[1]} ${match[2]}Z` : iso;
}

/** `2026-05-01T12:34:56.789Z` → `2026-05-01 12:34:56Z`. */
export function longTime(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})/.exec(iso);
  return match ? `${match[1]} ${match[2]}Z` : iso;
}

/** Progress on stderr: one line at most every `everyMs` (a terminal, a log or a pipe alike), and always the final one. */
export function progressLine(io: CliIo, prefix: string, everyMs = 1000) {
  let last = 0;
  return (text: string, final = false) => {
    const now = Date.now();
    if (!final && now - last < everyMs) return;
    last = now;
    io.stderr.write(`${prefix}${text}\n`);
  };
}
