import { type Kysely, PostgresAdapter, sql } from 'kysely';

// Frozen: never edit after it has landed; add a new numbered migration instead.

/*
 * Versions that validate the response caches (docs/design.md §10, docs/performance.md "Caches"). A row per
 * scope and id, bumped by triggers in the transaction of the write, whichever code path made it (the API,
 * the web, the admin pages, import, retention, a hand-written UPDATE):
 *
 * - `item`, item id: the item row and everything its card shows (participants, comments, answers, links,
 *   images, history);
 * - `project`, project id: the project row, its sections, checklists and members (names, places, access);
 * - `tree`, project id: what the project tree shows of its items (text, status, priority, deadline,
 *   answer required, place, order), and items created or deleted;
 * - `users`, 0: a user's name (cards show names).
 *
 * A card is valid while item, project and users are unchanged; a tree while project and tree are. No row
 * yet reads as version 0. On PostgreSQL the `tree` row of a busy project would serialize its item writes
 * from their first UPDATE to their COMMIT, so that bump is a deferred trigger: it runs at COMMIT.
 */

interface Bump {
  scope: 'item' | 'project' | 'tree' | 'users';
  /** The id, as an expression over `new`/`old`. */
  id: string;
  /** Only when this holds (an expression over `new`/`old`). */
  when?: string;
}

interface TableTriggers {
  table: string;
  insert: Bump[];
  update: Bump[];
  delete: Bump[];
  /** PostgreSQL: these bumps run at COMMIT (a deferred constraint trigger). */
  deferred?: boolean;
}

const changed = (columns: string[]) => columns.map((c) => `old.${c} IS DISTINCT FROM new.${c}`).join(' OR ');
const TREE_COLUMNS = ['project_id', 'section_id', 'checklist_id', 'text', 'status', 'priority', 'deadline', 'requires_answer', 'position'];
const PROJECT_COLUMNS = ['name', 'description', 'deadline', 'verdict', 'archived', 'created_at', 'updated_at'];

/** A row with a parent id (`item_id`, `project_id`): its parent's version, both parents when it moves. */
function childOf(table: string, scope: Bump['scope'], parent: string): TableTriggers {
  return {
    table,
    insert: [{ scope, id: `new.${parent}` }],
    update: [
      { scope, id: `new.${parent}` },
      { scope, id: `old.${parent}`, when: `old.${parent} <> new.${parent}` },
    ],
    delete: [{ scope, id: `old.${parent}` }],
  };
}

const TRIGGERS: TableTriggers[] = [
  { table: 'items', insert: [], update: [{ scope: 'item', id: 'new.id' }], delete: [{ scope: 'item', id: 'old.id' }] },
  {
    table: 'items',
    deferred: true,
    insert: [{ scope: 'tree', id: 'new.project_id' }],
    update: [
      { scope: 'tree', id: 'new.project_id', when: changed(TREE_COLUMNS) },
      { scope: 'tree', id: 'old.project_id', when: 'old.project_id <> new.project_id' },
    ],
    delete: [{ scope: 'tree', id: 'old.project_id' }],
  },
  ...['item_participants', 'comments', 'answers', 'document_links', 'attachments', 'item_history'].map((t) =>
    childOf(t, 'item', 'item_id'),
  ),
  ...['sections', 'checklists', 'project_members'].map((t) => childOf(t, 'project', 'project_id')),
  {
    table: 'projects',
    insert: [],
    update: [{ scope: 'project', id: 'new.id', when: changed(PROJECT_COLUMNS) }],
    delete: [{ scope: 'project', id: 'old.id' }],
  },
  { table: 'users', insert: [], update: [{ scope: 'users', id: '0', when: 'old.name <> new.name' }], delete: [] },
];

/** The same statement on both dialects: an upsert, from a SELECT so that it can carry a condition. */
const bump = (b: Bump) =>
  `INSERT INTO cache_versions (scope, id, version) SELECT '${b.scope}', ${b.id}, 1 WHERE ${b.when ?? 'true'}
     ON CONFLICT (scope, id) DO UPDATE SET version = cache_versions.version + 1`;

const EVENTS = ['insert', 'update', 'delete'] as const;
const name = (t: TableTriggers, event: string) => `cache_${t.table}_${t.deferred ? 'tree_' : ''}${event}`;

async function run(db: Kysely<any>, statement: string) {
  await sql.raw(statement).execute(db);
}

async function upSqlite(db: Kysely<any>) {
  for (const t of TRIGGERS) {
    for (const event of EVENTS) {
      if (t[event].length === 0) continue;
      const statements = t[event].map((b) => `${bump(b)};`).join('\n');
      await run(db, `CREATE TRIGGER ${name(t, event)} AFTER ${event.toUpperCase()} ON ${t.table} BEGIN\n${statements}\nEND`);
    }
  }
}

async function upPostgres(db: Kysely<any>) {
  for (const t of TRIGGERS) {
    const body = (event: (typeof EVENTS)[number]) => t[event].map((b) => `    ${bump(b)};`).join('\n') || '    NULL;';
    const fn = `cache_bump_${t.table}${t.deferred ? '_tree' : ''}`;
    await run(
      db,
      `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
${body('insert')}
  ELSIF TG_OP = 'UPDATE' THEN
${body('update')}
  ELSE
${body('delete')}
  END IF;
  RETURN NULL;
END
$fn$`,
    );
    const events = EVENTS.filter((e) => t[e].length > 0)
      .map((e) => e.toUpperCase())
      .join(' OR ');
    const kind = t.deferred ? 'CONSTRAINT TRIGGER' : 'TRIGGER';
    const timing = t.deferred ? 'DEFERRABLE INITIALLY DEFERRED' : '';
    await run(db, `CREATE ${kind} ${name(t, 'bump')} AFTER ${events} ON ${t.table} ${timing} FOR EACH ROW EXECUTE FUNCTION ${fn}()`);
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('cache_versions')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('id', 'bigint', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('cache_versions_pk', ['scope', 'id'])
    .execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) await upPostgres(db);
  else await db.transaction().execute((trx) => upSqlite(trx));
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const t of TRIGGERS) {
    if (postgres) {
      await run(db, `DROP TRIGGER IF EXISTS ${name(t, 'bump')} ON ${t.table}`);
      await run(db, `DROP FUNCTION IF EXISTS cache_bump_${t.table}${t.deferred ? '_tree' : ''}()`);
    } else {
      for (const event of EVENTS) await run(db, `DROP TRIGGER IF EXISTS ${name(t, event)}`);
    }
  }
  await db.schema.dropTable('cache_versions').execute();
}
