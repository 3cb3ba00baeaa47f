import { type Kysely, PostgresAdapter, sql } from 'kysely';

// Frozen: never edit after it has landed; add a new numbered migration instead.

/**
 * SQLite: `cache_versions` (migration 015) becomes a WITHOUT ROWID table. As a rowid table its primary key
 * was a separate index, so every version query of a cached read (cache-versions.repository.ts) and every
 * bump of a write's triggers went through two B-trees, the index then the row; keyed by (scope, id), the row
 * is found in one. Measured on the benchmark workspace (100 000 item rows): an item's row and its versions
 * 25–27 → 21–23 µs of CPU (docs/performance.md). PostgreSQL keeps its table: its primary key index is
 * already what a lookup reads.
 *
 * The triggers of migration 015 name the table in their bodies; they are left as they are and find the
 * new table under the old name (`legacy_alter_table`: the rename neither rewrites nor re-checks them).
 */
async function rebuild(db: Kysely<any>, withoutRowid: boolean) {
  await sql`PRAGMA legacy_alter_table = ON`.execute(db);
  try {
    await sql
      .raw(
        `CREATE TABLE cache_versions_rebuilt ("scope" text not null, "id" bigint not null, "version" bigint not null, ` +
          `constraint "cache_versions_pk" primary key ("scope", "id"))${withoutRowid ? ' WITHOUT ROWID' : ''}`,
      )
      .execute(db);
    await sql`INSERT INTO cache_versions_rebuilt (scope, id, version) SELECT scope, id, version FROM cache_versions`.execute(db);
    await sql`DROP TABLE cache_versions`.execute(db);
    await sql`ALTER TABLE cache_versions_rebuilt RENAME TO cache_versions`.execute(db);
  } finally {
    await sql`PRAGMA legacy_alter_table = OFF`.execute(db);
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await rebuild(db, true);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await rebuild(db, false);
}
