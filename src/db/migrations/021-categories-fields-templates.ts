import { type CreateTableBuilder, type Kysely, PostgresAdapter, sql } from 'kysely';

// Frozen: never edit after it has landed; add a new numbered migration instead.

/*
 * The project's own vocabulary (docs/design.md §21, docs/decisions.md "Categories, fields and templates"):
 *
 * - `categories`: a project's list of names (trades, defect types); `items.category_id` points at one;
 * - `custom_fields`: a project's fields (name, kind text/number/date/choice, options of a choice as a JSON list,
 *   required), retired (`retired_at`) instead of deleted, so that no value is ever lost;
 * - `item_field_values`: one row per item and field, the value TYPED in the column of its kind (`text_value`,
 *   `number_value`, `date_value` as YYYY-MM-DD, `option_value`), indexed per field, so that a filter on a field
 *   is served by an index as the status filter is (not one JSON blob that no index can serve);
 * - `templates`: a saved project shape (sections, checklists, items, categories, fields) as one JSON document:
 *   a template is read and written whole, never filtered by its content.
 *
 * Caches (migration 015): the item card and the tree show the category's name and the field values. A value's
 * insert/update/delete bumps its item and its project's tree; a new `category_id` bumps the tree (the item row's
 * UPDATE already bumps its card); a category or field renamed (or retired) bumps its project (cards and trees).
 */

type Table = CreateTableBuilder<string, never>;

