import { createHash, randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { hashPassword } from '../../src/domain/passwords.js';
import { SCOPES } from '../../src/domain/scopes.js';
import { generateToken, hashToken } from '../../src/domain/token-format.js';
import { openBlobStore } from '../../src/storage/index.js';
import { testDialect } from '../helpers/database.js';
import { solid } from '../helpers/images.js';
import { V1 } from '../helpers/server.js';
import { tableNames } from '../helpers/snapshot.js';

/*
 * The old workspace of the upgrade tests (upgrade.test.ts): rows written with plain SQL at an earlier
 * migration level (raw inserts on purpose: the services only write the latest schema), and a dump of
 * every table to compare before and after the upgrade.
 */

const DAY = 86_400_000;

/** Every row of every table (kysely's own bookkeeping aside), as sorted JSON lines per table. */
export async function dump(db: Kysely<any>): Promise<Record<string, Record<string, unknown>[]>> {
  const out: Record<string, Record<string, unknown>[]> = {};
  for (const table of await tableNames(db, testDialect())) {
    if (table.startsWith('kysely_')) continue;
    // SQLite's text index and its queue: derived from search_docs, rebuilt by migration 010 and fed by the
    // search indexer in the background once the server runs (searches below check them).
    if (/^search_fts(_data|_idx|_docsize|_config|_queue|_rowids)?$/.test(table)) continue;
    const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db)).rows;
    out[table] = rows.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  return out;
}

/** Only the columns a row had before: a later migration may add columns, never change old values. */
export const restrict = (rows: Record<string, unknown>[], columns: string[]) =>
  rows.map((row) => Object.fromEntries(columns.map((c) => [c, row[c]])));

export const at = (day: number, hour = 9) => new Date(Date.UTC(2025, 2, day, hour)).toISOString();

/**
 * The workspace of an operator who has used Punchlist for a while, written with the tables and columns
 * of `applied` only. Ids come from the database (sequences advance as they did in production).
 */
