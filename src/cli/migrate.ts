import { message } from '../i18n/i18n.js';
import { cliTranslator } from './language.js';
import { type Command, parseCommand } from './args.js';
import { withContext } from './open-context.js';
import { printLine } from './output.js';

export const migrateCommand: Command = {
  name: 'migrate',
  usage: (language) => message(language, 'cli.migrate.usage'),
  async run(argv, io) {
    parseCommand(this.name, argv, {});
    const { migrateToLatest } = await import('../db/migrate.js');
    const applied = await withContext(io, (ctx) => migrateToLatest(ctx.db.kysely), { migrate: false });
    const t = cliTranslator(io);
    printLine(
      io,
      applied.length ? t('cli.migrate.applied', { count: String(applied.length), names: applied.join(', ') }) : t('cli.migrate.upToDate'),
    );
  },
};
