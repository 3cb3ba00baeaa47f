import { type Expression, type ExpressionBuilder, type Kysely, type SqlBool, sql } from 'kysely';
import { bindStatements } from '../../db/bind-statements.js';
import type { Database } from '../../db/tables.js';

import type { SearchEntityType } from '../../domain/values.js';

export { SEARCH_ENTITY_TYPES, type SearchEntityType } from '../../domain/values.js';

/** Types whose visibility follows their checklist (the checklist itself, its items and what hangs on them). */
const UNDER_CHECKLIST: readonly SearchEntityType[] = ['checklist', 'item', 'comment', 'answer', 'link'];

/** Written only by the triggers of migration 002-search. */
interface SearchDocsTable {
  id: number;
  entity_type: SearchEntityType;
  entity_id: number;
  project_id: number;
  section_id: number | null;
  checklist_id: number | null;
  item_id: number | null;
  title_text: string;
  body_text: string;
}

interface SearchFtsTable {
  rowid: number;
  title_text: string;
  body_text: string;
}

/** SQLite only (migration 010): the documents whose text FTS5 may not hold as it is now, in the order they changed. */
interface SearchFtsQueueTable {
  id: number;
  doc_id: number;
}

/** SQLite only (migration 010): the FTS5 rowid each document was indexed under. */
interface SearchFtsRowidsTable {
  doc_id: number;
  fts_rowid: number;
}

type SearchTables = {
  search_docs: SearchDocsTable;
  search_fts: SearchFtsTable;
  search_fts_queue: SearchFtsQueueTable;
  search_fts_rowids: SearchFtsRowidsTable;
};

/** A document's FTS5 rowid (migration 010): its project in the high 32 bits, computed in SQL (64-bit integers). */
const FTS_ROWID = sql.raw('(project_id * 4294967296 + id)');
/** What FTS5 is fed for a text: U+0130 (İ) as its Unicode lower case, as migration 002 explains. */
const ftsText = (column: string) => sql.raw(`replace(${column}, char(304), char(105, 775))`);

/** Which documents a search may return: one project, what the user sees of it, optionally one type. */
export interface SearchScope {
  projectId: number;
  checklistIds: readonly number[] | 'all';
  sectionIds: readonly number[] | 'all';
  entityType: SearchEntityType | null;
  /** docs/design.md §20: only the items this company holds (null: none), and what hangs on no item. Absent: no limit. */
  companyId?: number | null;
}

/** A candidate: the caller still decides whether its text really contains the query. */
export interface SearchDoc {
  entity_type: SearchEntityType;
  entity_id: number;
  project_id: number;
  item_id: number | null;
  title_text: string;
  body_text: string;
}

/**
 * Query characters the SQLite FTS5 trigram index cannot be trusted with: its case folding (an
 * older Unicode table) disagrees with JavaScript lower-casing for the upper-case forms of these
 * lower-case letters (Georgian Mtavruli, Cherokee, Osage, a few Latin and Cyrillic additions…), so a
 * document holding the upper-case form would be missed. Queries containing one of them take the
 * scan path. Derived by probing FTS5 with every cased character; search.test.ts repeats the probe
 * through the service so a SQLite or Node upgrade that widens the gap fails loudly (add the
 * lower-case letter of each text it reports).
 */
export const FTS5_FOLDING_GAPS =
  /[\u{19B}\u{25C}\u{261}\u{264}\u{26A}\u{26C}\u{282}\u{287}\u{29D}-\u{29E}\u{3F3}\u{529}\u{52B}\u{52D}\u{52F}\u{10D0}-\u{10FA}\u{10FD}-\u{10FF}\u{13F8}-\u{13FD}\u{1C8A}\u{1D8E}\u{2C5F}\u{A699}\u{A69B}\u{A794}\u{A797}\u{A799}\u{A79B}\u{A79D}\u{A79F}\u{A7B5}\u{A7B7}\u{A7B9}\u{A7BB}\u{A7BD}\u{A7BF}\u{A7C1}\u{A7C3}\u{A7C8}\u{A7CA}\u{A7CD}\u{A7CF}\u{A7D1}\u{A7D3}\u{A7D5}\u{A7D7}\u{A7D9}\u{A7DB}\u{A7F6}\u{AB53}\u{AB70}-\u{ABBF}\u{104D8}-\u{104FB}\u{10597}-\u{105A1}\u{105A3}-\u{105B1}\u{105B3}-\u{105B9}\u{105BB}-\u{105BC}\u{10CC0}-\u{10CF2}\u{10D70}-\u{10D85}\u{118C0}-\u{118DF}\u{16E60}-\u{16E7F}\u{16EBB}-\u{16ED3}\u{1E922}-\u{1E943}]/u;

