import { type Kysely, SqliteAdapter, sql } from 'kysely';

// Frozen: never edit after it has landed; add a new numbered migration instead.

/**
 * FTS5 merges its index segments as writes add them; with its default (`automerge` 4) every comment,
 * answer or link insert paid ~400 µs of merging on this machine (docs/performance.md). At 16, segments are
 * merged 16 at a time: far less rewriting per write, a few more segments for a search to read.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  await sql`INSERT INTO search_fts (search_fts, rank) VALUES ('automerge', 16)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  await sql`INSERT INTO search_fts (search_fts, rank) VALUES ('automerge', 4)`.execute(db);
}
