import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, copyFile, mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { attachmentKeys, integrityCheck, lastMigration, snapshotSqlite } from '../../db/sqlite-backup.js';
import { type BlobStore, DiskBlobStore, openBlobStore, PRIVATE_DIR, PRIVATE_FILE } from '../../storage/index.js';
import { message, type MessageKey, type MessageValues } from '../../i18n/i18n.js';

/**
 * `bin/punchlist backup DIR` and `restore DIR` for the embedded deployment: a SQLite file and `file:`
 * storage. A backup directory holds `punchlist.db` (a consistent copy of the database), `storage/` (the
 * blobs that copy refers to, in the disk store's layout) and `manifest.json`, written last: a
 * directory without it is an interrupted backup. PostgreSQL and S3 have native tools for this
 * (docs/operations.md, "Backups").
 */

/** A refusal of backup or restore: a message of the CLI's file and its values (the message is its English). */
export class BackupError extends Error {
  constructor(
    readonly key: MessageKey,
    readonly values: MessageValues = {},
  ) {
    super(message('en', key, values));
  }
}

export interface BackupManifest {
  format: 'punchlist-backup';
  version: 1;
  /** Every write committed before this instant is in the copy (the start of its read transaction). */
  snapshot_at: string;
  completed_at: string;
  database: { file: string; bytes: number; sha256: string; migration: string | null };
  storage: { dir: string; blobs: number; bytes: number };
}

interface Locations {
  databaseUrl: string;
  storageUrl: string;
}

/** Reports progress: a phase (a message of the CLI's file) and, for the blobs, how far along; sizes in MB. */
export type Progress = (key: MessageKey, values?: MessageValues) => void;

const DATABASE_FILE = 'punchlist.db';
const STORAGE_DIR = 'storage';
const MANIFEST = 'manifest.json';
/** Blobs copied at once: their fsyncs overlap. */
const PARALLEL_COPIES = 4;

