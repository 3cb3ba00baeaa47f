import { type CreateTableBuilder, type Kysely, PostgresAdapter, sql } from 'kysely';

// Frozen: never edit after it has landed; add a new numbered migration instead.

/*
 * Companies: who holds the item (docs/design.md §20, docs/decisions.md "Companies"):
 *
 * - `companies`: the workspace's subcontractors and trades; never deleted, `retired` hides them from pickers;
 * - `users.company_id`: a person's company (at most one);
 * - `project_members.company_items_only`: 1 when the member sees only the items whose responsible company is
 *   their own (partial access, §3);
 * - `items.responsible_company_id`: the company that holds the item; `dispute_*`: an open dispute (reason, who,
 *   when), all null when none;
 * - `invitations`: a single-use link (stored as SHA-256 of its secret) that lets an invited person set a
 *   password; `used_at` once used;
 * - `company_pack_sends`: one row per company pack sent to a person, so that a send is never made twice.
 *
 * Caches (migration 015): every UPDATE of an item bumps its card; the tree shows the responsible company and whose
 * move it is (ball in court: from the status, the verdict, a dispute and answers waiting for review), so a change of
 * the company, the verdict or a dispute, and an answer added or reviewed, bump the tree here, deferred to COMMIT on
 * PostgreSQL as 015 and 019 do. A
 * company's new name is shown on cards and trees of every project (rare: every project is bumped); a person's
 * new company changes what they see when limited to it, so each of their projects is bumped.
 */

type Table = CreateTableBuilder<string, never>;

