import { type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely, PostgresAdapter } from 'kysely';

// Frozen: never edit after it has landed; add a new numbered migration instead.

type Table = CreateTableBuilder<string, never>;

function withId(db: Kysely<any>, table: Table): Table {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    return table.addColumn('id', 'bigserial', (c) => c.primaryKey());
  }
  return table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

const notNull = (c: ColumnDefinitionBuilder) => c.notNull();

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('users'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', notNull)
    .addColumn('role', 'text', notNull)
    .addColumn('password_hash', 'text')
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();

  await withId(db, db.schema.createTable('projects'))
    .addColumn('name', 'text', notNull)
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('deadline', 'text')
    .addColumn('verdict', 'text')
    .addColumn('archived', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();

  await db.schema
    .createTable('project_members')
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
    .addColumn('role', 'text', notNull)
    .addColumn('section_ids', 'text')
    .addColumn('checklist_ids', 'text')
    .addColumn('created_at', 'text', notNull)
    .addPrimaryKeyConstraint('project_members_pk', ['project_id', 'user_id'])
    .execute();
  await db.schema.createIndex('project_members_user').on('project_members').columns(['user_id', 'project_id']).execute();

  await withId(db, db.schema.createTable('sections'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id'))
    .addColumn('name', 'text', notNull)
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('sections_project').on('sections').columns(['project_id', 'position']).execute();

  await withId(db, db.schema.createTable('checklists'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id'))
    .addColumn('section_id', 'bigint', (c) => c.notNull().references('sections.id'))
    .addColumn('name', 'text', notNull)
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('checklists_project').on('checklists').columns(['project_id', 'section_id']).execute();

  await withId(db, db.schema.createTable('items'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id'))
    .addColumn('section_id', 'bigint', (c) => c.notNull().references('sections.id'))
    .addColumn('checklist_id', 'bigint', (c) => c.notNull().references('checklists.id'))
    .addColumn('text', 'text', notNull)
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('status', 'text', notNull)
    .addColumn('priority', 'text', notNull)
    .addColumn('deadline', 'text')
    .addColumn('requires_answer', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('verdict', 'text')
    .addColumn('rework_reason', 'text')
    .addColumn('rework_deadline', 'text')
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('items_project').on('items').columns(['project_id', 'checklist_id', 'status']).execute();
  await db.schema.createIndex('items_checklist').on('items').columns(['checklist_id', 'position']).execute();

  await db.schema
    .createTable('item_participants')
    .addColumn('item_id', 'bigint', (c) => c.notNull().references('items.id'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
    .addPrimaryKeyConstraint('item_participants_pk', ['item_id', 'user_id'])
    .execute();

  await withId(db, db.schema.createTable('item_history'))
    .addColumn('item_id', 'bigint', (c) => c.notNull().references('items.id'))
    .addColumn('kind', 'text', notNull)
    .addColumn('from_status', 'text')
    .addColumn('to_status', 'text')
    .addColumn('user_id', 'bigint', (c) => c.references('users.id'))
    .addColumn('note', 'text')
    .addColumn('at', 'text', notNull)
    .execute();
  await db.schema.createIndex('item_history_item').on('item_history').columns(['item_id', 'id']).execute();

  await withId(db, db.schema.createTable('comments'))
    .addColumn('item_id', 'bigint', (c) => c.notNull().references('items.id'))
    .addColumn('author_id', 'bigint', (c) => c.notNull().references('users.id'))
    .addColumn('text', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('comments_item').on('comments').columns(['item_id', 'id']).execute();

  await withId(db, db.schema.createTable('answers'))
    .addColumn('item_id', 'bigint', (c) => c.notNull().references('items.id'))
    .addColumn('author_id', 'bigint', (c) => c.notNull().references('users.id'))
    .addColumn('text', 'text', notNull)
    .addColumn('status', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .addColumn('updated_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('answers_item').on('answers').columns(['item_id', 'id']).execute();

  await withId(db, db.schema.createTable('answer_reviews'))
    .addColumn('answer_id', 'bigint', (c) => c.notNull().references('answers.id'))
    .addColumn('from_status', 'text', notNull)
    .addColumn('to_status', 'text', notNull)
    .addColumn('reason', 'text', notNull)
    .addColumn('user_id', 'bigint', (c) => c.references('users.id'))
    .addColumn('at', 'text', notNull)
    .execute();
  await db.schema.createIndex('answer_reviews_answer').on('answer_reviews').columns(['answer_id', 'id']).execute();

  await withId(db, db.schema.createTable('document_links'))
    .addColumn('item_id', 'bigint', (c) => c.notNull().references('items.id'))
    .addColumn('answer_id', 'bigint', (c) => c.references('answers.id'))
    .addColumn('kind', 'text', notNull)
    .addColumn('title', 'text', notNull)
    .addColumn('url', 'text', notNull)
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('document_links_item').on('document_links').columns(['item_id', 'answer_id', 'position']).execute();

  await withId(db, db.schema.createTable('attachments'))
    .addColumn('item_id', 'bigint', (c) => c.notNull().references('items.id'))
    .addColumn('answer_id', 'bigint', (c) => c.references('answers.id'))
    .addColumn('original_name', 'text', notNull)
    .addColumn('mime_type', 'text', notNull)
    .addColumn('path', 'text', (c) => c.notNull().unique())
    .addColumn('size', 'integer', notNull)
    .addColumn('width', 'integer', notNull)
    .addColumn('height', 'integer', notNull)
    .addColumn('uploaded_by', 'bigint', (c) => c.references('users.id'))
    .addColumn('created_at', 'text', notNull)
    .execute();
  await db.schema.createIndex('attachments_item').on('attachments').columns(['item_id', 'answer_id', 'id']).execute();

  await withId(db, db.schema.createTable('api_tokens'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
    .addColumn('name', 'text', notNull)
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('scopes', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .addColumn('expires_at', 'text')
    .addColumn('revoked_at', 'text')
    .addColumn('last_used_at', 'text')
    .addColumn('last_used_ip', 'text')
    .execute();
  await db.schema.createIndex('api_tokens_user').on('api_tokens').columns(['user_id', 'id']).execute();

  await withId(db, db.schema.createTable('audit_log'))
    .addColumn('request_id', 'text', notNull)
    .addColumn('at', 'text', notNull)
    .addColumn('token_id', 'bigint')
    .addColumn('user_id', 'bigint')
    .addColumn('method', 'text', notNull)
    .addColumn('path', 'text', notNull)
    .addColumn('query', 'text', notNull)
    .addColumn('status', 'integer', notNull)
    .addColumn('error_code', 'text')
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('duration_ms', 'real', notNull)
    .addColumn('entity_type', 'text')
    .addColumn('entity_id', 'bigint')
    .addColumn('client_request_id', 'text')
    .execute();
  await db.schema.createIndex('audit_log_token').on('audit_log').columns(['token_id', 'id']).execute();
  await db.schema.createIndex('audit_log_user').on('audit_log').columns(['user_id', 'id']).execute();
  await db.schema.createIndex('audit_log_at').on('audit_log').column('at').execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('token_id', 'bigint', (c) => c.notNull())
    .addColumn('key', 'text', notNull)
    .addColumn('method', 'text', notNull)
    .addColumn('path', 'text', notNull)
    .addColumn('request_hash', 'text', notNull)
    .addColumn('status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('request_id', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .addColumn('expires_at', 'text', notNull)
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['token_id', 'key', 'method', 'path'])
    .execute();
  await db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').column('expires_at').execute();

  await db.schema
    .createTable('web_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id'))
    .addColumn('csrf_token', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .addColumn('expires_at', 'text', notNull)
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('001-initial cannot be undone');
}
