import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, type RawBuilder, sql, SqliteDialect, type Transaction } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/tables.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { USERS } from '../../../test/helpers/workspace.js';
import { createItemsRepository } from '../items/items.repository.js';
import { createItemsService } from '../items/items.service.js';
import { createProjectsRepository } from '../projects/projects.repository.js';
import { createProjectsService } from '../projects/projects.service.js';
import { OPERATIONS } from '../../api/v1/operations.js';
import { CACHED_OPERATIONS, CACHED_READS, type CachedRead, type CachedReadName } from './cached-columns.js';
import { createCacheVersionsRepository } from './cache-versions.repository.js';

/*
 * The declaration of what the cached reads show (cached-columns.ts) against the truth, on a real database of
 * each dialect (docs/db-plumbing.md, "Cached columns"): every cached v1 operation has its read declared; the SQL
 * the card and the tree run touches exactly the declared columns; an UPDATE of each declared column alone, by
 * hand, moves the read's version; so does a row of a declared table inserted or deleted alone, when the answer
 * shows it. Each failure names the table.column (or the table and the event).
 */

const ITEM = 1000;
const PROJECT = 1;
const admin = { id: USERS.admin, role: 'admin' as const };
const manager = { id: USERS.manager, role: 'member' as const };

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  const db = server.ctx.db.kysely;
  // The workspace's item 1000 with one of everything its card and the tree show: a pin, an image, a history entry.
  await sql`UPDATE items SET plan_id = (SELECT MIN(id) FROM plans), plan_x = 0.25, plan_y = 0.75 WHERE id = ${ITEM}`.execute(db);
  await db
    .insertInto('attachments')
    .values({
      item_id: ITEM,
      answer_id: null,
      original_name: 'a.png',
      mime_type: 'image/png',
      path: 'cached-columns/a.png',
      size: 10,
      width: 4,
      height: 4,
      uploaded_by: USERS.manager,
      created_at: '2026-01-02T00:00:00.000Z',
    })
    .execute();
  await db
    .insertInto('item_history')
    .values({
      item_id: ITEM,
      kind: 'status_changed',
      from_status: 'pending',
      to_status: 'done',
      user_id: USERS.executor,
      note: null,
      at: '2026-01-02T00:00:00.000Z',
    })
    .execute();
  // A category and a field value (docs/design.md §21), through the services as a manager sets them.
  const category = await server.ctx.vocabulary.addCategory(admin, PROJECT, 'Electrical');
  const field = await server.ctx.vocabulary.addField(admin, PROJECT, { name: 'Severity', kind: 'choice', options: ['low', 'high'] });
  await server.ctx.itemEdits.updateItem(admin, ITEM, { vocabulary: { categoryId: category, values: new Map([[field, 'high']]) } });
  // A company holding the item, the executor's company (docs/design.md §20), and another for the probes.
  const company = await server.ctx.companies.createCompany(admin, { name: 'Sparks Ltd', trade: 'Electrical' });
  await server.ctx.companies.createCompany(admin, { name: 'Drywall Crew', trade: 'Drywall' });
  await server.ctx.companies.setUserCompany(admin, USERS.executor, company.id);
  await server.ctx.itemEdits.updateItem(admin, ITEM, { companyId: company.id });
  // A second field and category for the probes to move the item's to.
  await server.ctx.vocabulary.addField(admin, PROJECT, { name: 'Cost', kind: 'number' });
  await server.ctx.vocabulary.addCategory(admin, PROJECT, 'Plumbing');
});

afterAll(async () => {
  await server?.close();
});

// ---------------------------------------------------------------------------------------------------------------
// The columns the SQL of a read touches

/** A table's declared columns, whichever table. */
type Declared = '*' | readonly string[];

/** A table.column of a query's text, or table.* for a whole row. */
type Touched = Map<string, Set<string>>;

const TABLE_REF = /\b(?:from|join)\s+"(\w+)"(?:\s+as\s+"(\w+)")?/g;

/**
 * The columns a query as Kysely compiles it touches (selected, joined on, filtered, grouped or ordered by):
 * `"alias"."column"`, `"column"` of a one-table query, `select *`. Aliases of results (`as "x"`) are not columns.
 */
