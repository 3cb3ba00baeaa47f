import { type Kysely, PostgresAdapter, sql } from 'kysely';

// Frozen: never edit after it has landed; add a new numbered migration instead.

/*
 * SQLite's text index (FTS5, migration 002) leaves the writing transaction (docs/design.md §10), and is keyed by
 * project.
 *
 * - Feeding FTS5 one document per commit made every comment pay for segment merges inside its COMMIT. A
 *   write now only notes which documents changed, in `search_fts_queue`, in its own transaction; the search
 *   indexer (features/search/search-indexer.ts) feeds FTS5 from the queue in batches, and a search also
 *   reads the documents still queued, so a committed write is found by the very next search.
 * - An FTS5 row's rowid is `project_id × 2^32 + search_docs.id` (FTS_ROWID): a search restricts its MATCH
 *   to the project's rowid range, so a common word costs what it costs in that project, not in the whole
 *   workspace. `search_fts_rowids` remembers the rowid each document was indexed under (its project may
 *   change since). Project ids stay far below 2^31, document ids below 2^32.
 *
 * The index is rebuilt here from search_docs, keyed the new way. PostgreSQL's trigram indexes are part
 * of search_docs itself: nothing changes there.
 */

const FTS_TRIGGERS = ['search_docs_fts_insert', 'search_docs_fts_delete', 'search_docs_fts_update'];
const QUEUE_TRIGGERS = ['search_docs_queue_insert', 'search_docs_queue_delete', 'search_docs_queue_update'];
const ftsText = (column: string) => `replace(${column}, char(304), char(105, 775))`;
const FTS_ROWID = '(project_id * 4294967296 + id)';

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  await db.transaction().execute(async (trx) => {
    await sql`CREATE TABLE search_fts_queue (id INTEGER PRIMARY KEY, doc_id INTEGER NOT NULL)`.execute(trx);
    await sql`CREATE TABLE search_fts_rowids (doc_id INTEGER PRIMARY KEY, fts_rowid INTEGER NOT NULL)`.execute(trx);
    for (const name of FTS_TRIGGERS) await sql.raw(`DROP TRIGGER ${name}`).execute(trx);
    await sql`CREATE TRIGGER search_docs_queue_insert AFTER INSERT ON search_docs BEGIN
      INSERT INTO search_fts_queue (doc_id) VALUES (new.id);
    END`.execute(trx);
    await sql`CREATE TRIGGER search_docs_queue_delete AFTER DELETE ON search_docs BEGIN
      INSERT INTO search_fts_queue (doc_id) VALUES (old.id);
    END`.execute(trx);
    await sql`CREATE TRIGGER search_docs_queue_update AFTER UPDATE OF title_text, body_text, project_id ON search_docs
      WHEN old.title_text IS NOT new.title_text OR old.body_text IS NOT new.body_text OR old.project_id IS NOT new.project_id BEGIN
      INSERT INTO search_fts_queue (doc_id) VALUES (old.id);
    END`.execute(trx);
    await sql`INSERT INTO search_fts (search_fts) VALUES ('delete-all')`.execute(trx);
    await sql
      .raw(
        `INSERT INTO search_fts (rowid, title_text, body_text) SELECT ${FTS_ROWID}, ${ftsText('title_text')}, ${ftsText('body_text')} FROM search_docs`,
      )
      .execute(trx);
    await sql.raw(`INSERT INTO search_fts_rowids (doc_id, fts_rowid) SELECT id, ${FTS_ROWID} FROM search_docs`).execute(trx);
  });
}

/** Back to feeding FTS5 in the writing transaction: the index is rebuilt from search_docs, queue or not. */
export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  await db.transaction().execute(async (trx) => {
    for (const name of QUEUE_TRIGGERS) await sql.raw(`DROP TRIGGER ${name}`).execute(trx);
    await sql`DROP TABLE search_fts_queue`.execute(trx);
    await sql`DROP TABLE search_fts_rowids`.execute(trx);
    await sql`INSERT INTO search_fts (search_fts) VALUES ('delete-all')`.execute(trx);
    await sql
      .raw(
        `INSERT INTO search_fts (rowid, title_text, body_text) SELECT id, ${ftsText('title_text')}, ${ftsText('body_text')} FROM search_docs`,
      )
      .execute(trx);
    await sql
      .raw(
        `CREATE TRIGGER search_docs_fts_insert AFTER INSERT ON search_docs BEGIN
           INSERT INTO search_fts (rowid, title_text, body_text) VALUES (new.id, ${ftsText('new.title_text')}, ${ftsText('new.body_text')});
         END`,
      )
      .execute(trx);
    await sql
      .raw(
        `CREATE TRIGGER search_docs_fts_delete AFTER DELETE ON search_docs BEGIN
           DELETE FROM search_fts WHERE rowid = old.id;
         END`,
      )
      .execute(trx);
    await sql
      .raw(
        `CREATE TRIGGER search_docs_fts_update AFTER UPDATE OF title_text, body_text ON search_docs
         WHEN old.title_text IS NOT new.title_text OR old.body_text IS NOT new.body_text BEGIN
           DELETE FROM search_fts WHERE rowid = old.id;
           INSERT INTO search_fts (rowid, title_text, body_text) VALUES (new.id, ${ftsText('new.title_text')}, ${ftsText('new.body_text')});
         END`,
      )
      .execute(trx);
  });
}
