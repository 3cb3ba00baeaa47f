import { message } from '../i18n/i18n.js';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { MessageKey } from '../i18n/i18n.js';
import { type Command, cliError, parseCommand, requiredPositional } from './args.js';
import { cliTranslator } from './language.js';
import { withContext } from './open-context.js';
import { countsText, printJson, printLine } from './output.js';

const READ_ERRORS: Record<string, MessageKey> = {
  ENOENT: 'cli.import.noFile',
  EISDIR: 'cli.import.directory',
  EACCES: 'cli.import.denied',
};

export const importCommand: Command = {
  name: 'import',
  usage: (language) => message(language, 'cli.import.usage'),
  async run(argv, io) {
    const { values, positionals } = parseCommand(this.name, argv, { json: { type: 'boolean' } }, 1);
    const t = cliTranslator(io);
    const file = requiredPositional(this.name, t('cli.import.missingFile'), positionals);
    let text: string;
    try {
      text = await readFile(resolve(io.cwd, file), 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      const known = Object.hasOwn(READ_ERRORS, code) ? READ_ERRORS[code] : undefined;
      throw cliError({ key: 'cli.import.unreadable', values: { file, reason: known ? t(known) : (err as Error).message } });
    }
    let fixture: unknown;
    try {
      fixture = JSON.parse(text);
    } catch (err) {
      throw cliError({ key: 'cli.import.notJson', values: { file, reason: (err as Error).message } });
    }
    const { importFixture } = await import('../features/fixtures/import.service.js');
    const summary = await withContext(io, async (ctx) => {
      const counts = await importFixture(ctx.db.kysely, ctx.db.dialect, fixture, ctx.clock);
      // The search index is fed here rather than by the next server start (searches stay exact either way).
      await ctx.searchIndexer.drain();
      return counts;
    });
    if (values.json) return printJson(io, summary);
    printLine(io, t('cli.import.done', { file, counts: countsText(t, summary) }));
  },
};