function touchedColumns(text: string, into: Touched = new Map()): Touched {
  const tables = new Map<string, string>();
  for (const m of text.matchAll(TABLE_REF)) tables.set(m[2] ?? m[1]!, m[1]!);
  const add = (table: string | undefined, column: string) => {
    if (!table) throw new Error(`a column of an unknown table in: ${text}`);
    into.set(table, (into.get(table) ?? new Set()).add(column));
  };
  const only = () => {
    if (tables.size !== 1) throw new Error(`an unqualified column in a query of ${tables.size} tables: ${text}`);
    return [...tables.values()][0];
  };
  let rest = text.replace(TABLE_REF, ' ').replace(/\bas\s+"\w+"/g, ' ');
  rest = rest.replace(/"(\w+)"\."(\w+)"/g, (_, alias: string, column: string) => (add(tables.get(alias), column), ' '));
  rest = rest.replace(/"(\w+)"\.\*/g, (_, alias: string) => (add(tables.get(alias), '*'), ' '));
  if (/\bselect\s+\*/.test(rest)) add(only(), '*');
  for (const m of rest.matchAll(/"(\w+)"/g)) add(only(), m[1]!);
  return into;
}

/** What a touched set has beyond the declaration (undeclared), and what the declaration has that no SQL touches. */
function compare(read: CachedRead, touched: Touched) {
  const undeclared: string[] = [];
  const unread: string[] = [];
  for (const [table, columns] of touched) {
    const declared = read[table as keyof Database] as Declared | undefined;
    for (const column of columns) {
      if (declared === '*' || declared?.includes(column)) continue;
      undeclared.push(`${table}.${column}`);
    }
  }
  for (const [table, declared] of Object.entries(read) as [string, Declared][]) {
    const columns = touched.get(table) ?? new Set();
    for (const column of declared === '*' ? ['*'] : declared) if (!columns.has(column)) unread.push(`${table}.${column}`);
  }
  return { undeclared, unread };
}

/** A Kysely of its own on the test's database, logging every statement's SQL (the app's own skips Kysely for some reads). */
function loggedKysely(url: string, log: string[]): { db: Kysely<Database>; close(): Promise<void> } {
  const onLog = (event: { query: { sql: string } }) => void log.push(event.query.sql);
  if (url.startsWith('sqlite:')) {
    const sqlite = new SQLite(url.slice('sqlite:'.length), { readonly: true });
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }), log: onLog });
    return { db, close: () => db.destroy() };
  }
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 2 }) }), log: onLog });
  return { db, close: () => db.destroy() };
}

/** The SQL of a read as the services run it, for a manager (a member: the membership reads) and for an admin. */
async function sqlOf(read: CachedReadName): Promise<string[]> {
  const log: string[] = [];
  const { db, close } = loggedKysely(server.ctx.config.databaseUrl, log);
  try {
    const projectsRepo = createProjectsRepository(db);
    const items = createItemsService({ repo: createItemsRepository(db), projects: projectsRepo, urls: server.ctx.config });
    const projects = createProjectsService(projectsRepo);
    for (const actor of [manager, admin]) {
      if (read === 'card') await items.getItemCard(actor, ITEM);
      else await projects.getTree(actor, PROJECT);
    }
  } finally {
    await close();
  }
  return log;
}

