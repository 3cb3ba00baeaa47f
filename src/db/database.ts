import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { cacheStatements } from './sqlite-statement-cache.js';
import type { Database } from './tables.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
}

/** The only dialect switch: `sqlite:PATH` (embedded default) or `postgres://…`. */
export function openDatabase(url: string, options: { poolSize?: number; connectTimeoutMs?: number } = {}): Db {
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    if (file !== ':memory:') mkdirSync(dirname(resolve(file)), { recursive: true });
    const sqlite = new SQLite(file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    cacheStatements(sqlite);
    const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
    return { kysely, dialect: 'sqlite', close: () => kysely.destroy() };
  }
  // int8 (bigserial ids, counts) as JS numbers: ids stay far below 2^53.
  pg.types.setTypeParser(20, (value) => Number(value));
  // A request waits at most this long for a connection: when the database is down it fails fast
  // (503, see db/database-errors.ts) instead of queueing until the client gives up.
  const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10, connectionTimeoutMillis: options.connectTimeoutMs ?? 5000 });
  // An idle connection that dies (database restarted or stopped) is dropped by the pool and replaced on
  // the next query; without a listener its 'error' event would crash the process.
  pool.on('error', () => {});
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { kysely, dialect: 'postgres', close: () => kysely.destroy() };
}