export async function seed(db: Kysely<any>, applied: Set<string>, storageUrl: string) {
  const insert = async (table: string, values: Record<string, unknown>) =>
    (await db.insertInto(table).values(values).returning('id').executeTakeFirstOrThrow()).id as number;
  const passwordHash = await hashPassword('correct horse battery staple');
  const user = (email: string, name: string, role: string, active = 1) =>
    insert('users', { email, name, role, password_hash: passwordHash, active, created_at: at(1), updated_at: at(2) });
  const admin = await user('admin@upgrade.test', 'Ada Admin', 'admin');
  const manager = await user('manager@upgrade.test', 'Mona Manager', 'member');
  const executor = await user('executor@upgrade.test', 'Ezra Executor', 'member');
  const gone = await user('gone@upgrade.test', 'Gus Gone', 'member', 0);

  const project = await insert('projects', {
    name: 'Warehouse fit-out',
    description: 'Racking, lighting and fire safety',
    deadline: '2025-09-30',
    verdict: null,
    archived: 0,
    created_at: at(1),
    updated_at: at(3),
  });
  const archived = await insert('projects', {
    name: 'Old office',
    description: 'Closed last year',
    deadline: null,
    verdict: 'accepted',
    archived: 1,
    created_at: at(1),
    updated_at: at(1),
  });
  const section = await insert('sections', { project_id: project, name: 'Fire safety', position: 0, created_at: at(1), updated_at: at(1) });
  const otherSection = await insert('sections', {
    project_id: project,
    name: 'Lighting',
    position: 1,
    created_at: at(1),
    updated_at: at(1),
  });
  const checklist = await insert('checklists', {
    project_id: project,
    section_id: section,
    name: 'Extinguishers',
    position: 0,
    created_at: at(1),
    updated_at: at(1),
  });
  const lights = await insert('checklists', {
    project_id: project,
    section_id: otherSection,
    name: 'Emergency lights',
    position: 0,
    created_at: at(1),
    updated_at: at(1),
  });
  const oldSection = await insert('sections', {
    project_id: archived,
    name: 'Handover',
    position: 0,
    created_at: at(1),
    updated_at: at(1),
  });
  await insert('checklists', {
    project_id: archived,
    section_id: oldSection,
    name: 'Keys',
    position: 0,
    created_at: at(1),
    updated_at: at(1),
  });
  const member = (project_id: number, user_id: number, role: string, section_ids: number[] | null = null) =>
    db
      .insertInto('project_members')
      .values({
        project_id,
        user_id,
        role,
        section_ids: section_ids && JSON.stringify(section_ids),
        checklist_ids: null,
        created_at: at(1),
      })
      .execute();
  await member(project, manager, 'manager');
  await member(project, executor, 'executor', [section]);
  await member(project, gone, 'observer');
  await member(archived, manager, 'manager');

  const item = (checklist_id: number, section_id: number, text: string, status: string, extra: Record<string, unknown> = {}) =>
    insert('items', {
      project_id: project,
      section_id,
      checklist_id,
      text,
      description: `${text}: see the drawings`,
      status,
      priority: 'medium',
      deadline: null,
      requires_answer: 0,
      verdict: null,
      rework_reason: null,
      rework_deadline: null,
      position: 0,
      created_at: at(2),
      updated_at: at(4),
      ...extra,
    });
  const extinguishers = await item(checklist, section, 'Проверка огнетушителей', 'in_progress', {
    priority: 'high',
    deadline: '2025-06-01',
    requires_answer: 1,
  });
  const signs = await item(checklist, section, 'Exit signs mounted', 'done', { position: 1 });
  const lamp = await item(lights, otherSection, 'Lamp test in hall B', 'blocked', {
    rework_reason: 'Wrong fitting',
    rework_deadline: '2025-05-01',
  });
  await db
    .insertInto('item_participants')
    .values([
      { item_id: extinguishers, user_id: executor },
      { item_id: signs, user_id: executor },
    ])
    .execute();
  const history = (item_id: number, kind: string, from_status: string | null, to_status: string, user_id: number | null, day: number) =>
    insert('item_history', { item_id, kind, from_status, to_status, user_id, note: null, at: at(day) });
  await history(extinguishers, 'created', null, 'pending', null, 2);
  await history(extinguishers, 'status_changed', 'pending', 'in_progress', executor, 3);
  await history(signs, 'created', null, 'pending', null, 2);
  await history(signs, 'status_changed', 'pending', 'done', executor, 4);
  await history(lamp, 'created', null, 'blocked', null, 2);

  const comment = await insert('comments', {
    item_id: extinguishers,
    author_id: executor,
    text: 'Two units past their pressure-test date',
    created_at: at(3, 10),
  });
  const answer = await insert('answers', {
    item_id: extinguishers,
    author_id: executor,
    text: 'Replaced both, certificates attached',
    status: 'pending',
    created_at: at(4),
    updated_at: at(5),
  });
  await insert('answer_reviews', {
    answer_id: answer,
    from_status: 'pending',
    to_status: 'rejected',
    reason: 'Certificate missing',
    user_id: manager,
    at: at(4, 12),
  });
  await insert('answer_reviews', {
    answer_id: answer,
    from_status: 'rejected',
    to_status: 'pending',
    reason: 'Resubmitted',
    user_id: executor,
    at: at(5),
  });
  await insert('document_links', {
    item_id: extinguishers,
    answer_id: null,
    kind: 'spreadsheet',
    title: 'Extinguisher register',
    url: 'https://docs.example.test/register',
    position: 0,
    created_at: at(3),
  });
  await insert('document_links', {
    item_id: extinguishers,
    answer_id: answer,
    kind: 'document',
    title: 'Certificate',
    url: 'https://docs.example.test/cert.pdf',
    position: 0,
    created_at: at(5),
  });

  // Attachments: rows and the blobs they name, in the real store.
  const blobs = openBlobStore(storageUrl);
  const image = await solid(40, 30, 'webp');
  const attachment = async (item_id: number, answer_id: number | null) => {
    const path = `${answer_id === null ? `items/${item_id}` : `answers/${answer_id}`}/${randomBytes(8).toString('hex')}.webp`;
    await blobs.put(path, image, 'image/webp');
    return insert('attachments', {
      item_id,
      answer_id,
      original_name: 'photo.jpg',
      mime_type: 'image/webp',
      path,
      size: image.length,
      width: 40,
      height: 30,
      uploaded_by: executor,
      created_at: at(5),
    });
  };
  const itemImage = await attachment(extinguishers, null);
  const answerImage = await attachment(extinguishers, answer);

  const token = async (user_id: number, name: string, expires_at: string | null, revoked_at: string | null = null) => {
    const raw = generateToken();
    const id = await insert('api_tokens', {
      user_id,
      name,
      token_hash: hashToken(raw),
      scopes: JSON.stringify(SCOPES),
      created_at: at(1),
      expires_at,
      revoked_at,
      last_used_at: at(5),
      last_used_ip: '10.0.0.7',
    });
    return { id, raw };
  };
  const managerToken = await token(manager, 'CRM sync', null);
  const executorToken = await token(executor, 'Field app', new Date(Date.now() + 30 * DAY).toISOString());
  const expiredToken = await token(manager, 'Old script', at(6));
  const revokedToken = await token(admin, 'Leaked', null, at(6));

  // Durations representable in 4 bytes: a `real` column (PostgreSQL before 005) must give them back exactly.
  for (const [status, duration_ms] of [
    [200, 12.5],
    [201, 0.375],
    [404, 3.25],
  ] as const) {
    await insert('audit_log', {
      request_id: randomBytes(8).toString('hex'),
      at: at(5),
      token_id: managerToken.id,
      user_id: manager,
      method: status === 201 ? 'POST' : 'GET',
      path: `${V1}/items/get.php`,
      query: 'id=1',
      status,
      error_code: status === 404 ? 'not_found' : null,
      ip: '10.0.0.7',
      user_agent: 'crm/2.1',
      duration_ms,
      entity_type: 'item',
      entity_id: extinguishers,
      client_request_id: null,
    });
  }
  await db
    .insertInto('idempotency_keys')
    .values({
      token_id: managerToken.id,
      key: 'comment-42',
      method: 'POST',
      path: `${V1}/comments/create.php`,
      request_hash: 'a'.repeat(64),
      status: 201,
      response_body: JSON.stringify({ ok: true }),
      request_id: 'req-42',
      created_at: new Date().toISOString(),
      expires_at: new Date(Date.now() + DAY).toISOString(),
    })
    .execute();
  const cookie = randomBytes(32).toString('base64url');
  await db
    .insertInto('web_sessions')
    .values({
      id: createHash('sha256').update(cookie).digest('hex'),
      user_id: manager,
      csrf_token: randomBytes(32).toString('base64url'),
      created_at: new Date().toISOString(),
      expires_at: new Date(Date.now() + 7 * DAY).toISOString(),
    })
    .execute();
  // The tables of later migrations, when this level has them.
  if (applied.has('003-web')) await insert('web_sign_in_failures', { key: 'account:manager@upgrade.test', at: new Date().toISOString() });
  if (applied.has('004-rate-limits'))
    await db
      .insertInto('rate_limit_counters')
      .values({ key: `token:${managerToken.id}`, window_start: 1_741_000_000, count: 17 })
      .execute();

  return {
    project,
    archived,
    extinguishers,
    lamp,
    comment,
    answer,
    itemImage,
    answerImage,
    image,
    managerToken,
    executorToken,
    expiredToken,
    revokedToken,
    cookie,
    manager,
  };
}