/** The search tables (migrations 002 and 010), which db/tables.ts does not declare. */
const searchTables = (db: Kysely<Database>) => db.withTables<SearchTables>();
type Dialect = 'sqlite' | 'postgres';
type DocsBuilder = ExpressionBuilder<Database & SearchTables, 'search_docs'>;
const DOC_COLUMNS = [
  'search_docs.entity_type',
  'search_docs.entity_id',
  'search_docs.project_id',
  'search_docs.item_id',
  'search_docs.title_text',
  'search_docs.body_text',
] as const;

function inScope(eb: DocsBuilder, scope: SearchScope): Expression<SqlBool> {
  const conditions: Expression<SqlBool>[] = [eb('search_docs.project_id', '=', scope.projectId)];
  if (scope.entityType !== null) conditions.push(eb('search_docs.entity_type', '=', scope.entityType));
  if (scope.sectionIds !== 'all' || scope.checklistIds !== 'all') {
    // The project itself is visible to whoever may search it.
    const visible: Expression<SqlBool>[] = [eb('search_docs.entity_type', '=', 'project')];
    if (scope.sectionIds === 'all') visible.push(eb('search_docs.entity_type', '=', 'section'));
    else if (scope.sectionIds.length > 0) {
      visible.push(eb.and([eb('search_docs.entity_type', '=', 'section'), eb('search_docs.section_id', 'in', scope.sectionIds)]));
    }
    if (scope.checklistIds === 'all') visible.push(eb('search_docs.entity_type', 'in', UNDER_CHECKLIST));
    else if (scope.checklistIds.length > 0) {
      visible.push(
        eb.and([eb('search_docs.entity_type', 'in', UNDER_CHECKLIST), eb('search_docs.checklist_id', 'in', scope.checklistIds)]),
      );
    }
    conditions.push(eb.or(visible));
  }
  if (scope.companyId !== undefined) {
    const held = eb
      .selectFrom('items as ci')
      .select('ci.id')
      .where('ci.project_id', '=', scope.projectId)
      .where('ci.responsible_company_id', '=', scope.companyId ?? 0);
    conditions.push(eb.or([eb('search_docs.item_id', 'is', null), eb('search_docs.item_id', 'in', held)]));
  }
  return eb.and(conditions);
}

function docs(db: Kysely<Database>, scope: SearchScope, matching: (eb: DocsBuilder) => Expression<SqlBool>): Promise<SearchDoc[]> {
  return searchTables(db)
    .selectFrom('search_docs')
    .select(DOC_COLUMNS)
    .where((eb) => eb.and([inScope(eb, scope), matching(eb)]))
    .execute();
}

const contains = (dialect: Dialect, needle: string) => {
  const within = (column: string) =>
    dialect === 'postgres'
      ? sql<SqlBool>`strpos(${sql.ref(column)}, ${needle}) > 0`
      : sql<SqlBool>`instr(${sql.ref(column)}, ${needle}) > 0`;
  return sql<SqlBool>`(${within('search_docs.title_text')} OR ${within('search_docs.body_text')})`;
};

/** Every company's name (retired ones too: they stay on the items they hold), for a search by company name. */
function companyNames(db: Kysely<Database>): Promise<{ id: number; name: string }[]> {
  return db.selectFrom('companies').select(['id', 'name']).execute();
}

