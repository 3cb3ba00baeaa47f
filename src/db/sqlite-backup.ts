import SQLite from 'better-sqlite3';

/**
 * What backup and restore need of a SQLite file, apart from the running service's connection
 * (database.ts): a consistent copy of a live database, its integrity check, and the storage keys it
 * refers to.
 */

/**
 * Copies the live database at `source` into the new file `target` with `VACUUM INTO`: one read
 * transaction, so the copy is the database as of the moment it started, every commit before it
 * included, while the server goes on writing (WAL: a reader never blocks the writer). Unlike the
 * online backup API, it never restarts when another process writes meanwhile.
 */
export function snapshotSqlite(source: string, target: string): void {
  const db = new SQLite(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare('VACUUM INTO ?').run(target);
  } finally {
    db.close();
  }
}

function withFile<T>(file: string, fn: (db: SQLite.Database) => T): T {
  const db = new SQLite(file, { fileMustExist: true, readonly: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** `PRAGMA integrity_check`: `['ok']` for a sound file, else the problems it found. */
export function integrityCheck(file: string): string[] {
  return withFile(file, (db) => db.pragma('integrity_check', { simple: false }) as { integrity_check: string }[]).map(
    (r) => r.integrity_check,
  );
}

/** The storage key of every attachment row (migration 001's `attachments.path`), oldest first. */
export function attachmentKeys(file: string): string[] {
  return withFile(file, (db) => db.prepare('select path from attachments order by id').pluck().all() as string[]);
}

/** The last migration applied to the file, or null when it has none. */
export function lastMigration(file: string): string | null {
  return withFile(file, (db) => {
    const table = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'").get();
    return table
      ? ((db.prepare('select name from kysely_migration order by name desc limit 1').pluck().get() as string | undefined) ?? null)
      : null;
  });
}
