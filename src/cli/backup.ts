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
    config: import('../config.js').Config,
    dir: string,
    progress: (line: string) => void,
  ) => Promise<Manifest>,
  summary: (manifest: Manifest, dir: string) => string,
) {
  const { positionals } = parseCommand(command.name, argv, {}, 1);
  const dir = requiredPositional(command.name, 'DIR', positionals);
  const [service, { loadConfig }] = await Promise.all([import('../features/backup/backup.service.js'), import('../config.js')]);
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
  usage: `Usage: punchlist backup DIR

Writes a consistent copy of the SQLite database (DATABASE_URL) and of every blob it refers to (STORAGE_URL,
file: storage) into DIR, which must be new or empty. The server may keep running and writing: the copy
holds every write committed before the backup started (manifest.json, "snapshot_at"), and the blobs of
exactly the attachments in it.

DIR gets punchlist.db, storage/ and manifest.json, written last (a DIR without it is an interrupted
backup). Progress goes to stderr. Restore with: punchlist restore DIR.

PostgreSQL and s3:// storage are refused: use pg_dump or pg_basebackup, and the bucket's versioning and
replication (docs/operations.md, "Backups").`,
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
  usage: `Usage: punchlist restore DIR

Restores a backup written by "punchlist backup DIR" into the database file of DATABASE_URL (sqlite:) and the
storage of STORAGE_URL (file:). Both must be empty: no database file, no blob. Otherwise nothing is
written and the reason is printed. The backup is checked against its manifest first, and the restored
database with PRAGMA integrity_check. Start the server afterwards: it applies newer migrations itself.

Progress goes to stderr.`,
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
