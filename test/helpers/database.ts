import { randomBytes } from 'node:crypto';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

/**
 * The database a test runs on: a temp SQLite file by default, or with PUNCHLIST_TEST_DB=postgres a fresh
 * PostgreSQL database on the machine's server (PUNCHLIST_TEST_PG, default postgres://postgres@127.0.0.1:5432),
 * created for the test and dropped afterwards.
 */
export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

const ADMIN_URL = process.env.PUNCHLIST_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function testDialect(): 'sqlite' | 'postgres' {
  return process.env.PUNCHLIST_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';
}

/** Where test/global-setup.ts leaves the run's migrated template of each dialect (a file; a database name). */
export const TEMPLATE_ENV = { sqlite: 'PUNCHLIST_TEST_SQLITE_TEMPLATE', postgres: 'PUNCHLIST_TEST_PG_TEMPLATE' } as const;

/** One statement on the server's maintenance database (CREATE and DROP DATABASE). */
export async function adminQuery(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** The URL of a database on the test server. */
export function postgresUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export interface TestDatabaseOptions {
  /**
   * Start from a copy of the run's template, already migrated to the latest schema by the app's migrator
   * (test/global-setup.ts), for a caller that migrates to the latest anyway (a server, a context): the
   * migrator then finds nothing to do, which saves it ~1.1–1.5 s per database on PostgreSQL and ~0.3 s on
   * SQLite. Without it (or outside a vitest run) the database is empty: tests of migrations need that.
   */
  migrated?: boolean;
}

/** A fresh database of the suite's dialect, or of the one asked for (tests that move data between dialects). */
export async function createTestDatabase(
  dir: string,
  dialect: 'sqlite' | 'postgres' = testDialect(),
  options: TestDatabaseOptions = {},
): Promise<TestDatabase> {
  const template = options.migrated ? process.env[TEMPLATE_ENV[dialect]] : undefined;
  if (dialect === 'sqlite') {
    const file = join(dir, 'punchlist.db');
    if (template) copyFileSync(template, file);
    return { url: `sqlite:${file}`, drop: async () => {} };
  }
  const name = `punchlist_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(template ? `create database ${name} template ${template}` : `create database ${name}`);
  return { url: postgresUrl(name), drop: () => adminQuery(`drop database if exists ${name} with (force)`) };
}

/** Makes every insert into `table` fail, on either dialect, to exercise rollback paths; returns the undo. */
export async function refuseInserts(db: import('kysely').Kysely<any>, table: string): Promise<() => Promise<void>> {
  const { sql } = await import('kysely');
  if (testDialect() === 'sqlite') {
    await sql`create trigger refuse_inserts before insert on ${sql.table(table)} begin select raise(abort, 'refused by test'); end`.execute(
      db,
    );
    return async () => {
      await sql`drop trigger refuse_inserts`.execute(db);
    };
  }
  await sql`create function refuse_inserts() returns trigger language plpgsql as $$ begin raise exception 'refused by test'; end $$`.execute(
    db,
  );
  await sql`create trigger refuse_inserts before insert on ${sql.table(table)} for each row execute function refuse_inserts()`.execute(db);
  return async () => {
    await sql`drop trigger refuse_inserts on ${sql.table(table)}`.execute(db);
    await sql`drop function refuse_inserts()`.execute(db);
  };
}
