import { type Kysely, PostgresAdapter, sql } from 'kysely';

// Frozen: never edit after it has landed; add a new numbered migration instead.

/*
 * Project search (docs/design.md §5, `projects/search`).
 *
 * `search_docs` holds one row per searchable entity (project, section, checklist, item, comment,
 * answer, document link) with its text and where it sits (project, section, checklist, item), so that
 * one query can filter by project and visibility. Triggers on the base tables keep it in step: every
 * write, the import and any future code path stay consistent inside their own transaction, with no
 * call to remember in the services.
 *
 * Text index: on SQLite a contentless FTS5 table with the trigram tokenizer, fed by triggers on
 * `search_docs` (the text itself lives only in `search_docs`); on PostgreSQL pg_trgm GIN indexes on
 * lower(text). Either index only proposes candidates: the service checks every candidate with
 * JavaScript Unicode lower-casing, which is the rule the API promises.
 *
 * Ids never change once written, so the triggers follow text changes, moves between parents and
 * deletes, not id changes.
 */

const DOC_COLUMNS = 'entity_type, entity_id, project_id, section_id, checklist_id, item_id, title_text, body_text';

interface TableTriggers {
  table: string;
  /** Columns whose update can change a document: other updates (status, deadline…) never touch the index. */
  updateOf: string[];
  onInsert: string[];
  onUpdate: string[];
  onDelete: string[];
}

/** Comments, answers and links take their place (project, section, checklist) from their item. */
function childOfItem(table: string, entityType: string, title: string, body: string, updateOf: string[]): TableTriggers {
  const insert = `INSERT INTO search_docs (${DOC_COLUMNS})
    SELECT '${entityType}', new.id, i.project_id, i.section_id, i.checklist_id, i.id, ${title}, ${body}
    FROM items i WHERE i.id = new.item_id`;
  return {
    table,
    updateOf,
    onInsert: [insert],
    // Delete and insert again rather than UPDATE: also right when the row moves to another item, and
    // such edits are rare (link lists are replaced by delete + insert anyway).
    onUpdate: [`DELETE FROM search_docs WHERE entity_type = '${entityType}' AND entity_id = old.id`, insert],
    onDelete: [`DELETE FROM search_docs WHERE entity_type = '${entityType}' AND entity_id = old.id`],
  };
}

// Statements are written once in the SQL both dialects share (`new`/`old` rows, `<>` on NOT NULL
// columns). Conditions on old/new only are constant for the statement: both engines test them once
// before touching any row, so a rename does not visit the documents below it.
const TRIGGERS: TableTriggers[] = [
  {
    table: 'projects',
    updateOf: ['name', 'description'],
    onInsert: [
      `INSERT INTO search_docs (${DOC_COLUMNS})
       VALUES ('project', new.id, new.id, NULL, NULL, NULL, new.name, new.description)`,
    ],
    onUpdate: [
      `UPDATE search_docs SET title_text = new.name, body_text = new.description
       WHERE entity_type = 'project' AND entity_id = new.id`,
    ],
    // Everything of the project goes, even rows whose own delete trigger did not run.
    onDelete: ['DELETE FROM search_docs WHERE project_id = old.id'],
  },
  {
    table: 'sections',
    updateOf: ['name', 'project_id'],
    onInsert: [
      `INSERT INTO search_docs (${DOC_COLUMNS})
       VALUES ('section', new.id, new.project_id, new.id, NULL, NULL, new.name, '')`,
    ],
    onUpdate: [
      `UPDATE search_docs SET title_text = new.name WHERE entity_type = 'section' AND entity_id = new.id`,
      `UPDATE search_docs SET project_id = new.project_id WHERE old.project_id <> new.project_id AND section_id = new.id`,
    ],
    onDelete: [`DELETE FROM search_docs WHERE entity_type = 'section' AND entity_id = old.id`],
  },
  {
    table: 'checklists',
    updateOf: ['name', 'project_id', 'section_id'],
    onInsert: [
      `INSERT INTO search_docs (${DOC_COLUMNS})
       VALUES ('checklist', new.id, new.project_id, new.section_id, new.id, NULL, new.name, '')`,
    ],
    onUpdate: [
      `UPDATE search_docs SET title_text = new.name WHERE entity_type = 'checklist' AND entity_id = new.id`,
      `UPDATE search_docs SET project_id = new.project_id, section_id = new.section_id
       WHERE (old.project_id <> new.project_id OR old.section_id <> new.section_id) AND checklist_id = new.id`,
    ],
    onDelete: [`DELETE FROM search_docs WHERE entity_type = 'checklist' AND entity_id = old.id`],
  },
  {
    table: 'items',
    updateOf: ['text', 'description', 'project_id', 'section_id', 'checklist_id'],
    onInsert: [
      `INSERT INTO search_docs (${DOC_COLUMNS})
       VALUES ('item', new.id, new.project_id, new.section_id, new.checklist_id, new.id, new.text, new.description)`,
    ],
    onUpdate: [
      `UPDATE search_docs SET title_text = new.text, body_text = new.description
       WHERE entity_type = 'item' AND entity_id = new.id`,
      // The item's comments, answers and links move with it: visibility is decided by checklist.
      `UPDATE search_docs SET project_id = new.project_id, section_id = new.section_id, checklist_id = new.checklist_id
       WHERE (old.project_id <> new.project_id OR old.section_id <> new.section_id OR old.checklist_id <> new.checklist_id)
         AND item_id = new.id`,
    ],
    // The item and whatever still hangs on it.
    onDelete: ['DELETE FROM search_docs WHERE item_id = old.id'],
  },
  childOfItem('comments', 'comment', 'new.text', "''", ['item_id', 'text']),
  childOfItem('answers', 'answer', 'new.text', "''", ['item_id', 'text']),
  childOfItem('document_links', 'link', 'new.title', 'new.url', ['item_id', 'title', 'url']),
];

