import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect } from 'kysely';
import { startCheckpointer } from './sqlite-checkpointer.js';
import { FifoSqliteDialect } from './sqlite-dialect.js';
import { preparedStatementName, setDirectReader } from './precompiled.js';
import { cacheStatements } from './sqlite-statement-cache.js';
import type { Database } from './tables.js';

/** pg loads for a PostgreSQL database only: a SQLite node (and each of its worker threads) never needs it. */
const require = createRequire(import.meta.url);

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
}

/**
 * The main connection checkpoints on its own (on the event loop, with two fsyncs of 20–28 ms each on the
 * benchmark machine) only once the WAL holds this many pages (256 MiB). Under sustained writes the worker's
 * passive checkpoints never catch up with the last commit, so the WAL cannot start afresh and grows; the
 * first commit after a checkpoint that caught up (any lull) restarts it at no cost. With a safety net of
 * 10 000 pages it fired about once a second under the benchmark's write load and stalled the event loop for
 * up to 60–75 ms (docs/performance.md, "Commit stalls"). The WAL file keeps the size it reached.
 */
const SAFETY_NET_FRAMES = 65_536;

const reportCheckpointError = (message: string) =>
  process.stderr.write(`${JSON.stringify({ level: 40, time: Date.now(), msg: 'background WAL checkpoint failed', err: message })}\n`);

/**
 * The database holds token hashes, audit records and everything users wrote: readable by the owner only.
 * A directory created here is 0700; the file is created 0600 (SQLite gives its -wal and -shm the file's
 * mode, and existing ones are set too). An existing directory is left as it is: it may be shared (/tmp).
 */
function createOwnerOnly(file: string) {
  mkdirSync(dirname(resolve(file)), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
}

/** Kysely over one better-sqlite3 connection, its statements cached and the precompiled SELECTs read directly. */
function sqliteKysely(sqlite: SQLite.Database): Kysely<Database> {
  cacheStatements(sqlite);
  const kysely = new Kysely<Database>({ dialect: new FifoSqliteDialect({ database: sqlite }) });
  // better-sqlite3 is synchronous: a SELECT run while no transaction is open on the connection sees
  // exactly the committed state it would see after queueing for it (db/precompiled.ts).
  setDirectReader(kysely, (query) => (sqlite.inTransaction ? undefined : sqlite.prepare(query.sql).all(query.parameters)));
  return kysely;
}

interface OpenDatabaseOptions {
  /** PostgreSQL pool size (DATABASE_POOL_SIZE). */
  poolSize?: number;
  connectTimeoutMs?: number;
  /**
   * A reader beside the process's main connection (the worker threads of features/offload): SQLite opens the
   * existing file read-only (WAL lets it read while the main connection writes; no checkpointer, no schema
   * changes), PostgreSQL runs every transaction read-only.
   */
  readOnly?: boolean;
}

/** The only dialect switch: `sqlite:PATH` (embedded default) or `postgres://…`. */
export function openDatabase(url: string, options: OpenDatabaseOptions = {}): Db {
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    if (options.readOnly) {
      if (file === ':memory:') throw new Error('a second connection cannot read an in-memory SQLite database: give DATABASE_URL a file');
      const sqlite = new SQLite(file, { readonly: true, fileMustExist: true });
      sqlite.pragma('busy_timeout = 5000');
      const kysely = sqliteKysely(sqlite);
      return { kysely, dialect: 'sqlite', close: () => kysely.destroy() };
    }
    if (file !== ':memory:') createOwnerOnly(file);
    const sqlite = new SQLite(file);
    sqlite.pragma('journal_mode = WAL');
    if (file !== ':memory:') for (const companion of [`${file}-wal`, `${file}-shm`]) if (existsSync(companion)) chmodSync(companion, 0o600);
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('temp_store = MEMORY');
    // Checkpoints (and their fsyncs) off the event loop; SQLite's own only as a safety net (sqlite-checkpointer.ts).
    const checkpointer = file === ':memory:' ? null : startCheckpointer(resolve(file), { onError: reportCheckpointError });
    if (checkpointer) sqlite.pragma(`wal_autocheckpoint = ${SAFETY_NET_FRAMES}`);
    const kysely = sqliteKysely(sqlite);
    const close = async () => {
      await checkpointer?.close();
      await kysely.destroy();
    };
    return { kysely, dialect: 'sqlite', close };
  }
  const pg = require('pg') as typeof import('pg');
  // int8 (bigserial ids, counts) as JS numbers: ids stay far below 2^53.
  pg.types.setTypeParser(20, (value) => Number(value));
  // A request waits at most this long for a connection: when the database is down it fails fast
  // (503, see db/database-errors.ts) instead of queueing until the client gives up.
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    ...(options.readOnly ? { options: '-c default_transaction_read_only=on' } : {}),
  });
  // A connection that dies (database restarted or stopped) emits 'error': in the pool, and on its client
  // when checked out between two queries (inside a transaction). Without listeners the process would
  // crash; with them the query in flight fails (503), and the pool drops the dead client on release.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {});
    // The precompiled hot queries (db/precompiled.ts) as named prepared statements: PostgreSQL parses and
    // plans each once per connection (docs/performance.md). Any other SQL goes as before.
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as { query: unknown }).query = (text: unknown, ...rest: unknown[]) => {
      const name = typeof text === 'string' && rest.length <= 1 ? preparedStatementName(text) : undefined;
      return name ? query({ name, text, values: rest[0] }) : query(text, ...rest);
    };
  });
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { kysely, dialect: 'postgres', close: () => kysely.destroy() };
}
