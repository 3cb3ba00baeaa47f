import { randomUUID } from 'node:crypto';
import { chmod, lstat, mkdir, open, readdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { assertValidKey, isValidKey, type BlobStore } from './blob-store.js';

// Valid keys never start a segment with '.', so `list` cannot report anything in here.
const TMP_DIR = '.tmp';
/**
 * The blobs are users' photos: readable by the service's own account only, whatever the process umask
 * (issue 46). Folders 0700, files 0600; `restrictToOwner` tightens what older versions left wider.
 */
export const PRIVATE_DIR = 0o700;
export const PRIVATE_FILE = 0o600;

/** Blobs as plain files under `root`, one file per key. */
export class DiskBlobStore implements BlobStore {
  readonly root: string;
  private readonly tmpDir: string;

  constructor(root: string) {
    this.root = resolve(root);
    this.tmpDir = join(this.root, TMP_DIR);
  }

  // The content type is not kept: every blob is served as the type its attachment row records.
  async put(key: string, data: Buffer, _contentType: string): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(this.tmpDir, { recursive: true, mode: PRIVATE_DIR });
    // Same file system as the target, so the rename below is atomic; the fsync before it makes sure a crash
    // cannot leave a renamed but empty file behind.
    const tmp = join(this.tmpDir, `${randomUUID()}.part`);
    try {
      const file = await open(tmp, 'wx', PRIVATE_FILE);
      try {
        await file.writeFile(data);
        await file.sync();
      } finally {
        await file.close();
      }
      await mkdir(dirname(target), { recursive: true, mode: PRIVATE_DIR });
      await rename(tmp, target);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    await syncDirectory(dirname(target));
  }

  async get(key: string): Promise<{ stream: Readable; size: number } | null> {
    const path = this.pathOf(key);
    let file;
    try {
      file = await open(path, 'r');
    } catch (err) {
      if (hasCode(err, 'ENOENT', 'ENOTDIR')) return null;
      throw err;
    }
    // Reading through the open handle keeps serving the old bytes if a put replaces the blob meanwhile.
    try {
      const stats = await file.stat();
      if (!stats.isFile()) {
        await file.close();
        return null;
      }
      return { stream: file.createReadStream(), size: stats.size };
    } catch (err) {
      await file.close();
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await unlink(this.pathOf(key));
    } catch (err) {
      // A directory under the key is not a blob, so for this store the key is absent.
      if (!hasCode(err, 'ENOENT', 'ENOTDIR', 'EISDIR')) throw err;
    }
  }

  async *list(prefix: string): AsyncGenerator<string> {
    if (prefix !== '') assertValidKey(prefix.endsWith('/') ? prefix.slice(0, -1) : prefix);
    yield* this.walk(prefix.slice(0, prefix.lastIndexOf('/') + 1), prefix);
  }

  async modifiedAt(key: string): Promise<Date | null> {
    try {
      const stats = await stat(this.pathOf(key));
      return stats.isFile() ? stats.mtime : null;
    } catch (err) {
      if (hasCode(err, 'ENOENT', 'ENOTDIR')) return null;
      throw err;
    }
  }

  /** Temp files of puts that a crash interrupted before their rename. */
  async clearLeftovers(olderThan: Date): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.tmpDir);
    } catch (err) {
      if (hasCode(err, 'ENOENT', 'ENOTDIR')) return 0;
      throw err;
    }
    let removed = 0;
    for (const name of names) {
      const path = join(this.tmpDir, name);
      try {
        if ((await stat(path)).mtime >= olderThan) continue;
        await rm(path, { force: true, recursive: true });
        removed++;
      } catch (err) {
        if (!hasCode(err, 'ENOENT')) throw err;
      }
    }
    return removed;
  }

  /**
   * Folders 0700 and files 0600 under the root, the root included; returns how many were wider. Symbolic links
   * are left alone (chmod would follow them out of the store).
   */
  async restrictToOwner(): Promise<number> {
    return restrictTree(this.root);
  }

  async check(): Promise<void> {
    await mkdir(this.tmpDir, { recursive: true, mode: PRIVATE_DIR });
    const probe = join(this.tmpDir, `check-${randomUUID()}`);
    await writeFile(probe, 'ok');
    await rm(probe, { force: true });
  }

  private pathOf(key: string): string {
    assertValidKey(key);
    return join(this.root, key);
  }

  private async *walk(directoryKey: string, prefix: string): AsyncGenerator<string> {
    let entries;
    try {
      entries = await readdir(join(this.root, directoryKey), { withFileTypes: true });
    } catch (err) {
      if (hasCode(err, 'ENOENT', 'ENOTDIR')) return;
      throw err;
    }
    // Ordering a directory as "name/" yields keys in plain byte order, as S3 lists them.
    const sorted = entries
      .map((entry) => ({ entry, order: entry.isDirectory() ? `${entry.name}/` : entry.name }))
      .sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
    for (const { entry } of sorted) {
      const key = directoryKey + entry.name;
      if (!isValidKey(key)) continue;
      if (entry.isDirectory()) {
        if (`${key}/`.startsWith(prefix)) yield* this.walk(`${key}/`, prefix);
      } else if (entry.isFile() && key.startsWith(prefix)) {
        yield key;
      }
    }
  }
}

async function restrictTree(path: string): Promise<number> {
  let stats;
  try {
    stats = await lstat(path);
  } catch (err) {
    if (hasCode(err, 'ENOENT')) return 0;
    throw err;
  }
  const wanted = stats.isDirectory() ? PRIVATE_DIR : stats.isFile() ? PRIVATE_FILE : null;
  if (wanted === null) return 0;
  let changed = 0;
  if ((stats.mode & 0o777) !== wanted) {
    await chmod(path, wanted);
    changed++;
  }
  if (stats.isDirectory()) {
    for (const name of await readdir(path)) changed += await restrictTree(join(path, name));
  }
  return changed;
}

// Makes the rename itself durable; Windows cannot open a directory for fsync.
async function syncDirectory(path: string): Promise<void> {
  if (process.platform === 'win32') return;
  const directory = await open(path, 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

function hasCode(err: unknown, ...codes: string[]): boolean {
  return err instanceof Error && 'code' in err && codes.includes(String(err.code));
}