/** Backfill: the same documents the insert triggers would have written. */
const BACKFILL = [
  `INSERT INTO search_docs (${DOC_COLUMNS})
   SELECT 'project', id, id, NULL, NULL, NULL, name, description FROM projects`,
  `INSERT INTO search_docs (${DOC_COLUMNS})
   SELECT 'section', id, project_id, id, NULL, NULL, name, '' FROM sections`,
  `INSERT INTO search_docs (${DOC_COLUMNS})
   SELECT 'checklist', id, project_id, section_id, id, NULL, name, '' FROM checklists`,
  `INSERT INTO search_docs (${DOC_COLUMNS})
   SELECT 'item', id, project_id, section_id, checklist_id, id, text, description FROM items`,
  `INSERT INTO search_docs (${DOC_COLUMNS})
   SELECT 'comment', c.id, i.project_id, i.section_id, i.checklist_id, i.id, c.text, '' FROM comments c JOIN items i ON i.id = c.item_id`,
  `INSERT INTO search_docs (${DOC_COLUMNS})
   SELECT 'answer', a.id, i.project_id, i.section_id, i.checklist_id, i.id, a.text, '' FROM answers a JOIN items i ON i.id = a.item_id`,
  `INSERT INTO search_docs (${DOC_COLUMNS})
   SELECT 'link', l.id, i.project_id, i.section_id, i.checklist_id, i.id, l.title, l.url FROM document_links l JOIN items i ON i.id = l.item_id`,
];

/*
 * What the FTS5 index is fed. U+0130 (İ) is the one character whose Unicode lower case is two code
 * points (i + U+0307), and FTS5 folds it to neither: feeding the lower-case pair keeps "i" and the dot
 * findable exactly where JavaScript lower-casing finds them. The stored text stays untouched.
 */
const ftsText = (column: string) => `replace(${column}, char(304), char(105, 775))`;

async function run(db: Kysely<any>, statement: string): Promise<void> {
  await sql.raw(statement).execute(db);
}

