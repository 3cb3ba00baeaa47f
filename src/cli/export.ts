import { message } from '../i18n/i18n.js';
import { randomUUID } from 'node:crypto';
import { type FileHandle, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { type Command, cliError, parseCommand } from './args.js';
import { cliTranslator } from './language.js';
import { withContext } from './open-context.js';
import { countsText, writeStdout } from './output.js';

/** Output is gathered into pieces of about this size: one write per entity would be one system call each. */
const BUFFER_BYTES = 64 * 1024;

/** A sink that batches text into large writes and waits for each (backpressure). */
function batched(flushTo: (text: string) => Promise<void>) {
  let pending: string[] = [];
  let size = 0;
  const flush = async () => {
    if (size === 0) return;
    const text = pending.join('');
    pending = [];
    size = 0;
    await flushTo(text);
  };
  return {
    async write(chunk: string) {
      pending.push(chunk);
      size += chunk.length;
      if (size >= BUFFER_BYTES) await flush();
    },
    flush,
  };
}

export const exportCommand: Command = {
  name: 'export',
  usage: (language) => message(language, 'cli.export.usage'),
  async run(argv, io) {
    const { values, positionals } = parseCommand(this.name, argv, { quiet: { type: 'boolean' } }, 1);
    const file = positionals[0] === '-' ? undefined : positionals[0];
    const { exportFixture } = await import('../features/fixtures/export.service.js');

    let handle: FileHandle | undefined;
    let partial: string | undefined;
    const target = file === undefined ? undefined : resolve(io.cwd, file);
    if (target !== undefined) {
      // Unique among processes and among the exports of one process (a test runs commands in its own).
      partial = join(dirname(target), `.${basename(target)}.partial-${randomUUID()}`);
      try {
        handle = await open(partial, 'wx', 0o600);
      } catch (err) {
        throw cliError({ key: 'cli.export.unwritable', values: { file: file ?? '-', reason: (err as Error).message } });
      }
    }
    const fileHandle = handle;
    const out = batched(fileHandle ? async (text) => void (await fileHandle.write(text)) : (text) => writeStdout(io, text));
    try {
      const summary = await withContext(io, async (ctx) => {
        const result = await exportFixture(ctx.db.kysely, out.write);
        await out.flush();
        // In place before the database is closed: the export is complete once its snapshot is read.
        if (fileHandle && partial && target) {
          await fileHandle.sync();
          await fileHandle.close();
          handle = undefined;
          await rename(partial, target);
          partial = undefined;
        }
        return result;
      });
      if (!values.quiet) {
        const t = cliTranslator(io);
        io.stderr.write(`${t('cli.export.done', { counts: countsText(t, summary), file: file ?? t('cli.export.stdout') })}\n`);
      }
    } finally {
      await handle?.close().catch(() => {});
      if (partial) await rm(partial, { force: true });
    }
  },
};
