import { message } from '../i18n/i18n.js';
import { resolve } from 'node:path';
import { type Command, CliError, parseCommand, requiredPositional } from './args.js';
import type { CliIo } from './io.js';
import { progressLine } from './output.js';

type BackupService = typeof import('../features/backup/backup.service.js');
type Manifest = import('../features/backup/backup.service.js').BackupManifest;

/**
 * Runs backup or restore on DIR with the locations of the environment; the service's refusals become
 * one-line CLI errors, its progress lines go to stderr, ending with `summary` of the result.
 */
async function runOnDir(
  command: Command,
  argv: string[],
  io: CliIo,
  action: (
    service: BackupService,
    config: import('../shared/config.js').Config,
    dir: string,
    progress: (line: string) => void,
  ) => Promise<Manifest>,
  summary: (manifest: Manifest, dir: string) => string,
) {
  const { positionals } = parseCommand(command.name, argv, {}, 1);
  const dir = requiredPositional(command.name, 'DIR', positionals);
  const [service, { loadConfig }] = await Promise.all([import('../features/backup/backup.service.js'), import('../shared/config.js')]);
  const started = performance.now();
  const progress = progressLine(io, `${command.name}: `);
  let manifest: Manifest;
  try {
    manifest = await action(service, loadConfig(io.env), resolve(io.cwd, dir), progress);
  } catch (err) {
    throw err instanceof service.BackupError ? new CliError(err.message) : err;
  }
  progress(`done in ${((performance.now() - started) / 1000).toFixed(1)} s: ${summary(manifest, dir)}`, true);
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
      (m, dir) =>
        `${dir} (database ${m.database.bytes} bytes, ${m.storage.blobs} blobs, ${m.storage.bytes} bytes; snapshot at ${m.snapshot_at})`,
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
      (m) => `the data as of ${m.snapshot_at} (${m.storage.blobs} blobs)`,
    );
  },
};
