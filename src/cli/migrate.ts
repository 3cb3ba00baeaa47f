import { type Command, parseCommand } from './args.js';
import { withContext } from './open-context.js';
import { printLine } from './output.js';

export const migrateCommand: Command = {
  name: 'migrate',
  usage: `Usage: punchlist migrate

Applies the pending database migrations (DATABASE_URL) and exits. Running it again is harmless.`,
  async run(argv, io) {
    parseCommand(this.name, argv, {});
    const { migrateToLatest } = await import('../db/migrate.js');
    const applied = await withContext(io, (ctx) => migrateToLatest(ctx.db.kysely), { migrate: false });
    printLine(io, applied.length ? `applied ${applied.length} migration(s): ${applied.join(', ')}` : 'database schema is up to date');
  },
};
