import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase, testDialect } from '../../../test/helpers/database.js';
import { type Clock, systemClock } from '../../shared/clock.js';
import { ConfigError, loadConfig } from '../../shared/config.js';
import { type Db, openDatabase } from '../../db/database.js';
import { migrateToLatest } from '../../db/migrate.js';
import { importFixture } from '../fixtures/import.service.js';
import { createRetentionRepository } from './retention.repository.js';
import { createJobRunner } from '../../jobs/job-runner.js';
import { createJobStore } from '../../jobs/job-store.js';
import { createRetention, type RetentionOptions, retentionJob, retentionRules } from './retention.service.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-06-01T12:00:00.000Z');
const clock: Clock = { now: () => new Date(NOW) };
const iso = (ms: number) => new Date(ms).toISOString();

const OLD_AUDIT = 1203;
const RECENT_AUDIT = 5;
/** What the first pass over the seeded rows deletes, rule by rule; a second pass finds nothing. */
const FIRST_PASS = {
  audit_log: OLD_AUDIT,
  idempotency_keys: 7,
  web_sessions: 4,
  events: 2,
  oauth_codes: 1,
  oauth_refresh_tokens: 1,
  oauth_clients: 1,
  notifications: 1,
  notification_emails: 1,
};
const NOTHING_LEFT = Object.fromEntries(Object.keys(FIRST_PASS).map((rule) => [rule, 0]));

let dir: string;
let database: TestDatabase;
let db: Db;
const others: Db[] = [];

