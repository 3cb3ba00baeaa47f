import { randomBytes } from 'node:crypto';
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

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A fresh database of the suite's dialect, or of the one asked for (tests that move data between dialects). */
export async function createTestDatabase(dir: string, dialect: 'sqlite' | 'postgres' = testDialect()): Promise<TestDatabase> {
  if (dialect === 'sqlite') return { url: `sqlite:${join(dir, 'punchlist.db')}`, drop: async () => {} };
  const name = `punchlist_test_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`create database ${name}`));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => admin((c) => c.query(`drop database if exists ${name} with (force)`)).then(() => undefined),
  };
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