function withId(db: Kysely<any>, table: Table): Table {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return table.addColumn('id', 'bigserial', (c) => c.primaryKey());
  return table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

/** The same upsert as migration 015's triggers. */
const bump = (scope: string, id: string) =>
  `INSERT INTO cache_versions (scope, id, version) SELECT '${scope}', ${id}, 1
     ON CONFLICT (scope, id) DO UPDATE SET version = cache_versions.version + 1`;

async function run(db: Kysely<any>, statement: string) {
  await sql.raw(statement).execute(db);
}

const DEFINITIONS = ['categories', 'custom_fields'];

async function triggersSqlite(db: Kysely<any>) {
  await run(
    db,
    `CREATE TRIGGER cache_items_category_update AFTER UPDATE OF category_id ON items WHEN old.category_id IS DISTINCT FROM new.category_id BEGIN
       ${bump('tree', 'new.project_id')};
     END`,
  );
  // An update bumps the row's item and project before and after (a value never moves, but nothing says so).
  for (const [event, rows] of [
    ['INSERT', ['new']],
    ['UPDATE', ['new', 'old']],
    ['DELETE', ['old']],
  ] as const) {
    await run(
      db,
      `CREATE TRIGGER cache_item_field_values_${event.toLowerCase()} AFTER ${event} ON item_field_values BEGIN
         ${rows.map((row) => `${bump('item', `${row}.item_id`)}; ${bump('tree', `${row}.project_id`)};`).join(' ')}
       END`,
    );
  }
  for (const table of DEFINITIONS) {
    await run(db, `CREATE TRIGGER cache_${table}_insert AFTER INSERT ON ${table} BEGIN ${bump('project', 'new.project_id')}; END`);
    await run(db, `CREATE TRIGGER cache_${table}_update AFTER UPDATE ON ${table} BEGIN ${bump('project', 'new.project_id')}; END`);
    await run(db, `CREATE TRIGGER cache_${table}_delete AFTER DELETE ON ${table} BEGIN ${bump('project', 'old.project_id')}; END`);
  }
}

async function triggersPostgres(db: Kysely<any>) {
  await run(
    db,
    `CREATE FUNCTION cache_bump_items_category() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF old.category_id IS DISTINCT FROM new.category_id THEN
    ${bump('tree', 'new.project_id')};
  END IF;
  RETURN NULL;
END
$fn$`,
  );
  // Deferred to COMMIT, as 015 does for the tree: a busy project's item writes do not serialize on its row.
  await run(
    db,
    `CREATE CONSTRAINT TRIGGER cache_items_category_bump AFTER UPDATE ON items DEFERRABLE INITIALLY DEFERRED
       FOR EACH ROW EXECUTE FUNCTION cache_bump_items_category()`,
  );
  await run(
    db,
    `CREATE FUNCTION cache_bump_item_field_values() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'DELETE' THEN
    ${bump('item', 'old.item_id')};
    ${bump('tree', 'old.project_id')};
  ELSE
    ${bump('item', 'new.item_id')};
    ${bump('tree', 'new.project_id')};
  END IF;
  IF TG_OP = 'UPDATE' THEN
    ${bump('item', 'old.item_id')};
    ${bump('tree', 'old.project_id')};
  END IF;
  RETURN NULL;
END
$fn$`,
  );
  await run(
    db,
    `CREATE CONSTRAINT TRIGGER cache_item_field_values_bump AFTER INSERT OR UPDATE OR DELETE ON item_field_values
       DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cache_bump_item_field_values()`,
  );
  await run(
    db,
    `CREATE FUNCTION cache_bump_definitions() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'DELETE' THEN
    ${bump('project', 'old.project_id')};
  ELSE
    ${bump('project', 'new.project_id')};
  END IF;
  RETURN NULL;
END
$fn$`,
  );
  for (const table of DEFINITIONS) {
    await run(
      db,
      `CREATE TRIGGER cache_${table}_bump AFTER INSERT OR UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION cache_bump_definitions()`,
    );
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('categories'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('categories_project_name').on('categories').columns(['project_id', 'name']).unique().execute();

  await withId(db, db.schema.createTable('custom_fields'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('options', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('required', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('retired_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('custom_fields_project_name').on('custom_fields').columns(['project_id', 'name']).unique().execute();

  await db.schema
    .createTable('item_field_values')
    .addColumn('item_id', 'bigint', (c) => c.notNull().references('items.id'))
    .addColumn('field_id', 'bigint', (c) => c.notNull().references('custom_fields.id'))
    .addColumn('project_id', 'bigint', (c) => c.notNull())
    .addColumn('text_value', 'text')
    .addColumn('number_value', 'double precision')
    .addColumn('date_value', 'text')
    .addColumn('option_value', 'text')
    .addPrimaryKeyConstraint('item_field_values_pk', ['item_id', 'field_id'])
    .execute();
  // One index per typed column, each led by the field: "severity = high", "cost > 500", "due before …".
  for (const column of ['option_value', 'number_value', 'date_value', 'text_value']) {
    await db.schema.createIndex(`item_field_values_${column}`).on('item_field_values').columns(['field_id', column, 'item_id']).execute();
  }

  // The tree and reports read a project's values at once.
  await db.schema.createIndex('item_field_values_project').on('item_field_values').columns(['project_id', 'item_id']).execute();

  // No REFERENCES, as 019 did for plan_id: SQLite cannot drop a column used by a foreign key (down()).
  await db.schema.alterTable('items').addColumn('category_id', 'bigint').execute();
  await db.schema
    .createIndex('items_category')
    .on('items')
    .columns(['category_id', 'id'])
    .where(sql<boolean>`category_id is not null`)
    .execute();

  await withId(db, db.schema.createTable('templates'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_by', 'bigint', (c) => c.references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('templates_name').on('templates').column('name').unique().execute();

  if (db.getExecutor().adapter instanceof PostgresAdapter) await triggersPostgres(db);
  else await triggersSqlite(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    for (const table of DEFINITIONS) await run(db, `DROP TRIGGER IF EXISTS cache_${table}_bump ON ${table}`);
    await run(db, 'DROP FUNCTION IF EXISTS cache_bump_definitions()');
    await run(db, 'DROP TRIGGER IF EXISTS cache_item_field_values_bump ON item_field_values');
    await run(db, 'DROP FUNCTION IF EXISTS cache_bump_item_field_values()');
    await run(db, 'DROP TRIGGER IF EXISTS cache_items_category_bump ON items');
    await run(db, 'DROP FUNCTION IF EXISTS cache_bump_items_category()');
  } else {
    for (const table of DEFINITIONS) {
      await run(db, `DROP TRIGGER IF EXISTS cache_${table}_insert`);
      await run(db, `DROP TRIGGER IF EXISTS cache_${table}_update`);
      await run(db, `DROP TRIGGER IF EXISTS cache_${table}_delete`);
    }
    for (const event of ['insert', 'update', 'delete']) await run(db, `DROP TRIGGER IF EXISTS cache_item_field_values_${event}`);
    await run(db, 'DROP TRIGGER IF EXISTS cache_items_category_update');
  }
  await db.schema.dropTable('templates').execute();
  await db.schema.dropIndex('items_category').execute();
  await db.schema.alterTable('items').dropColumn('category_id').execute();
  await db.schema.dropTable('item_field_values').execute();
  await db.schema.dropTable('custom_fields').execute();
  await db.schema.dropTable('categories').execute();
}
