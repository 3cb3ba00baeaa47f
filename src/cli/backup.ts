import { message, type Translate } from '../i18n/i18n.js';
import { resolve } from 'node:path';
import { type Command, CliError, parseCommand, requiredPositional } from './args.js';
import type { CliIo } from './io.js';
import { cliTranslator } from './language.js';
import { progressLine } from './output.js';

type BackupService = typeof import('../features/backup/backup.service.js');
type Manifest = import('../features/backup/backup.service.js').BackupManifest;
type Progress = import('../features/backup/backup.service.js').Progress;

/**
 * Runs backup or restore on DIR with the locations of the environment; the service's refusals become
 * one-line CLI errors, its progress lines go to stderr, ending with `summary` of the result: all of them messages of
 * the CLI's file, in the operator's language.
 */
async function runOnDir(
  command: Command,
  argv: string[],
  io: CliIo,
  action: (service: BackupService, config: import('../shared/config.js').Config, dir: string, progress: Progress) => Promise<Manifest>,
  summary: (manifest: Manifest, dir: string, t: Translate) => string,
) {
  const { positionals } = parseCommand(command.name, argv, {}, 1);
  const t = cliTranslator(io);
  const dir = requiredPositional(command.name, t('cli.backup.missingDir'), positionals);
  const [service, { loadConfig }] = await Promise.all([import('../features/backup/backup.service.js'), import('../shared/config.js')]);
  const started = performance.now();
  const progress = progressLine(io, `${command.name}: `);
  let manifest: Manifest;
  try {
    manifest = await action(service, loadConfig(io.env), resolve(io.cwd, dir), (key, values) => progress(t(key, values)));
  } catch (err) {
    throw err instanceof service.BackupError ? new CliError(t(err.key, err.values)) : err;
  }
  const seconds = (performance.now() - started) / 1000;
  progress(t('cli.backup.done', { seconds, summary: summary(manifest, dir, t) }), true);
}

export const backupCommand: Command = {
  name: 'backup',
  usage: (language) => message(language, 'cli.backup.usage'),
  run(argv, io) {
    return runOnDir(
      this,
      argv,
      io,
      (service, config, dir, progress) => service.takeBackup(config, dir, progress),
      (m, dir, t) =>
        t('cli.backup.summary', {
          dir,
          bytes: String(m.database.bytes),
          blobs: String(m.storage.blobs),
          storageBytes: String(m.storage.bytes),
          at: m.snapshot_at,
        }),
    );
  },
};

export const restoreCommand: Command = {
  name: 'restore',
  usage: (language) => message(language, 'cli.restore.usage'),
  run(argv, io) {
    return runOnDir(
      this,
      argv,
      io,
      (service, config, dir, progress) => service.restoreBackup(config, dir, progress),
      (m, _dir, t) => t('cli.restore.summary', { at: m.snapshot_at, blobs: String(m.storage.blobs) }),
    );
  },
};