async function seed() {
  const audit = (i: number, at: number) => ({
    request_id: `r${i}`,
    at: iso(at),
    method: 'GET',
    path: '/api/x',
    query: '',
    status: 200,
    duration_ms: 1,
  });
  const rows = [
    ...Array.from({ length: OLD_AUDIT }, (_, i) => audit(i, NOW - 181 * DAY + i)),
    ...Array.from({ length: RECENT_AUDIT }, (_, i) => audit(OLD_AUDIT + i, NOW - 179 * DAY + i)),
  ];
  for (let i = 0; i < rows.length; i += 100)
    await db.kysely
      .insertInto('audit_log')
      .values(rows.slice(i, i + 100))
      .execute();
  const key = (i: number, expires: number) => ({
    token_id: 1,
    key: `k${i}`,
    method: 'POST',
    path: '/api/external/v1/comments/create.php',
    request_hash: 'h',
    status: 201,
    response_body: '{}',
    request_id: `r${i}`,
    created_at: iso(expires - DAY),
    expires_at: iso(expires),
  });
  await db.kysely
    .insertInto('idempotency_keys')
    .values([...[1, 2, 3, 4, 5, 6].map((i) => key(i, NOW - i * 60_000)), key(7, NOW), ...[8, 9, 10].map((i) => key(i, NOW + i * 60_000))])
    .execute();
  const event = (i: number, at: number) => ({
    type: 'comment.created',
    at: iso(at),
    project_id: 1,
    section_id: null,
    checklist_id: null,
    item_id: null,
    actor_id: 1,
    token_id: null,
    data: `{"n":${i}}`,
  });
  await db.kysely
    .insertInto('events')
    .values([event(1, NOW - 31 * DAY), event(2, NOW - 30 * DAY - 1000), event(3, NOW - 29 * DAY), event(4, NOW)])
    .execute();
  // Notifications: read 91 days ago (goes), read 89 days ago and unread from long ago (stay); emails alike.
  const notification = (i: number, readAt: number | null) => ({
    user_id: 1,
    kind: 'comment_created',
    key: `event:${i}`,
    event_id: i,
    project_id: null,
    item_id: null,
    token_id: null,
    text: 't',
    subject: 's',
    delivery: 'web',
    at: iso(NOW - 200 * DAY),
    read_at: readAt === null ? null : iso(readAt),
  });
  await db.kysely
    .insertInto('notifications')
    .values([notification(1, NOW - 91 * DAY), notification(2, NOW - 89 * DAY), notification(3, null)])
    .execute();
  const email = (i: number, finished: number | null) => ({
    user_id: 1,
    key: `n:${i}`,
    state: finished === null ? 'waiting' : 'sent',
    next_attempt_at: iso(NOW - 200 * DAY),
    created_at: iso(NOW - 200 * DAY),
    finished_at: finished === null ? null : iso(finished),
  });
  await db.kysely
    .insertInto('notification_emails')
    .values([email(1, NOW - 91 * DAY), email(2, NOW - 89 * DAY), email(3, null)])
    .execute();
  const session = (i: number, expires: number) => ({
    id: `s${i}`,
    user_id: 1,
    csrf_token: 'c',
    created_at: iso(expires - DAY / 2),
    expires_at: iso(expires),
  });
  await db.kysely
    .insertInto('web_sessions')
    .values([...[1, 2, 3, 4].map((i) => session(i, NOW - i * 1000)), session(5, NOW + 1000), session(6, NOW + DAY / 4)])
    .execute();
  // OAuth clients: one allowed long ago (it has a grant), two that no user allowed, of 8 and 6 days.
  const client = (id: string, created: number) => ({
    id,
    client_name: id,
    redirect_uris: '[]',
    scope: null,
    client_uri: null,
    software_id: null,
    software_version: null,
    created_at: iso(created),
  });
  await db.kysely
    .insertInto('oauth_clients')
    .values([client('plc_x', NOW - 300 * DAY), client('plc_unused_old', NOW - 8 * DAY), client('plc_unused_new', NOW - 6 * DAY)])
    .execute();
  const grant = (
    await db.kysely
      .insertInto('oauth_grants')
      .values({
        client_id: 'plc_x',
        user_id: 1,
        scopes: '[]',
        token_id: null,
        created_at: iso(NOW - 3 * DAY),
        expires_at: null,
        revoked_at: null,
        revoked_reason: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;
  // Refresh tokens: used 31 and 29 days ago, and one never used (the live one) from long ago.
  const refresh = (i: number, created: number, used: number | null) => ({
    token_hash: `r${i}`,
    grant_id: grant,
    created_at: iso(created),
    expires_at: null,
    used_at: used === null ? null : iso(used),
  });
  await db.kysely
    .insertInto('oauth_refresh_tokens')
    .values([refresh(1, NOW - 32 * DAY, NOW - 31 * DAY), refresh(2, NOW - 31 * DAY, NOW - 29 * DAY), refresh(3, NOW - 60 * DAY, null)])
    .execute();
  // OAuth codes live 60 s and are kept a day after that (a late second use still ends the grant).
  const code = (i: number, expires: number) => ({
    code_hash: `c${i}`,
    grant_id: grant,
    redirect_uri: 'https://x.test/cb',
    code_challenge: 'c',
    resource: null,
    created_at: iso(expires - 60_000),
    expires_at: iso(expires),
    used_at: null,
  });
  await db.kysely
    .insertInto('oauth_codes')
    .values([code(1, NOW - 2 * DAY), code(2, NOW - DAY / 2), code(3, NOW + 60_000)])
    .execute();
}

const count = async (table: 'audit_log' | 'idempotency_keys' | 'web_sessions', on: Db = db) =>
  Number(
    (
      await on.kysely
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

function retentionOn(on: Db, options: RetentionOptions = {}, auditRetentionDays = 180) {
  return createRetention(
    { repo: createRetentionRepository(on), clock, rules: retentionRules({ auditRetentionDays, eventRetentionDays: 30 }) },
    { pauseMs: 1, ...options },
  );
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'punchlist-retention-'));
  database = await createTestDatabase(dir, testDialect(), { migrated: true });
  db = openDatabase(database.url);
  await migrateToLatest(db.kysely);
  await importFixture(db.kysely, db.dialect, { users: [{ id: 1, email: 'ann@x.test', name: 'Ann' }] }, systemClock);
  await seed();
});

afterEach(async () => {
  await Promise.all([db, ...others.splice(0)].map((d) => d.close()));
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('retention', () => {
  it('deletes old audit records, expired idempotency keys and sessions in batches of at most batchSize rows, and nothing else', async () => {
    const batches: { rule: string; deleted: number; ms: number }[] = [];
    const retention = retentionOn(db, { batchSize: 500, onBatch: (rule, deleted, ms) => batches.push({ rule, deleted, ms }) });
    expect(await retention.runOnce()).toEqual(FIRST_PASS);
    expect(batches.filter((b) => b.rule === 'audit_log').map((b) => b.deleted)).toEqual([500, 500, 203]);
    expect(batches.every((b) => b.deleted <= 500)).toBe(true);
    console.log(
      `retention (${db.dialect}): audit batches of ${batches
        .filter((b) => b.rule === 'audit_log')
        .map((b) => `${b.deleted} rows in ${b.ms.toFixed(1)} ms`)
        .join(', ')}`,
    );

    const audit = await db.kysely.selectFrom('audit_log').select('request_id').orderBy('id').execute();
    expect(audit.map((r) => r.request_id)).toEqual(Array.from({ length: RECENT_AUDIT }, (_, i) => `r${OLD_AUDIT + i}`));
    expect((await db.kysely.selectFrom('idempotency_keys').select('key').orderBy('key').execute()).map((r) => r.key)).toEqual([
      'k10',
      'k8',
      'k9',
    ]);
    expect((await db.kysely.selectFrom('web_sessions').select('id').orderBy('id').execute()).map((r) => r.id)).toEqual(['s5', 's6']);
    expect((await db.kysely.selectFrom('events').select('data').orderBy('id').execute()).map((r) => r.data)).toEqual([
      '{"n":3}',
      '{"n":4}',
    ]);
    expect((await db.kysely.selectFrom('oauth_codes').select('code_hash').orderBy('code_hash').execute()).map((r) => r.code_hash)).toEqual([
      'c2',
      'c3',
    ]);
    expect(
      (await db.kysely.selectFrom('oauth_refresh_tokens').select('token_hash').orderBy('token_hash').execute()).map((r) => r.token_hash),
    ).toEqual(['r2', 'r3']);
    expect((await db.kysely.selectFrom('oauth_clients').select('id').orderBy('id').execute()).map((r) => r.id)).toEqual([
      'plc_unused_new',
      'plc_x',
    ]);
    expect(await retention.runOnce()).toEqual(NOTHING_LEFT);
  });

  it('keeps audit records forever with AUDIT_RETENTION_DAYS=0; the setting is validated', async () => {
    expect(await retentionOn(db, {}, 0).runOnce()).toEqual(
      Object.fromEntries(Object.entries(FIRST_PASS).filter(([rule]) => rule !== 'audit_log')),
    );
    expect(await count('audit_log')).toBe(OLD_AUDIT + RECENT_AUDIT);
    expect(loadConfig({ DATA_DIR: dir }).auditRetentionDays).toBe(180);
    expect(loadConfig({ DATA_DIR: dir, AUDIT_RETENTION_DAYS: '30' }).auditRetentionDays).toBe(30);
    expect(() => loadConfig({ DATA_DIR: dir, AUDIT_RETENTION_DAYS: '-1' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATA_DIR: dir, AUDIT_RETENTION_DAYS: '6 months' })).toThrow(/AUDIT_RETENTION_DAYS/);
  });

  it('runs on several nodes at once: every expired row deleted exactly once, no error', async () => {
    const nodes = [db, ...Array.from({ length: 2 }, () => openDatabase(database.url))];
    others.push(...nodes.slice(1));
    const results = await Promise.all(nodes.map((node) => retentionOn(node, { batchSize: 100 }).runOnce()));
    expect(results.reduce((n, r) => n + r.audit_log!, 0)).toBe(OLD_AUDIT);
    expect(results.reduce((n, r) => n + r.idempotency_keys!, 0)).toBe(7);
    expect(results.reduce((n, r) => n + r.web_sessions!, 0)).toBe(4);
    expect(results.reduce((n, r) => n + r.oauth_refresh_tokens!, 0)).toBe(1);
    expect(results.reduce((n, r) => n + r.oauth_clients!, 0)).toBe(1);
    expect(await count('audit_log')).toBe(RECENT_AUDIT);
  });

  it('runs on its schedule until stopped', async () => {
    const runs: Record<string, number>[] = [];
    const errors: unknown[] = [];
    const jobs = createJobRunner({ store: createJobStore(db.kysely), clock, onError: (err) => errors.push(err) });
    jobs.job(retentionJob(retentionOn(db), { everyMs: 20, firstAfterMs: 0, onRun: (r) => runs.push(r) }));
    jobs.start();
    for (let waited = 0; runs.length < 2 && waited < 10_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    await jobs.stop();
    expect(errors).toEqual([]);
    expect(runs[0]).toEqual(FIRST_PASS);
    expect(runs[1]).toEqual(NOTHING_LEFT);

    await db.kysely
      .insertInto('audit_log')
      .values({ request_id: 'late', at: iso(NOW - 200 * DAY), method: 'GET', path: '/api/x', query: '', status: 200, duration_ms: 1 })
      .execute();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await count('audit_log')).toBe(RECENT_AUDIT + 1);
  });
});