/** The item documents of the scope whose item is held by one of `companyIds` (docs/design.md §20). */
async function itemsHeldBy(
  db: Kysely<Database>,
  scope: SearchScope,
  companyIds: readonly number[],
): Promise<(SearchDoc & { company_id: number })[]> {
  if (companyIds.length === 0 || (scope.entityType !== null && scope.entityType !== 'item')) return [];
  return searchTables(db)
    .selectFrom('search_docs')
    .innerJoin('items as held', 'held.id', 'search_docs.entity_id')
    .select(DOC_COLUMNS)
    .select('held.responsible_company_id as company_id')
    .where((eb) =>
      eb.and([
        inScope(eb, scope),
        eb('search_docs.entity_type', '=', 'item'),
        eb('held.project_id', '=', scope.projectId),
        eb('held.responsible_company_id', 'in', [...companyIds]),
      ]),
    )
    .execute() as Promise<(SearchDoc & { company_id: number })[]>;
}

/** Candidates from the text index: a superset of the documents containing `needle` (lower-cased). */
async function findByIndex(db: Kysely<Database>, dialect: Dialect, scope: SearchScope, needle: string): Promise<SearchDoc[]> {
  if (dialect === 'postgres') {
    // The pattern is a bound parameter; escaping makes %, _ and \ plain characters.
    const pattern = `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return docs(db, scope, () => {
      const like = (column: string) => sql<SqlBool>`lower(${sql.ref(column)}) LIKE lower(${pattern}) ESCAPE '\\'`;
      return sql<SqlBool>`(${like('search_docs.title_text')} OR ${like('search_docs.body_text')})`;
    });
  }
  // One FTS5 phrase, bound as a parameter: inside double quotes only a doubled quote is special,
  // so operators, column filters and * in the user's text stay plain characters.
  const phrase = `"${needle.replaceAll('"', '""')}"`;
  // The match is restricted to the project's rowid range (migration 010), so a common word costs what
  // it costs in this project. The bounds are cast: FTS5 ignores a rowid constraint bound as a REAL.
  // CROSS JOIN makes SQLite start from the index matches. The documents still queued for FTS5 are
  // read as they are: a committed write is found at once (an old text FTS5 still holds only proposes
  // a candidate, which the caller's check of the current text then refuses). That read starts from the
  // queue too (usually empty): as `id IN (queue)` SQLite walked the project's documents, 2.2 ms of every
  // search in the benchmark's 22 611-document project against ~3 µs (docs/performance.md).
  const [indexed, queued] = await Promise.all([
    searchTables(db)
      .selectFrom('search_fts')
      .crossJoin('search_docs')
      .select(DOC_COLUMNS)
      .where(sql<SqlBool>`search_fts MATCH ${phrase}`)
      .where(sql<SqlBool>`search_fts.rowid >= CAST(${scope.projectId} AS INTEGER) * 4294967296`)
      .where(sql<SqlBool>`search_fts.rowid < (CAST(${scope.projectId} AS INTEGER) + 1) * 4294967296`)
      .where(sql<SqlBool>`search_docs.id = (search_fts.rowid & 4294967295)`)
      .where((eb) => inScope(eb, scope))
      .execute(),
    searchTables(db)
      .selectFrom(searchTables(db).selectFrom('search_fts_queue').select('doc_id').distinct().as('queued'))
      .crossJoin('search_docs')
      .select(DOC_COLUMNS)
      .whereRef('search_docs.id', '=', 'queued.doc_id')
      .where((eb) => inScope(eb, scope))
      .execute(),
  ]);
  if (queued.length === 0) return indexed;
  const seen = new Set(indexed.map((d) => `${d.entity_type}:${d.entity_id}`));
  return [...indexed, ...queued.filter((d) => !seen.has(`${d.entity_type}:${d.entity_id}`))];
}

/**
 * SQLite: feeds FTS5 the documents of up to `maxDocs` queued changes, in one transaction (one new
 * FTS5 segment for the batch instead of one per write), and takes them off the queue: what FTS5 held
 * of them goes, their text as it is now comes in. Answers how many documents were indexed (0: the
 * queue is empty).
 */
async function indexQueued(db: Kysely<Database>, maxDocs: number): Promise<number> {
  return searchTables(db)
    .transaction()
    .execute(async (trx) => {
      const head = await trx.selectFrom('search_fts_queue').select('doc_id').orderBy('id').limit(maxDocs).execute();
      if (head.length === 0) return 0;
      const ids = [...new Set(head.map((r) => r.doc_id))];
      const list = sql.join(ids);
      await sql`DELETE FROM search_fts WHERE rowid IN (SELECT fts_rowid FROM search_fts_rowids WHERE doc_id IN (${list}))`.execute(trx);
      await trx.deleteFrom('search_fts_rowids').where('doc_id', 'in', ids).execute();
      await sql`INSERT INTO search_fts (rowid, title_text, body_text)
      SELECT ${FTS_ROWID}, ${ftsText('title_text')}, ${ftsText('body_text')} FROM search_docs WHERE id IN (${list})`.execute(trx);
      await sql`INSERT INTO search_fts_rowids (doc_id, fts_rowid) SELECT id, ${FTS_ROWID} FROM search_docs WHERE id IN (${list})`.execute(
        trx,
      );
      await trx.deleteFrom('search_fts_queue').where('doc_id', 'in', ids).execute();
      return ids.length;
    });
}

/**
 * Candidates by reading the project's documents, narrowed in SQL: for each group, the title or
 * the body must contain one of its strings (the spellings of a piece of the query).
 */
function findByScan(
  db: Kysely<Database>,
  dialect: Dialect,
  scope: SearchScope,
  requiredAlternatives: readonly (readonly string[])[],
): Promise<SearchDoc[]> {
  return docs(db, scope, (eb) =>
    eb.and(requiredAlternatives.map((alternatives) => eb.or(alternatives.map((needle) => contains(dialect, needle))))),
  );
}

/**
 * Items whose value of a text or choice field (active fields only: a retired one is hidden everywhere) may
 * contain the query, narrowed as findByScan narrows (every group of spellings present), optionally of one item:
 * the item's document with the field's name and value. The caller checks the value.
 */
function findByFieldValue(
  db: Kysely<Database>,
  dialect: Dialect,
  scope: SearchScope,
  requiredAlternatives: readonly (readonly string[])[],
  itemId: number | null,
): Promise<(SearchDoc & { field_name: string; value: string })[]> {
  const value = sql<string>`coalesce(v.text_value, v.option_value)`;
  const within = (needle: string) =>
    dialect === 'postgres' ? sql<SqlBool>`strpos(${value}, ${needle}) > 0` : sql<SqlBool>`instr(${value}, ${needle}) > 0`;
  let query = searchTables(db)
    .selectFrom('search_docs')
    .innerJoin('item_field_values as v', 'v.item_id', 'search_docs.entity_id')
    .innerJoin('custom_fields as f', 'f.id', 'v.field_id')
    .select([...DOC_COLUMNS, 'f.name as field_name', value.as('value')])
    .where('search_docs.entity_type', '=', 'item')
    .where('v.project_id', '=', scope.projectId)
    .where('f.retired_at', 'is', null)
    .where('f.kind', 'in', ['text', 'choice'])
    .where((eb) =>
      eb.and([inScope(eb, { ...scope, entityType: 'item' }), ...requiredAlternatives.map((group) => eb.or(group.map(within)))]),
    );
  if (itemId !== null) query = query.where('v.item_id', '=', itemId);
  return query.orderBy('f.position').orderBy('f.id').execute();
}

/** Every document of one item: the item, its comments, answers and links. */
function findByItem(db: Kysely<Database>, scope: SearchScope, itemId: number): Promise<SearchDoc[]> {
  return docs(db, scope, (eb) => eb('search_docs.item_id', '=', itemId));
}

/** PostgreSQL's lower() of each string, in order: its folding depends on the database's locale. */
async function lowerInDatabase(db: Kysely<Database>, values: readonly string[]): Promise<string[]> {
  const { rows } = await sql<{ lowered: string }>`
    SELECT lower(v) AS lowered FROM unnest(${values}::text[]) WITH ORDINALITY AS u(v, n) ORDER BY n`.execute(db);
  return rows.map((r) => r.lowered);
}

export function createSearchRepository(db: Kysely<Database>, dialect: Dialect) {
  return {
    ...bindStatements(db, { companyNames, itemsHeldBy, indexQueued, findByItem, lowerInDatabase }),
    findByIndex: findByIndex.bind(null, db, dialect),
    findByScan: findByScan.bind(null, db, dialect),
    findByFieldValue: findByFieldValue.bind(null, db, dialect),
  };
}

export type SearchRepository = ReturnType<typeof createSearchRepository>;
