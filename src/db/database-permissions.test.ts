import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../shared/config.js';
import { openDatabase } from './database.js';

const mode = (path: string) => statSync(path).mode & 0o777;

describe('the SQLite database is readable by its owner only', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('creates the data directory 0700 and the file, its -wal and -shm 0600', async () => {
    const root = mkdtempSync(join(tmpdir(), 'punchlist-perms-'));
    dirs.push(root);
    const file = join(root, 'data', 'punchlist.db');
    const db = openDatabase(`sqlite:${file}`);
    try {
      await sql`create table t (x integer)`.execute(db.kysely);
      await sql`insert into t values (1)`.execute(db.kysely);
      expect(existsSync(`${file}-wal`)).toBe(true);
      expect(mode(join(root, 'data')).toString(8)).toBe('700');
      for (const path of [file, `${file}-wal`, `${file}-shm`]) expect(mode(path).toString(8), path).toBe('600');
    } finally {
      await db.close();
    }
  });

  it('tightens an existing world-readable database file', async () => {
    const root = mkdtempSync(join(tmpdir(), 'punchlist-perms-'));
    dirs.push(root);
    const file = join(root, 'old.db');
    writeFileSync(file, '');
    chmodSync(file, 0o644);
    const db = openDatabase(`sqlite:${file}`);
    await db.close();
    expect(mode(file).toString(8)).toBe('600');
  });

  it('creates DATA_DIR 0700 when it keeps the generated session secret there', () => {
    const root = mkdtempSync(join(tmpdir(), 'punchlist-perms-'));
    dirs.push(root);
    const dataDir = join(root, 'data');
    loadConfig({ DATA_DIR: dataDir });
    expect(mode(dataDir).toString(8)).toBe('700');
    expect(mode(join(dataDir, 'session-secret')).toString(8)).toBe('600');
  });
});
