import { chmod, mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertValidKey } from './blob-store.js';
import { DiskBlobStore } from './disk-blob-store.js';
import { openBlobStore } from './index.js';

let root: string;
let store: DiskBlobStore;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'punchlist-blobs-'));
  store = new DiskBlobStore(root);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function getBytes(key: string): Promise<Buffer | null> {
  const blob = await store.get(key);
  return blob ? readAll(blob.stream) : null;
}

async function listAll(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of store.list(prefix)) keys.push(key);
  return keys;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** `relative path → octal mode` of every folder and file under `dir` (symbolic links left out), `.` for `dir`. */
async function modesUnder(dir: string): Promise<Record<string, string>> {
  const modes: Record<string, string> = { '.': ((await stat(dir)).mode & 0o777).toString(8) };
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isSymbolicLink()) continue;
    const path = join(entry.parentPath, entry.name);
    modes[path.slice(dir.length + 1)] = ((await stat(path)).mode & 0o777).toString(8);
  }
  return modes;
}

describe('DiskBlobStore', () => {
  it('streams back what was put, with its size', async () => {
    const data = Buffer.alloc(300_000, 7);
    await store.put('items/1000/a.webp', data, 'image/webp');
    const blob = await store.get('items/1000/a.webp');
    expect(blob?.size).toBe(data.length);
    expect(blob?.stream.readable).toBe(true);
    expect((await readAll(blob!.stream)).equals(data)).toBe(true);
  });

  it('returns null for an absent key', async () => {
    expect(await store.get('items/1/none.webp')).toBeNull();
    await store.put('items/1/a.webp', Buffer.from('a'), 'image/webp');
    // A "directory" of keys is not itself a blob.
    expect(await store.get('items/1')).toBeNull();
    expect(await store.get('items/1/a.webp/deeper')).toBeNull();
  });

  it('replaces a blob on overwrite', async () => {
    await store.put('k.webp', Buffer.from('first version, longer'), 'image/webp');
    await store.put('k.webp', Buffer.from('second'), 'image/webp');
    expect((await getBytes('k.webp'))?.toString()).toBe('second');
  });

  it('keeps serving the bytes already opened when a put replaces them', async () => {
    await store.put('k.webp', Buffer.from('old'), 'image/webp');
    const blob = await store.get('k.webp');
    await store.put('k.webp', Buffer.from('new!'), 'image/webp');
    expect((await readAll(blob!.stream)).toString()).toBe('old');
    expect((await getBytes('k.webp'))?.toString()).toBe('new!');
  });

  it('deletes, and deleting an absent key is fine', async () => {
    await store.put('items/1/a.webp', Buffer.from('a'), 'image/webp');
    await store.delete('items/1/a.webp');
    expect(await store.get('items/1/a.webp')).toBeNull();
    await expect(store.delete('items/1/a.webp')).resolves.toBeUndefined();
    await expect(store.delete('never/was.webp')).resolves.toBeUndefined();
    await expect(store.delete('items')).resolves.toBeUndefined();
  });

  it('lists every key under a prefix, in byte order', async () => {
    const keys = ['answers/7/x.webp', 'items/10/c.webp', 'items/1000/b.webp', 'items/1000/a.webp', 'items/2/d.webp', 'items-old.webp'];
    for (const key of keys) await store.put(key, Buffer.from(key), 'image/webp');

    expect(await listAll('')).toEqual([...keys].sort());
    expect(await listAll('items/')).toEqual(['items/10/c.webp', 'items/1000/a.webp', 'items/1000/b.webp', 'items/2/d.webp']);
    expect(await listAll('items/10')).toEqual(['items/10/c.webp', 'items/1000/a.webp', 'items/1000/b.webp']);
    expect(await listAll('items/10/')).toEqual(['items/10/c.webp']);
    expect(await listAll('items')).toEqual([
      'items-old.webp',
      'items/10/c.webp',
      'items/1000/a.webp',
      'items/1000/b.webp',
      'items/2/d.webp',
    ]);
    expect(await listAll('nothing/')).toEqual([]);
  });

  it('does not list temp files or stray names that are not keys', async () => {
    await store.put('items/1/a.webp', Buffer.from('a'), 'image/webp');
    await mkdir(join(root, '.tmp'), { recursive: true });
    await writeFile(join(root, '.tmp', 'left-by-a-crash.part'), 'x');
    await writeFile(join(root, 'items', '1', 'bad name.webp'), 'x');
    expect(await listAll('')).toEqual(['items/1/a.webp']);
  });

  it('leaves no temp files behind after put', async () => {
    await store.put('items/1/a.webp', Buffer.from('a'), 'image/webp');
    await store.put('items/1/a.webp', Buffer.from('b'), 'image/webp');
    await store.put('items/2/b.webp', Buffer.from('c'), 'image/webp');
    expect(await readdir(join(root, '.tmp'))).toEqual([]);
    expect((await filesUnder(root)).sort()).toEqual([join(root, 'items/1/a.webp'), join(root, 'items/2/b.webp')]);
  });

  it('refuses invalid keys before touching the disk', async () => {
    const invalid = ['../x', '/abs', 'a//b', 'a/../b', './a', 'a/.', '.tmp/x', 'a/', '', 'a b', 'a\\b', 'é'];
    invalid.push('x'.repeat(513));
    for (const key of invalid) {
      await expect(store.put(key, Buffer.from('x'), 'image/webp'), key).rejects.toThrow(/Invalid blob key/);
      await expect(store.get(key), key).rejects.toThrow(/Invalid blob key/);
      await expect(store.delete(key), key).rejects.toThrow(/Invalid blob key/);
    }
    await expect(listAll('../')).rejects.toThrow(/Invalid blob key/);
    expect(await filesUnder(root)).toEqual([]);
  });

  it('writes blobs 0600 in folders 0700, whatever the umask', async () => {
    const previous = process.umask(0o002);
    try {
      const fresh = new DiskBlobStore(join(root, 'fresh'));
      await fresh.put('items/1000/a.webp', Buffer.from('a'), 'image/webp');
      await fresh.put('items/1000/a.webp', Buffer.from('b'), 'image/webp');
      await fresh.check();
      expect(await modesUnder(join(root, 'fresh'))).toEqual({
        '.': '700',
        '.tmp': '700',
        items: '700',
        'items/1000': '700',
        'items/1000/a.webp': '600',
      });
    } finally {
      process.umask(previous);
    }
  });

  it('restrictToOwner tightens what was written wider, and leaves symbolic links and what they point to alone', async () => {
    await store.put('items/1/a.webp', Buffer.from('a'), 'image/webp');
    await chmod(join(root, 'items/1/a.webp'), 0o644);
    await chmod(join(root, 'items/1'), 0o755);
    await chmod(root, 0o775);
    const outside = join(root, '..', `${root.split('/').pop()}-outside`);
    await writeFile(outside, 'x', { mode: 0o644 });
    try {
      await symlink(outside, join(root, 'items/1/link.webp'));
      expect(await store.restrictToOwner()).toBe(3);
      expect(await modesUnder(root)).toMatchObject({ '.': '700', items: '700', 'items/1': '700', 'items/1/a.webp': '600' });
      expect(((await stat(outside)).mode & 0o777).toString(8)).toBe('644');
      expect(await store.restrictToOwner()).toBe(0);
      expect(await new DiskBlobStore(join(root, 'absent')).restrictToOwner()).toBe(0);
    } finally {
      await rm(outside, { force: true });
    }
  });

  it('passes check on a writable root and fails on an unusable one', async () => {
    await expect(store.check()).resolves.toBeUndefined();
    const file = join(root, 'not-a-directory');
    await writeFile(file, 'x');
    await expect(new DiskBlobStore(file).check()).rejects.toThrow();
  });
});

describe('assertValidKey', () => {
  it('accepts the keys the application writes', () => {
    expect(() => assertValidKey('items/1000/0b7c5a8e-3f0e-4a53-9c8e-2f1d3c4b5a69.webp')).not.toThrow();
    expect(() => assertValidKey('a')).not.toThrow();
    expect(() => assertValidKey('A-Z_a.z/0.9')).not.toThrow();
    expect(() => assertValidKey('x'.repeat(512))).not.toThrow();
  });
});

describe('openBlobStore', () => {
  it('opens a disk store relative to the working directory', () => {
    const opened = openBlobStore('file:./data/storage');
    expect(opened).toBeInstanceOf(DiskBlobStore);
    expect((opened as DiskBlobStore).root).toBe(join(process.cwd(), 'data/storage'));
    expect((openBlobStore(`file:${root}`) as DiskBlobStore).root).toBe(root);
  });

  it('refuses other schemes', () => {
    expect(() => openBlobStore('ftp://host/x')).toThrow(/STORAGE_URL/);
    expect(() => openBlobStore('file:')).toThrow(/STORAGE_URL/);
  });
});
