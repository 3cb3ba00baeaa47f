import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliRunner, inProcessRunner, type Run } from './helpers/cli.js';
import { solid, uploadForm } from './helpers/images.js';
import { startTestServer, type TestServer, V1 } from './helpers/server.js';

/**
 * `bin/punchlist backup` and `restore` against an in-process server on a SQLite file that real HTTP clients
 * keep writing to while the backup runs. The commands run in the test process (test/helpers/cli.ts); the
 * backup under load and a refusal go through the real binary, a child process.
 */
let dir: string;
let server: TestServer;

const where = () => ({
  cwd: dir,
  env: { PATH: [dirname(process.execPath), process.env.PATH ?? ''].join(delimiter), HOME: dir, DATA_DIR: dir },
});
const inProcess = inProcessRunner(where);
const spawned = cliRunner(where);

function punchlist(args: string[], location: { db: string; storage: string }, run = inProcess): Promise<Run> {
  return run(args, { DATABASE_URL: location.db, STORAGE_URL: location.storage });
}

/** Failure: non-zero status and exactly one line `punchlist: <reason>` on stderr. */
function refused(result: Run): string {
  expect(result.code).not.toBe(0);
  expect(result.stderr).toMatch(/^punchlist: \S[^\n]*\n$/);
  return result.stderr;
}

const live = () => ({ db: `sqlite:${join(server.dir, 'punchlist.db')}`, storage: `file:${join(server.dir, 'storage')}` });
const fresh = (name: string) => ({ db: `sqlite:${join(dir, name, 'punchlist.db')}`, storage: `file:${join(dir, name, 'storage')}` });

/** What under `root` (itself included) is not its owner's only: folders other than 0700, files other than 0600. */
async function looseModes(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true, recursive: true });
  expect(entries.filter((e) => e.isFile()).length, root).toBeGreaterThan(1);
  const loose: string[] = [];
  for (const path of [root, ...entries.map((e) => join(e.parentPath, e.name))]) {
    const stats = await stat(path);
    if ((stats.mode & 0o777) !== (stats.isDirectory() ? 0o700 : 0o600)) loose.push(`${path} ${(stats.mode & 0o777).toString(8)}`);
  }
  return loose;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'punchlist-backup-'));
  server = await startTestServer();
});

afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('backup and restore', () => {
  it('backs up under write load; the restored copy is sound and holds every write acknowledged before the snapshot, with its blobs', async () => {
    const token = server.tokens.manager;
    const image = await solid(24, 16, 'png');
    const comments: { text: string; at: number }[] = [];
    const uploads: { ids: number[]; at: number }[] = [];
    let failures = 0;
    let stop = false;
    const writer = async (n: number) => {
      for (let i = 0; !stop; i++) {
        if (i % 4 === 3) {
          const res = await server.call(`${V1}/items/attachments.php`, {
            method: 'POST',
            token,
            body: uploadForm({ item_id: '1001' }, [{ name: 'p.png', bytes: image }]),
          });
          if (res.status === 201) uploads.push({ ids: res.body.data.attachments.map((a: { id: number }) => a.id), at: Date.now() });
          else failures++;
        } else {
          const text = `backup load ${n}.${i}`;
          const res = await server.call(`${V1}/comments/create.php`, { method: 'POST', token, json: { item_id: 1000, text } });
          if (res.status === 201) comments.push({ text, at: Date.now() });
          else failures++;
        }
      }
    };
    /** Waits (at most 20 s) until the writers have got that far. */
    const until = async (reached: () => boolean) => {
      for (let waited = 0; !reached() && waited < 20_000; waited += 20) await new Promise((done) => setTimeout(done, 20));
    };
    const writers = Array.from({ length: 4 }, (_, n) => writer(n));
    await until(() => comments.length >= 20 && uploads.length >= 3);
    const backupDir = join(dir, 'backup');
    const backup = await punchlist(['backup', backupDir], live(), spawned);
    const after = comments.length;
    await until(() => comments.length >= after + 20);
    stop = true;
    await Promise.all(writers);

    expect(backup.stderr).toMatch(/^backup: copying the database\n(.*\n)*backup: done in \d+\.\d s: .*\d+ blobs/);
    expect(backup.code).toBe(0);
    expect(failures).toBe(0);
    const manifest = JSON.parse(await readFile(join(backupDir, 'manifest.json'), 'utf8'));
    // Like `export` and data/: the backup is its owner's only (folders 0700, files 0600).
    expect(await looseModes(backupDir)).toEqual([]);
    // So is the live storage the server writes (issue 46).
    expect(await looseModes(join(server.dir, 'storage'))).toEqual([]);
    expect(((await stat(backupDir)).mode & 0o777).toString(8)).toBe('700');
    const snapshotAt = Date.parse(manifest.snapshot_at);
    // The backup ran while writes were being acknowledged on both sides of its snapshot.
    const before = comments.filter((c) => c.at < snapshotAt);
    const uploadsBefore = uploads.filter((u) => u.at < snapshotAt);
    expect(before.length).toBeGreaterThan(0);
    expect(uploadsBefore.length).toBeGreaterThan(0);
    expect(comments.filter((c) => c.at > Date.parse(manifest.completed_at)).length).toBeGreaterThan(0);

    console.log(
      `backup under load: ${comments.length} comments and ${uploads.length} uploads acknowledged, ${before.length} and ${uploadsBefore.length} before the snapshot; ` +
        `backup of ${manifest.storage.blobs} blobs took ${Date.parse(manifest.completed_at) - snapshotAt} ms`,
    );
    const target = fresh('restored');
    const restore = await punchlist(['restore', backupDir], target);
    expect(restore.stderr).toMatch(/restore: done in [\d.]+ s/);
    expect(restore.code).toBe(0);
    expect(((await stat(join(dir, 'restored', 'punchlist.db'))).mode & 0o777).toString(8)).toBe('600');
    expect(await looseModes(join(dir, 'restored', 'storage'))).toEqual([]);

    const restored = new SQLite(join(dir, 'restored', 'punchlist.db'), { readonly: true });
    try {
      expect(restored.pragma('integrity_check', { simple: true })).toBe('ok');
      const texts = new Set(restored.prepare("select text from comments where text like 'backup load %'").pluck().all() as string[]);
      expect(before.filter((c) => !texts.has(c.text))).toEqual([]);
      const rows = restored.prepare('select id, path, size from attachments').all() as { id: number; path: string; size: number }[];
      const ids = new Set(rows.map((r) => r.id));
      expect(uploadsBefore.flatMap((u) => u.ids).filter((id) => !ids.has(id))).toEqual([]);
      expect(rows.length).toBe(manifest.storage.blobs);
      for (const row of rows) expect((await stat(join(dir, 'restored', 'storage', row.path))).size, row.path).toBe(row.size);
    } finally {
      restored.close();
    }

    // Into a location that holds data: refused, nothing written.
    expect(refused(await punchlist(['restore', backupDir], target))).toContain(
      'already exists: restore writes only into an empty data location',
    );
    const storageOnly = { db: fresh('other').db, storage: target.storage };
    expect(refused(await punchlist(['restore', backupDir], storageOnly))).toContain('is not empty');
    await expect(stat(join(dir, 'other', 'punchlist.db'))).rejects.toThrow();
    expect(refused(await punchlist(['backup', backupDir], live()))).toContain('is not empty');
  });

  it('refuses PostgreSQL, S3, interrupted and damaged backups with a one-line reason', async () => {
    const postgres = refused(
      await punchlist(['backup', join(dir, 'pg')], { db: 'postgres://postgres@127.0.0.1:5432/x', storage: live().storage }, spawned),
    );
    expect(postgres).toContain('pg_dump');
    const s3 = refused(await punchlist(['restore', join(dir, 'backup')], { db: fresh('s3').db, storage: 's3://bucket?region=x' }));
    expect(s3).toContain('versioning');
    expect(refused(await punchlist(['restore', dir], fresh('none')))).toContain('not a complete backup');
    expect(refused(await punchlist(['backup'], live()))).toContain('missing DIR');
    const [backupHelp, restoreHelp] = await Promise.all([
      punchlist(['backup', '--help'], live()),
      punchlist(['restore', '--help'], live()),
    ]);
    expect(backupHelp.stdout).toContain('pg_dump');
    expect(restoreHelp.stdout).toContain('must be empty');

    const damaged = join(dir, 'damaged');
    expect((await punchlist(['backup', damaged], live())).code).toBe(0);
    const file = join(damaged, 'punchlist.db');
    const bytes = await readFile(file);
    bytes[bytes.length - 1] = bytes.at(-1)! ^ 0xff;
    await writeFile(file, bytes);
    expect(refused(await punchlist(['restore', damaged], fresh('from-damaged')))).toContain('damaged');
  });

  it("says its progress and its refusals in the operator's language (LANG), paths as values", async () => {
    const russian = (args: string[], location: { db: string; storage: string }) =>
      inProcess(args, { DATABASE_URL: location.db, STORAGE_URL: location.storage, LANG: 'ru_RU.UTF-8' });
    const target = join(dir, 'russian');
    const backup = await russian(['backup', target], live());
    expect(backup.code).toBe(0);
    // Progress lines come at most once a second: the first, then the summary.
    expect(backup.stderr).toMatch(/^backup: копирование базы данных\n(backup: .*\n)*backup: готово за \d+,\d с: /);
    expect(backup.stderr).not.toMatch(/copying|copied|blobs \d|done in/);
    expect(refused(await russian(['backup', target], live()))).toBe(
      `punchlist: ${target} не пуст: сохраняйте резервную копию в новый или пустой каталог\n`,
    );
    expect(refused(await russian(['restore', target], live()))).toContain('restore пишет только в пустое место для данных');
  });
});