/** The SQLite file and disk storage root of the configuration; anything else is refused with the native tools to use. */
function embeddedLocations(command: 'backup' | 'restore', locations: Locations): { databaseFile: string; storage: DiskBlobStore } {
  if (!locations.databaseUrl.startsWith('sqlite:')) {
    throw new BackupError('cli.backup.sqliteOnly', { command });
  }
  if (!locations.storageUrl.startsWith('file:')) {
    throw new BackupError('cli.backup.fileStorageOnly', { command });
  }
  const file = locations.databaseUrl.slice('sqlite:'.length);
  if (file === ':memory:' || file === '') throw new BackupError('cli.backup.needsFile', { command, url: locations.databaseUrl });
  return { databaseFile: resolve(file), storage: openBlobStore(locations.storageUrl) as DiskBlobStore };
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function fsyncFile(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const megabytes = (bytes: number) => bytes / 1_048_576;

/**
 * Copies `keys` from one store to the other, a few at a time; the progress line counts them.
 * A key the source does not have is an error naming it.
 */
async function copyBlobs(keys: string[], from: BlobStore, to: DiskBlobStore, progress: Progress): Promise<number> {
  let next = 0;
  let done = 0;
  let bytes = 0;
  const worker = async () => {
    while (next < keys.length) {
      const key = keys[next++]!;
      const blob = await from.get(key);
      if (!blob) throw new BackupError('cli.backup.missingBlob', { key });
      const data = await readAll(blob.stream);
      await to.put(key, data, 'application/octet-stream');
      bytes += data.length;
      progress('cli.backup.blobs', { done: ++done, total: keys.length, mb: megabytes(bytes) });
    }
  };
  await Promise.all(Array.from({ length: PARALLEL_COPIES }, worker));
  return bytes;
}

/** Takes a backup of the running (or stopped) service into `dir`, which must be absent or empty. */
export async function takeBackup(locations: Locations, dir: string, progress: Progress): Promise<BackupManifest> {
  const { databaseFile, storage } = embeddedLocations('backup', locations);
  if (!(await exists(databaseFile))) throw new BackupError('cli.backup.noDatabase', { file: databaseFile });
  const target = resolve(dir);
  await mkdir(target, { recursive: true, mode: PRIVATE_DIR });
  if ((await readdir(target)).length > 0) throw new BackupError('cli.backup.notEmpty', { dir: target });
  // The backup holds the whole database (password and token hashes): its owner's only, like `export` and data/.
  await chmod(target, PRIVATE_DIR);

  const copy = join(target, DATABASE_FILE);
  const snapshotAt = new Date().toISOString();
  progress('cli.backup.copying');
  // VACUUM INTO writes into an empty file it finds: created first, readable by the owner only.
  await (await open(copy, 'wx', PRIVATE_FILE)).close();
  snapshotSqlite(databaseFile, copy);
  await fsyncFile(copy);
  const databaseBytes = (await stat(copy)).size;
  progress('cli.backup.copied', { mb: megabytes(databaseBytes) });

  // The copy's own rows say which blobs it needs: a blob is written before its row commits, and
  // attachments are never deleted, so every one of them is in the storage now.
  const keys = attachmentKeys(copy);
  const backupStore = new DiskBlobStore(join(target, STORAGE_DIR));
  const blobBytes = await copyBlobs(keys, storage, backupStore, progress);
  await rm(join(target, STORAGE_DIR, '.tmp'), { recursive: true, force: true });
  await backupStore.restrictToOwner();

  const manifest: BackupManifest = {
    format: 'punchlist-backup',
    version: 1,
    snapshot_at: snapshotAt,
    completed_at: new Date().toISOString(),
    database: { file: DATABASE_FILE, bytes: databaseBytes, sha256: await sha256Of(copy), migration: lastMigration(copy) },
    storage: { dir: STORAGE_DIR, blobs: keys.length, bytes: blobBytes },
  };
  const manifestFile = join(target, MANIFEST);
  await writeFile(`${manifestFile}.partial`, JSON.stringify(manifest, null, 2) + '\n', { mode: PRIVATE_FILE });
  await fsyncFile(`${manifestFile}.partial`);
  await rename(`${manifestFile}.partial`, manifestFile);
  return manifest;
}

async function readManifest(dir: string): Promise<BackupManifest> {
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(await readFile(join(dir, MANIFEST), 'utf8')) as BackupManifest;
  } catch {
    throw new BackupError('cli.backup.noManifest', { dir, manifest: MANIFEST });
  }
  if (manifest.format !== 'punchlist-backup' || manifest.version !== 1)
    throw new BackupError('cli.backup.badManifest', { file: join(dir, MANIFEST) });
  return manifest;
}

/** Restores the backup in `dir` into the configured locations, which must hold no database and no blob. */
export async function restoreBackup(locations: Locations, dir: string, progress: Progress): Promise<BackupManifest> {
  const { databaseFile, storage } = embeddedLocations('restore', locations);
  const source = resolve(dir);
  const manifest = await readManifest(source);
  for (const file of [databaseFile, `${databaseFile}-wal`]) {
    if (
      await stat(file).then(
        (s) => s.size > 0,
        () => false,
      )
    ) {
      throw new BackupError('cli.backup.exists', { file });
    }
  }
  for await (const key of storage.list('')) {
    throw new BackupError('cli.backup.storageNotEmpty', { root: storage.root, key });
  }

  const copy = join(source, manifest.database.file);
  if ((await sha256Of(copy)) !== manifest.database.sha256) throw new BackupError('cli.backup.damaged', { file: copy });
  const backupStore = new DiskBlobStore(join(source, manifest.storage.dir));
  const keys: string[] = [];
  for await (const key of backupStore.list('')) keys.push(key);
  if (keys.length !== manifest.storage.blobs) {
    throw new BackupError('cli.backup.blobCount', { dir: backupStore.root, found: keys.length, expected: manifest.storage.blobs });
  }
  await copyBlobs(keys, backupStore, storage, progress);
  // The blobs are written owner-only; the storage folder itself may have been made beforehand, wider.
  await storage.restrictToOwner();

  // The database last, whole or not at all: a partial copy is never under the final name.
  await mkdir(resolve(databaseFile, '..'), { recursive: true, mode: PRIVATE_DIR });
  const partial = `${databaseFile}.restore-partial`;
  await copyFile(copy, partial);
  await chmod(partial, PRIVATE_FILE);
  await fsyncFile(partial);
  const problems = integrityCheck(partial);
  if (problems.join() !== 'ok') {
    await rm(partial, { force: true });
    throw new BackupError('cli.backup.integrity', { problems: problems.slice(0, 3).join('; ') });
  }
  await rename(partial, databaseFile);
  progress('cli.backup.restored', { mb: megabytes(manifest.database.bytes) });
  return manifest;
}
