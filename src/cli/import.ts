import { message } from '../i18n/i18n.js';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type Command, CliError, parseCommand, requiredPositional } from './args.js';
import { withContext } from './open-context.js';
import { printJson, printLine } from './output.js';

const READ_ERRORS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
};

export const importCommand: Command = {
  name: 'import',
  usage: (language) => message(language, 'cli.import.usage'),
  async run(argv, io) {
    const { values, positionals } = parseCommand(this.name, argv, { json: { type: 'boolean' } }, 1);
    const file = requiredPositional(this.name, 'fixture file (FILE.json)', positionals);
    let text: string;
    try {
      text = await readFile(resolve(io.cwd, file), 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      throw new CliError(`cannot read ${file}: ${READ_ERRORS[code] ?? (err as Error).message}`);
    }
    let fixture: unknown;
    try {
      fixture = JSON.parse(text);
    } catch (err) {
      throw new CliError(`${file} is not valid JSON: ${(err as Error).message}`);
    }
    const { importFixture } = await import('../features/fixtures/import.service.js');
    const summary = await withContext(io, async (ctx) => {
      const counts = await importFixture(ctx.db.kysely, ctx.db.dialect, fixture, ctx.clock);
      // The search index is fed here rather than by the next server start (searches stay exact either way).
      await ctx.searchIndexer.drain();
      return counts;
    });
    if (values.json) return printJson(io, summary);
    const counts = Object.entries(summary).map(([kind, count]) => `${count} ${kind}`);
    printLine(io, `imported ${file}: ${counts.join(', ')}`);
  },
};