async function createDocs(db: Kysely<any>, postgres: boolean): Promise<void> {
  await db.schema
    .createTable('search_docs')
    .addColumn('id', postgres ? 'bigserial' : 'integer', (c) => c.primaryKey())
    .addColumn('entity_type', 'text', (c) => c.notNull())
    .addColumn('entity_id', 'bigint', (c) => c.notNull())
    .addColumn('project_id', 'bigint', (c) => c.notNull())
    .addColumn('section_id', 'bigint')
    .addColumn('checklist_id', 'bigint')
    .addColumn('item_id', 'bigint')
    .addColumn('title_text', 'text', (c) => c.notNull())
    .addColumn('body_text', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.createIndex('search_docs_entity').on('search_docs').columns(['entity_type', 'entity_id']).unique().execute();
  await db.schema.createIndex('search_docs_project').on('search_docs').columns(['project_id', 'entity_type']).execute();
  await db.schema.createIndex('search_docs_section').on('search_docs').column('section_id').execute();
  await db.schema.createIndex('search_docs_checklist').on('search_docs').column('checklist_id').execute();
  await db.schema.createIndex('search_docs_item').on('search_docs').column('item_id').execute();
}

async function upSqlite(db: Kysely<any>): Promise<void> {
  await createDocs(db, false);
  // Contentless: the text is stored once, in search_docs. remove_diacritics 0 keeps "e" and "é"
  // (and "е" and "ё") apart, as Unicode lower-casing does.
  await run(
    db,
    `CREATE VIRTUAL TABLE search_fts USING fts5(title_text, body_text,
       content='', contentless_delete=1, tokenize='trigram remove_diacritics 0')`,
  );
  await run(
    db,
    `CREATE TRIGGER search_docs_fts_insert AFTER INSERT ON search_docs BEGIN
       INSERT INTO search_fts (rowid, title_text, body_text) VALUES (new.id, ${ftsText('new.title_text')}, ${ftsText('new.body_text')});
     END`,
  );
  await run(
    db,
    `CREATE TRIGGER search_docs_fts_delete AFTER DELETE ON search_docs BEGIN
       DELETE FROM search_fts WHERE rowid = old.id;
     END`,
  );
  // Moves update search_docs without changing text: only a text change re-indexes.
  await run(
    db,
    `CREATE TRIGGER search_docs_fts_update AFTER UPDATE OF title_text, body_text ON search_docs
     WHEN old.title_text IS NOT new.title_text OR old.body_text IS NOT new.body_text BEGIN
       DELETE FROM search_fts WHERE rowid = old.id;
       INSERT INTO search_fts (rowid, title_text, body_text) VALUES (new.id, ${ftsText('new.title_text')}, ${ftsText('new.body_text')});
     END`,
  );
  for (const statement of BACKFILL) await run(db, statement);
  for (const t of TRIGGERS) {
    const events = [
      ['insert', 'INSERT', t.onInsert],
      ['update', `UPDATE OF ${t.updateOf.join(', ')}`, t.onUpdate],
      ['delete', 'DELETE', t.onDelete],
    ] as const;
    for (const [name, event, statements] of events) {
      await run(
        db,
        `CREATE TRIGGER search_${t.table}_${name} AFTER ${event} ON ${t.table} BEGIN\n${statements.map((s) => `${s};`).join('\n')}\nEND`,
      );
    }
  }
}

async function upPostgres(db: Kysely<any>): Promise<void> {
  // pg_trgm is a trusted extension (PostgreSQL 13+): the database owner may create it.
  await run(db, 'CREATE EXTENSION IF NOT EXISTS pg_trgm');
  await createDocs(db, true);
  for (const statement of BACKFILL) await run(db, statement);
  // Built after the backfill: one pass instead of one update per row.
  await run(db, 'CREATE INDEX search_docs_title_trgm ON search_docs USING gin (lower(title_text) gin_trgm_ops)');
  await run(db, 'CREATE INDEX search_docs_body_trgm ON search_docs USING gin (lower(body_text) gin_trgm_ops)');
  for (const t of TRIGGERS) {
    const body = (statements: string[]) => statements.map((s) => `    ${s};`).join('\n');
    await run(
      db,
      `CREATE FUNCTION search_sync_${t.table}() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
${body(t.onInsert)}
  ELSIF TG_OP = 'UPDATE' THEN
${body(t.onUpdate)}
  ELSE
${body(t.onDelete)}
  END IF;
  RETURN NULL;
END
$fn$`,
    );
    await run(
      db,
      `CREATE TRIGGER search_sync AFTER INSERT OR DELETE OR UPDATE OF ${t.updateOf.join(', ')} ON ${t.table}
       FOR EACH ROW EXECUTE FUNCTION search_sync_${t.table}()`,
    );
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    // The migrator already runs each PostgreSQL migration in a transaction.
    await upPostgres(db);
    return;
  }
  // Kysely runs SQLite migrations outside a transaction; SQLite DDL is transactional, so make the
  // table, the backfill and the triggers land together or not at all.
  await db.transaction().execute((trx) => upSqlite(trx));
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    for (const t of TRIGGERS) {
      await run(db, `DROP TRIGGER IF EXISTS search_sync ON ${t.table}`);
      await run(db, `DROP FUNCTION IF EXISTS search_sync_${t.table}()`);
    }
    await run(db, 'DROP TABLE IF EXISTS search_docs');
    return;
  }
  await db.transaction().execute(async (trx) => {
    for (const t of TRIGGERS) {
      for (const name of ['insert', 'update', 'delete']) await run(trx, `DROP TRIGGER IF EXISTS search_${t.table}_${name}`);
    }
    await run(trx, 'DROP TABLE IF EXISTS search_fts');
    await run(trx, 'DROP TABLE IF EXISTS search_docs');
  });
}