describe('cached columns: the SQL of a cached read touches exactly the declared columns', () => {
  it('declares the read of every v1 operation the response cache serves', () => {
    const cached = Object.entries(OPERATIONS).filter(([, op]) => 'cache' in op && op.cache);
    expect(cached.map(([name]) => name).sort(), 'cached operations: declare their read in CACHED_OPERATIONS').toEqual(
      Object.keys(CACHED_OPERATIONS).sort(),
    );
  });

  it('reads the columns of a Kysely query, aliases of results aside', () => {
    const touched = touchedColumns(
      'select "u"."id", "u"."name" as "author_name", "m".* from "comments" as "c" inner join "users" as "u" on "u"."id" = "c"."author_id" ' +
        'left join "project_members" as "m" on "m"."user_id" = "u"."id" where "c"."item_id" = ? order by "c"."id"',
    );
    expect(Object.fromEntries([...touched].map(([t, c]) => [t, [...c].sort()]))).toEqual({
      users: ['id', 'name'],
      comments: ['author_id', 'id', 'item_id'],
      project_members: ['*', 'user_id'],
    });
    expect(touchedColumns('select "id", count(*) as "count" from "items" where "project_id" = $1 group by "status"').get('items')).toEqual(
      new Set(['id', 'project_id', 'status']),
    );
    // A read that shows a column nobody declared fails, naming it; a declared column no read touches, too.
    expect(compare({ items: ['id', 'text'] }, touchedColumns('select "id", "responsible_company_id" from "items"'))).toEqual({
      undeclared: ['items.responsible_company_id'],
      unread: ['items.text'],
    });
  });

  it.each(Object.keys(CACHED_READS) as CachedReadName[])('%s', async (read) => {
    const touched = new Map() as Touched;
    for (const text of await sqlOf(read)) touchedColumns(text, touched);
    const { undeclared, unread } = compare(CACHED_READS[read], touched);
    expect(undeclared, `columns the ${read} reads, not declared in cached-columns.ts`).toEqual([]);
    expect(unread, `columns declared for the ${read} in cached-columns.ts that its SQL no longer touches`).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Every declared column, updated alone, moves the read's version

/** The row of each table that the card of item 1000 or the tree of project 1 shows (an SQL condition). */
const SUBJECT: Record<string, string> = {
  items: `id = ${ITEM}`,
  projects: `id = ${PROJECT}`,
  project_members: `project_id = ${PROJECT} AND user_id = ${USERS.executor}`,
  item_participants: `item_id = ${ITEM} AND user_id = ${USERS.executor}`,
  users: `id = ${USERS.executor}`,
  comments: `id = (SELECT MIN(id) FROM comments WHERE item_id = ${ITEM})`,
  answers: `id = (SELECT MIN(id) FROM answers WHERE item_id = ${ITEM})`,
  document_links: `id = (SELECT MIN(id) FROM document_links WHERE item_id = ${ITEM})`,
  attachments: `id = (SELECT MIN(id) FROM attachments WHERE item_id = ${ITEM})`,
  item_history: `id = (SELECT MAX(id) FROM item_history WHERE item_id = ${ITEM})`,
  plans: `id = (SELECT plan_id FROM items WHERE id = ${ITEM})`,
  sections: 'id = (SELECT MIN(id) FROM sections WHERE project_id = 1)',
  checklists: 'id = (SELECT MIN(id) FROM checklists WHERE project_id = 1)',
  categories: `id = (SELECT category_id FROM items WHERE id = ${ITEM})`,
  companies: `id = (SELECT responsible_company_id FROM items WHERE id = ${ITEM})`,
  custom_fields: `id = (SELECT MIN(field_id) FROM item_field_values WHERE item_id = ${ITEM})`,
  item_field_values: `item_id = ${ITEM} AND field_id = (SELECT MIN(field_id) FROM item_field_values WHERE item_id = ${ITEM})`,
};

/** The table a column refers to: its new value is another row's id (a new reference column goes here). */
const REFERENCES: Record<string, keyof Database> = {
  project_id: 'projects',
  section_id: 'sections',
  checklist_id: 'checklists',
  item_id: 'items',
  answer_id: 'answers',
  plan_id: 'plans',
  user_id: 'users',
  author_id: 'users',
  created_by: 'users',
  uploaded_by: 'users',
  category_id: 'categories',
  responsible_company_id: 'companies',
  company_id: 'companies',
  dispute_by: 'users',
  field_id: 'custom_fields',
};

const postgres = () => server.ctx.db.dialect === 'postgres';

/** The table's columns with their SQL types, as the database has them (so a column added later is here too). */
async function columnsOf(table: string): Promise<{ name: string; type: string }[]> {
  const db = server.ctx.db.kysely;
  const { rows } = postgres()
    ? await sql<{ name: string; type: string }>`SELECT column_name AS name, data_type AS type FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = ${table}`.execute(db)
    : await sql<{ name: string; type: string }>`SELECT name, type FROM pragma_table_info(${table})`.execute(db);
  return rows;
}

/** New values for a column of a row, tried in order (another row's id for a reference: some break a unique key). */
async function newValues(table: string, column: { name: string; type: string }): Promise<unknown[]> {
  const db = server.ctx.db.kysely;
  const { rows } = await sql<{
    value: unknown;
  }>`SELECT ${sql.ref(column.name)} AS value FROM ${sql.table(table)} WHERE ${sql.raw(SUBJECT[table]!)}`.execute(db);
  if (rows.length !== 1) throw new Error(`the test's row of ${table} (${SUBJECT[table]}) is not one row: ${rows.length}`);
  const current = rows[0]!.value;
  const target = REFERENCES[column.name];
  if (target) {
    const ids = await sql<{ id: number }>`SELECT id FROM ${sql.table(target)} ORDER BY id`.execute(db);
    // Another row's id; null too, for a column that may be empty (the database refuses it on the others).
    return [...ids.rows.map((r) => Number(r.id)).filter((id) => id !== Number(current)), ...(current === null ? [] : [null])];
  }
  if (column.name.endsWith('_id')) throw new Error(`${table}.${column.name}: say which table it refers to in REFERENCES`);
  const type = column.type.toLowerCase();
  if (/char|text|json/.test(type)) return [`changed ${String(current)}`];
  if (/int/.test(type)) return [current === null ? 1 : Number(current) + 1];
  if (/double|real|float|numeric/.test(type)) return [current === null ? 0.5 : Number(current) + 0.5];
  throw new Error(`${table}.${column.name}: no new value for type ${column.type} (add one to newValues)`);
}

const versionOf = (read: CachedReadName, trx: Transaction<Database>) => {
  const versions = createCacheVersionsRepository(trx);
  return read === 'card' ? versions.card(ITEM) : versions.tree(PROJECT);
};

/** The read's answer for an admin, as the services build it, on `trx` (null: not found). */
async function answerOf(read: CachedReadName, trx: Transaction<Database>): Promise<string | null> {
  const projectsRepo = createProjectsRepository(trx);
  const answer =
    read === 'card'
      ? createItemsService({ repo: createItemsRepository(trx), projects: projectsRepo, urls: server.ctx.config }).getItemCard(admin, ITEM)
      : createProjectsService(projectsRepo).getTree(admin, PROJECT);
  return JSON.stringify(await answer.catch(() => null));
}

class Rollback extends Error {}

/**
 * What `statement` does to the read, in a transaction rolled back after (every probe starts from the same data),
 * deferred triggers fired before the version is read again: whether it moved the version, and whether it changed
 * the answer. Null when the database refuses it (a unique or foreign key).
 */
async function change(read: CachedReadName, statement: RawBuilder<unknown>): Promise<{ moved: boolean; shown: boolean } | null> {
  let result: { moved: boolean; shown: boolean } | null = null;
  try {
    await server.ctx.db.kysely.transaction().execute(async (trx) => {
      const [version, answer] = [await versionOf(read, trx), await answerOf(read, trx)];
      try {
        await statement.execute(trx);
      } catch {
        throw new Rollback();
      }
      if (postgres()) await sql`SET CONSTRAINTS ALL IMMEDIATE`.execute(trx);
      result = { moved: (await versionOf(read, trx)) !== version, shown: (await answerOf(read, trx)) !== answer };
      throw new Rollback();
    });
  } catch (err) {
    if (!(err instanceof Rollback)) throw err;
  }
  return result;
}

/** Whether an UPDATE of `table.column` alone, to `value`, moves the read's version (null: refused). */
async function bumps(read: CachedReadName, table: string, column: string, value: unknown): Promise<boolean | null> {
  const update = sql`UPDATE ${sql.table(table)} SET ${sql.ref(column)} = ${value} WHERE ${sql.raw(SUBJECT[table]!)}`;
  return (await change(read, update))?.moved ?? null;
}

/** The declared columns of `read` probed ("table.column"), and those whose UPDATE left its version where it was. */
async function probe(read: CachedReadName, declaration: CachedRead = CACHED_READS[read]) {
  const probed: string[] = [];
  const uncovered: string[] = [];
  for (const [table, declared] of Object.entries(declaration) as [string, Declared][]) {
    if (!SUBJECT[table]) throw new Error(`${table}: tell the test which row of it the ${read} shows (SUBJECT)`);
    const columns = (await columnsOf(table)).filter((c) => declared === '*' || declared.includes(c.name));
    if (declared !== '*')
      expect(columns.map((c) => c.name).sort(), `${table}: declared columns the table has`).toEqual([...declared].sort());
    // A row's id is never rewritten; its insert and delete bump as a whole row.
    for (const column of columns.filter((c) => c.name !== 'id')) {
      let result: boolean | null = null;
      const values = await newValues(table, column);
      for (const value of values) {
        result = await bumps(read, table, column.name, value);
        if (result !== null) break;
      }
      if (result === null) {
        const tried = values.length === 0 ? 'there is no other row to refer to' : `the database refused all ${values.length} values tried`;
        throw new Error(`${table}.${column.name}: ${tried}; give the test's workspace a row it can take (beforeAll)`);
      }
      probed.push(`${table}.${column.name}`);
      if (!result) uncovered.push(`${table}.${column.name}`);
    }
  }
  return { probed, uncovered };
}

/**
 * A row of each declared table inserted (a copy of the read's row) and deleted, alone: the probes the database
 * accepted ("table insert"), those that changed the answer, and those of these that left the version where it was.
 */
async function probeRows(read: CachedReadName, declaration: CachedRead = CACHED_READS[read]) {
  const shown: string[] = [];
  const uncovered: string[] = [];
  for (const table of Object.keys(declaration)) {
    const columns = (await columnsOf(table)).filter((c) => c.name !== 'id').map((c) => sql.ref(c.name));
    const list = sql.join(columns);
    const where = sql.raw(SUBJECT[table]!);
    const statements = {
      insert: sql`INSERT INTO ${sql.table(table)} (${list}) SELECT ${list} FROM ${sql.table(table)} WHERE ${where}`,
      delete: sql`DELETE FROM ${sql.table(table)} WHERE ${where}`,
    };
    for (const [event, statement] of Object.entries(statements)) {
      const result = await change(read, statement);
      if (!result?.shown) continue;
      shown.push(`${table} ${event}`);
      if (!result.moved) uncovered.push(`${table} ${event}`);
    }
  }
  return { shown, uncovered };
}

/** Runs `body` with a trigger switched off (PostgreSQL: its name there; SQLite: its name there), then puts it back. */
async function withoutTrigger(table: string, names: { postgres: string; sqlite: string }, body: () => Promise<void>) {
  const db = server.ctx.db.kysely;
  if (postgres()) {
    await sql`ALTER TABLE ${sql.table(table)} DISABLE TRIGGER ${sql.ref(names.postgres)}`.execute(db);
    try {
      await body();
    } finally {
      await sql`ALTER TABLE ${sql.table(table)} ENABLE TRIGGER ${sql.ref(names.postgres)}`.execute(db);
    }
    return;
  }
  const { rows } = await sql<{ sql: string }>`SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ${names.sqlite}`.execute(db);
  await sql`DROP TRIGGER ${sql.ref(names.sqlite)}`.execute(db);
  try {
    await body();
  } finally {
    await sql.raw(rows[0]!.sql).execute(db);
  }
}

describe('cached columns: an UPDATE of any declared column alone moves the version of the read', () => {
  it.each(Object.keys(CACHED_READS) as CachedReadName[])('%s', async (read) => {
    const { probed, uncovered } = await probe(read);
    expect(uncovered, `columns the ${read} shows that no trigger watches: add one in a migration`).toEqual([]);
    expect(probed).toEqual(expect.arrayContaining(['items.text', 'items.plan_x', 'projects.name', 'project_members.role']));
  });

  it('names a column that a change left uncovered: a tree column added without its trigger', async () => {
    await sql`ALTER TABLE items ADD COLUMN cache_probe text`.execute(server.ctx.db.kysely);
    try {
      expect((await probe('tree', { items: ['text', 'cache_probe' as never] })).uncovered).toEqual(['items.cache_probe']);
    } finally {
      await sql`ALTER TABLE items DROP COLUMN cache_probe`.execute(server.ctx.db.kysely);
    }
  });

  it('names the columns of a trigger gone missing', async () => {
    await withoutTrigger('items', { postgres: 'cache_items_place_bump', sqlite: 'cache_items_place_update' }, async () => {
      expect((await probe('tree', { items: ['text', 'plan_id', 'plan_x', 'plan_y'] })).uncovered).toEqual([
        'items.plan_id',
        'items.plan_x',
        'items.plan_y',
      ]);
    });
    expect((await probe('tree', { items: ['plan_x'] })).uncovered).toEqual([]);
  });
});

describe('cached columns: a row inserted or deleted alone, when the answer shows it, moves the version of the read', () => {
  it.each(Object.keys(CACHED_READS) as CachedReadName[])('%s', async (read) => {
    const { shown, uncovered } = await probeRows(read);
    expect(uncovered, `rows the ${read} shows whose insert or delete no trigger watches: add one in a migration`).toEqual([]);
    const expected =
      read === 'card' ? ['comments insert', 'comments delete', 'item_participants delete'] : ['items insert', 'checklists insert'];
    expect(shown).toEqual(expect.arrayContaining(expected));
  });

  it('names the table whose trigger went missing', async () => {
    await withoutTrigger('comments', { postgres: 'cache_comments_bump', sqlite: 'cache_comments_insert' }, async () => {
      expect((await probeRows('card', { comments: ['id'] })).uncovered).toContain('comments insert');
    });
    expect((await probeRows('card', { comments: ['id'] })).uncovered).toEqual([]);
  });
});
