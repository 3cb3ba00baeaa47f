import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { adminQuery, postgresUrl, TEMPLATE_ENV } from './helpers/database.js';

/**
 * Once per `vitest run`: a database of each dialect migrated by the app's own migrator, which
 * createTestDatabase(…, { migrated: true }) copies (a file copy; CREATE DATABASE … TEMPLATE) instead of
 * every test server running the 15 migrations again (~1.1–1.5 s on PostgreSQL, ~0.3 s on SQLite, measured
 * on the 2-core CI machine). Both are removed at the end: nothing is left on the server or in /tmp.
 * Workers are started after this runs, so they inherit the variables it sets.
 */
export default async function setup(): Promise<() => Promise<void>> {
  // Vitest calls it for the root config and again for each project: the first call serves the whole run.
  if (process.env[TEMPLATE_ENV.sqlite]) return async () => {};
  const dir = mkdtempSync(join(tmpdir(), 'punchlist-template-'));
  const file = join(dir, 'punchlist.db');
  const sqlite = openDatabase(`sqlite:${file}`);
  await migrateToLatest(sqlite.kysely);
  await sqlite.close(); // the last connection's close checkpoints the WAL into the file and removes it
  process.env[TEMPLATE_ENV.sqlite] = file;

  // A run of SQLite tests needs no PostgreSQL server unless a test asks for one (test/scale).
  const name = `punchlist_tpl_${process.pid}_${randomBytes(4).toString('hex')}`;
  let pgTemplate: string | null = null;
  try {
    await adminQuery(`create database ${name}`);
    pgTemplate = name;
    const pg = openDatabase(postgresUrl(name), { poolSize: 1 });
    try {
      await migrateToLatest(pg.kysely);
    } finally {
      await pg.close();
    }
    // No connection (autovacuum's included) may hold the template while CREATE DATABASE copies it.
    await adminQuery(`alter database ${name} with allow_connections false`);
    process.env[TEMPLATE_ENV.postgres] = name;
  } catch (error) {
    if (pgTemplate) await adminQuery(`drop database if exists ${name} with (force)`);
    // No server at all: every PostgreSQL test would fail on its own, and a SQLite run needs none.
    if ((error as NodeJS.ErrnoException).code !== 'ECONNREFUSED') throw error;
    pgTemplate = null;
  }

  return async () => {
    delete process.env[TEMPLATE_ENV.sqlite];
    delete process.env[TEMPLATE_ENV.postgres];
    rmSync(dir, { recursive: true, force: true });
    if (pgTemplate) await adminQuery(`drop database if exists ${pgTemplate} with (force)`);
  };
}
