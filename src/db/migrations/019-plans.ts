import { type CreateTableBuilder, type Kysely, PostgresAdapter, sql } from 'kysely';

// Frozen: never edit after it has landed; add a new numbered migration instead.

/*
 * Plans and pins (docs/design.md §19, docs/decisions.md "Plans and pins"):
 *
 * - `plans`: a project's drawings, each with the version everyone sees (`current_version`);
 * - `plan_versions`: every version of a plan, kept (earlier ones stay viewable): the sheet's size in pixels as
 *   rendered, what it was made from, and where its tiles are in the blob store (`blob_prefix`);
 * - `plan_uploads`: an upload while it renders (its status and pages done, read by the page that polls it),
 *   which becomes plans (or a plan's new version) when it is done;
 * - `items.plan_id`, `plan_x`, `plan_y`: an item's place, on at most one plan, as fractions 0–1 of the sheet
 *   from its top left, so that every version of the plan keeps every pin.
 *
 * The item card (items/get) and the project tree show the place and the plan's name: their cached answers
 * (migration 015) must be invalidated by a change of either. Every UPDATE of an item already bumps its card;
 * the tree's version is bumped here when the place changes (deferred to COMMIT on PostgreSQL, as 015 does
 * for the tree), and a plan's new name bumps its project (cards and trees of every item of it).
 */

type Table = CreateTableBuilder<string, never>;

function withId(db: Kysely<any>, table: Table): Table {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return table.addColumn('id', 'bigserial', (c) => c.primaryKey());
  return table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

const PLACE = ['plan_id', 'plan_x', 'plan_y'];
const placeChanged = PLACE.map((c) => `old.${c} IS DISTINCT FROM new.${c}`).join(' OR ');

/** The same upsert as migration 015's triggers. */
const bump = (scope: string, id: string) =>
  `INSERT INTO cache_versions (scope, id, version) SELECT '${scope}', ${id}, 1
     ON CONFLICT (scope, id) DO UPDATE SET version = cache_versions.version + 1`;

async function run(db: Kysely<any>, statement: string) {
  await sql.raw(statement).execute(db);
}

async function triggersSqlite(db: Kysely<any>) {
  await run(
    db,
    `CREATE TRIGGER cache_items_place_update AFTER UPDATE OF ${PLACE.join(', ')} ON items WHEN ${placeChanged} BEGIN
       ${bump('tree', 'new.project_id')};
     END`,
  );
  await run(
    db,
    `CREATE TRIGGER cache_plans_update AFTER UPDATE OF name, project_id ON plans WHEN old.name IS DISTINCT FROM new.name OR old.project_id IS DISTINCT FROM new.project_id BEGIN
       ${bump('project', 'new.project_id')};
       ${bump('project', 'old.project_id')};
     END`,
  );
}

async function triggersPostgres(db: Kysely<any>) {
  await run(
    db,
    `CREATE FUNCTION cache_bump_items_place() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF ${placeChanged} THEN
    ${bump('tree', 'new.project_id')};
  END IF;
  RETURN NULL;
END
$fn$`,
  );
  await run(
    db,
    `CREATE CONSTRAINT TRIGGER cache_items_place_bump AFTER UPDATE ON items DEFERRABLE INITIALLY DEFERRED
       FOR EACH ROW EXECUTE FUNCTION cache_bump_items_place()`,
  );
  await run(
    db,
    `CREATE FUNCTION cache_bump_plans() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF old.name IS DISTINCT FROM new.name OR old.project_id IS DISTINCT FROM new.project_id THEN
    ${bump('project', 'new.project_id')};
    ${bump('project', 'old.project_id')};
  END IF;
  RETURN NULL;
END
$fn$`,
  );
  await run(db, `CREATE TRIGGER cache_plans_bump AFTER UPDATE ON plans FOR EACH ROW EXECUTE FUNCTION cache_bump_plans()`);
}

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('plans'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('current_version', 'integer', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_by', 'bigint', (c) => c.references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('plans_project').on('plans').columns(['project_id', 'position']).execute();

  await withId(db, db.schema.createTable('plan_versions'))
    .addColumn('plan_id', 'bigint', (c) => c.notNull().references('plans.id'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('source_kind', 'text', (c) => c.notNull())
    .addColumn('source_name', 'text', (c) => c.notNull())
    .addColumn('source_page', 'integer')
    .addColumn('tile_size', 'integer', (c) => c.notNull())
    .addColumn('tile_overlap', 'integer', (c) => c.notNull())
    .addColumn('levels', 'integer', (c) => c.notNull())
    .addColumn('blob_prefix', 'text', (c) => c.notNull())
    .addColumn('created_by', 'bigint', (c) => c.references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('plan_versions_plan').on('plan_versions').columns(['plan_id', 'version']).unique().execute();

  await withId(db, db.schema.createTable('plan_uploads'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id'))
    .addColumn('plan_id', 'bigint', (c) => c.references('plans.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('source_kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('pages_total', 'integer', (c) => c.notNull())
    .addColumn('pages_done', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('plan_ids', 'text')
    .addColumn('created_by', 'bigint', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('plan_uploads_project').on('plan_uploads').columns(['project_id', 'id']).execute();

  // No REFERENCES: SQLite cannot drop a column used by a foreign key (down()); the item write path checks
  // that the plan is one of the item's project.
  await db.schema.alterTable('items').addColumn('plan_id', 'bigint').execute();
  await db.schema.alterTable('items').addColumn('plan_x', 'double precision').execute();
  await db.schema.alterTable('items').addColumn('plan_y', 'double precision').execute();
  await db.schema
    .createIndex('items_plan')
    .on('items')
    .column('plan_id')
    .where(sql<boolean>`plan_id is not null`)
    .execute();

  if (db.getExecutor().adapter instanceof PostgresAdapter) await triggersPostgres(db);
  else await triggersSqlite(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await run(db, 'DROP TRIGGER IF EXISTS cache_plans_bump ON plans');
    await run(db, 'DROP FUNCTION IF EXISTS cache_bump_plans()');
    await run(db, 'DROP TRIGGER IF EXISTS cache_items_place_bump ON items');
    await run(db, 'DROP FUNCTION IF EXISTS cache_bump_items_place()');
  } else {
    await run(db, 'DROP TRIGGER IF EXISTS cache_plans_update');
    await run(db, 'DROP TRIGGER IF EXISTS cache_items_place_update');
  }
  await db.schema.dropIndex('items_plan').execute();
  await db.schema.alterTable('items').dropColumn('plan_y').execute();
  await db.schema.alterTable('items').dropColumn('plan_x').execute();
  await db.schema.alterTable('items').dropColumn('plan_id').execute();
  await db.schema.dropTable('plan_uploads').execute();
  await db.schema.dropTable('plan_versions').execute();
  await db.schema.dropTable('plans').execute();
}