function withId(db: Kysely<any>, table: Table): Table {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return table.addColumn('id', 'bigserial', (c) => c.primaryKey());
  return table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

const HOLDER = ['responsible_company_id', 'dispute_at', 'verdict'];
const holderChanged = HOLDER.map((c) => `old.${c} IS DISTINCT FROM new.${c}`).join(' OR ');
/** An answer whose review state (or, never in practice, whose item) changed: whose move it is may have. */
const answerMoved = 'old.status IS DISTINCT FROM new.status OR old.item_id IS DISTINCT FROM new.item_id';

const upsert = `ON CONFLICT (scope, id) DO UPDATE SET version = cache_versions.version + 1`;
const bumpTree = `INSERT INTO cache_versions (scope, id, version) SELECT 'tree', new.project_id, 1 WHERE true ${upsert}`;
const bumpAnswersTree = (row: 'new' | 'old') =>
  `INSERT INTO cache_versions (scope, id, version) SELECT 'tree', project_id, 1 FROM items WHERE id = ${row}.item_id ${upsert}`;
const bumpAllProjects = `INSERT INTO cache_versions (scope, id, version) SELECT 'project', id, 1 FROM projects WHERE true ${upsert}`;
const bumpUsersProjects = `INSERT INTO cache_versions (scope, id, version)
     SELECT 'project', project_id, 1 FROM project_members WHERE user_id = new.id ${upsert}`;

async function run(db: Kysely<any>, statement: string) {
  await sql.raw(statement).execute(db);
}

async function triggersSqlite(db: Kysely<any>) {
  await run(
    db,
    `CREATE TRIGGER cache_items_holder_update AFTER UPDATE OF ${HOLDER.join(', ')} ON items WHEN ${holderChanged} BEGIN
       ${bumpTree};
     END`,
  );
  await run(db, `CREATE TRIGGER cache_answers_ball_insert AFTER INSERT ON answers BEGIN ${bumpAnswersTree('new')}; END`);
  await run(
    db,
    `CREATE TRIGGER cache_answers_ball_update AFTER UPDATE OF status, item_id ON answers WHEN ${answerMoved} BEGIN
       ${bumpAnswersTree('new')};
       ${bumpAnswersTree('old')};
     END`,
  );
  await run(
    db,
    `CREATE TRIGGER cache_companies_update AFTER UPDATE OF name ON companies WHEN old.name IS DISTINCT FROM new.name BEGIN
       ${bumpAllProjects};
     END`,
  );
  await run(db, `CREATE TRIGGER cache_companies_delete AFTER DELETE ON companies BEGIN ${bumpAllProjects}; END`);
  await run(
    db,
    `CREATE TRIGGER cache_users_company_update AFTER UPDATE OF company_id ON users WHEN old.company_id IS DISTINCT FROM new.company_id BEGIN
       ${bumpUsersProjects};
     END`,
  );
}

async function plpgsql(db: Kysely<any>, fn: string, condition: string, body: string) {
  await run(
    db,
    `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF ${condition} THEN
    ${body};
  END IF;
  RETURN NULL;
END
$fn$`,
  );
}

async function triggersPostgres(db: Kysely<any>) {
  await plpgsql(db, 'cache_bump_items_holder', holderChanged, bumpTree);
  await run(
    db,
    `CREATE CONSTRAINT TRIGGER cache_items_holder_bump AFTER UPDATE ON items DEFERRABLE INITIALLY DEFERRED
       FOR EACH ROW EXECUTE FUNCTION cache_bump_items_holder()`,
  );
  await run(
    db,
    `CREATE FUNCTION cache_bump_answers_ball() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    ${bumpAnswersTree('new')};
  ELSIF ${answerMoved} THEN
    ${bumpAnswersTree('new')};
    ${bumpAnswersTree('old')};
  END IF;
  RETURN NULL;
END
$fn$`,
  );
  await run(
    db,
    `CREATE CONSTRAINT TRIGGER cache_answers_ball_bump AFTER INSERT OR UPDATE ON answers DEFERRABLE INITIALLY DEFERRED
       FOR EACH ROW EXECUTE FUNCTION cache_bump_answers_ball()`,
  );
  await plpgsql(db, 'cache_bump_companies', "TG_OP = 'DELETE' OR old.name IS DISTINCT FROM new.name", bumpAllProjects);
  await run(
    db,
    `CREATE TRIGGER cache_companies_bump AFTER UPDATE OR DELETE ON companies FOR EACH ROW EXECUTE FUNCTION cache_bump_companies()`,
  );
  await plpgsql(db, 'cache_bump_users_company', 'old.company_id IS DISTINCT FROM new.company_id', bumpUsersProjects);
  await run(db, `CREATE TRIGGER cache_users_company_bump AFTER UPDATE ON users FOR EACH ROW EXECUTE FUNCTION cache_bump_users_company()`);
}

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('companies'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('trade', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('retired', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  // No REFERENCES on added columns: SQLite cannot drop a column used by a foreign key (down()); the services
  // check that the company exists.
  await db.schema.alterTable('users').addColumn('company_id', 'bigint').execute();
  await db.schema
    .alterTable('project_members')
    .addColumn('company_items_only', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('items').addColumn('responsible_company_id', 'bigint').execute();
  await db.schema.alterTable('items').addColumn('dispute_reason', 'text').execute();
  await db.schema.alterTable('items').addColumn('dispute_by', 'bigint').execute();
  await db.schema.alterTable('items').addColumn('dispute_at', 'text').execute();
  await db.schema
    .createIndex('items_responsible_company')
    .on('items')
    .columns(['responsible_company_id', 'project_id'])
    .where(sql<boolean>`responsible_company_id is not null`)
    .execute();

  await withId(db, db.schema.createTable('invitations'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('company_id', 'bigint', (c) => c.references('companies.id'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('company_items_only', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('invited_by', 'bigint', (c) => c.notNull().references('users.id'))
    .addColumn('user_id', 'bigint', (c) => c.references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('invitations_project').on('invitations').columns(['project_id', 'id']).execute();

  await withId(db, db.schema.createTable('company_pack_sends'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id'))
    .addColumn('company_id', 'bigint', (c) => c.notNull().references('companies.id'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
    .addColumn('send_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('company_pack_sends_once')
    .on('company_pack_sends')
    .columns(['project_id', 'company_id', 'user_id', 'send_key'])
    .unique()
    .execute();

  if (db.getExecutor().adapter instanceof PostgresAdapter) await triggersPostgres(db);
  else await triggersSqlite(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await run(db, 'DROP TRIGGER IF EXISTS cache_users_company_bump ON users');
    await run(db, 'DROP FUNCTION IF EXISTS cache_bump_users_company()');
    await run(db, 'DROP TRIGGER IF EXISTS cache_answers_ball_bump ON answers');
    await run(db, 'DROP FUNCTION IF EXISTS cache_bump_answers_ball()');
    await run(db, 'DROP TRIGGER IF EXISTS cache_companies_bump ON companies');
    await run(db, 'DROP FUNCTION IF EXISTS cache_bump_companies()');
    await run(db, 'DROP TRIGGER IF EXISTS cache_items_holder_bump ON items');
    await run(db, 'DROP FUNCTION IF EXISTS cache_bump_items_holder()');
  } else {
    await run(db, 'DROP TRIGGER IF EXISTS cache_users_company_update');
    await run(db, 'DROP TRIGGER IF EXISTS cache_answers_ball_update');
    await run(db, 'DROP TRIGGER IF EXISTS cache_answers_ball_insert');
    await run(db, 'DROP TRIGGER IF EXISTS cache_companies_update');
    await run(db, 'DROP TRIGGER IF EXISTS cache_companies_delete');
    await run(db, 'DROP TRIGGER IF EXISTS cache_items_holder_update');
  }
  await db.schema.dropTable('company_pack_sends').execute();
  await db.schema.dropTable('invitations').execute();
  await db.schema.dropIndex('items_responsible_company').execute();
  for (const column of ['dispute_at', 'dispute_by', 'dispute_reason', 'responsible_company_id']) {
    await db.schema.alterTable('items').dropColumn(column).execute();
  }
  await db.schema.alterTable('project_members').dropColumn('company_items_only').execute();
  await db.schema.alterTable('users').dropColumn('company_id').execute();
  await db.schema.dropTable('companies').execute();
}
