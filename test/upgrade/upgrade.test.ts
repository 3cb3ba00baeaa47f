import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MigrationProvider, Migrator, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import { sessionCookieName } from '../../src/features/sessions/session-cookie.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { expectError, expectOk } from '../helpers/envelope.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { at, dump, restrict, seed } from './old-workspace.js';

/**
 * Upgrades: for every earlier migration level (derived from the migration index, so a new migration adds
 * a level by itself), a database migrated only that far gets a realistic workspace written with plain
 * SQL valid at that level; then the real server starts on it (which migrates to the latest, as
 * `bin/punchlist serve` does), every row written before is still there unchanged, and the API works on
 * the old data: its tokens and web session, its items with their history, comments, answers, links and
 * images, a status write, search over text written before the search index existed.
 */

const NAMES = Object.keys(migrations);
const EARLIER_LEVELS = NAMES.slice(0, -1);

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

describe.each(EARLIER_LEVELS)(`upgrade from %s to ${NAMES.at(-1)}`, (level) => {
  it('keeps every row and serves the old data', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'punchlist-upgrade-'));
    const database: TestDatabase = await createTestDatabase(dir);
    cleanup.push(async () => {
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    });
    const storageUrl = `file:${join(dir, 'storage')}`;

    const old = openDatabase(database.url);
    const provider: MigrationProvider = { getMigrations: async () => migrations };
    const migrated = await new Migrator({ db: old.kysely, provider }).migrateTo(level);
    expect(migrated.error).toBeUndefined();
    const applied = new Set(NAMES.slice(0, NAMES.indexOf(level) + 1));
    expect(migrated.results?.map((r) => r.migrationName)).toEqual([...applied]);
    const data = await seed(old.kysely, applied, storageUrl);
    const before = await dump(old.kysely);
    await old.close();

    // The real server on the old database: it migrates to the latest before it serves.
    const server: TestServer = await startTestServer({ workspace: false, env: { DATABASE_URL: database.url, STORAGE_URL: storageUrl } });
    cleanup.push(() => server.close());
    const done = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(server.ctx.db.kysely);
    expect(done.rows.map((r) => r.name)).toEqual(NAMES);

    const after = await dump(server.ctx.db.kysely);
    for (const [table, rows] of Object.entries(before)) {
      expect(after[table], table).toBeDefined();
      expect(restrict(after[table]!, Object.keys(rows[0] ?? {})), table).toEqual(rows);
    }
    expect(before.items).toHaveLength(3);

    // Tokens as they were: the live one works, the expired and revoked ones are refused.
    const me = expectOk(await server.call(`${V1}/auth/me.php`, { token: data.managerToken.raw }));
    expect(me.user).toMatchObject({ id: data.manager, name: 'Mona Manager' });
    expect(me.token).toMatchObject({ id: data.managerToken.id, label: 'CRM sync', expires_at: null });
    expect((await server.call(`${V1}/auth/me.php`, { token: data.expiredToken.raw })).status).toBe(401);
    expect((await server.call(`${V1}/auth/me.php`, { token: data.revokedToken.raw })).status).toBe(401);

    const { projects } = expectOk(await server.call(`${V1}/projects/list.php?archived=all`, { token: data.managerToken.raw }));
    expect(projects.map((p: { id: number }) => p.id)).toEqual([data.project, data.archived]);
    expect(projects[0].counters).toMatchObject({ sections: 2, checklists: 2, items: 3, in_progress: 1, done: 1, blocked: 1 });

    const { item } = expectOk(await server.call(`${V1}/items/get.php?id=${data.extinguishers}`, { token: data.managerToken.raw }));
    expect(item).toMatchObject({
      text: 'Проверка огнетушителей',
      status: 'in_progress',
      priority: 'high',
      deadline: '2025-06-01',
      requires_answer: true,
      updated_at: at(4),
    });
    expect(item.participants).toEqual([{ id: expect.any(Number), name: 'Ezra Executor', role: 'executor' }]);
    expect(item.comments).toEqual([
      {
        id: data.comment,
        text: 'Two units past their pressure-test date',
        author: { id: expect.any(Number), name: 'Ezra Executor' },
        created_at: at(3, 10),
      },
    ]);
    expect(item.document_links).toEqual([
      { id: expect.any(Number), kind: 'spreadsheet', title: 'Extinguisher register', url: 'https://docs.example.test/register' },
    ]);
    expect(item.answers).toHaveLength(1);
    expect(item.answers[0]).toMatchObject({
      id: data.answer,
      status: 'pending',
      document_links: [{ kind: 'document', title: 'Certificate' }],
      attachments: [{ id: data.answerImage }],
    });
    expect(item.attachments).toMatchObject([{ id: data.itemImage, width: 40, height: 30, size: data.image.length }]);
    expect(item.status_history.map((h: { kind: string; from: string | null; to: string }) => [h.kind, h.from, h.to])).toEqual([
      ['created', null, 'pending'],
      ['status_changed', 'pending', 'in_progress'],
    ]);

    // The old blobs, by token and by the old web session.
    const pathOf = (url: string) => url.slice(server.url.length);
    const download = await server.request(pathOf(item.attachments[0].url), { token: data.executorToken.raw });
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(data.image)).toBe(true);
    const bySession = await server.request(pathOf(item.answers[0].attachments[0].url), {
      headers: { cookie: `${sessionCookieName(server.url)}=${data.cookie}` },
    });
    expect(bySession.status).toBe(200);

    // Search finds text written before the upgrade (before the index existed, at level 001), any case.
    const search = (q: string) =>
      server.call(`${V1}/projects/search.php?id=${data.project}&q=${encodeURIComponent(q)}`, { token: data.managerToken.raw });
    const hits = expectOk(await search('PRESSURE-TEST')).hits;
    expect(hits.map((h: { entity_type: string; entity_id: number }) => [h.entity_type, h.entity_id])).toEqual([['comment', data.comment]]);
    expect(expectOk(await search('ПРОВЕРКА')).hits.map((h: { entity_id: number }) => h.entity_id)).toEqual([data.extinguishers]);
    expect(expectOk(await search('cert.pdf')).total).toBe(1);
    // And once everything queued is in the index (SQLite; the background indexer may have done it already).
    await server.ctx.searchIndexer.drain();
    expect(expectOk(await search('PRESSURE-TEST')).hits).toEqual(hits);
    expect(expectOk(await search('ПРОВЕРКА')).total).toBe(1);

    // Writes: a status change lands after the old history, new rows get ids after the old ones, and a
    // member limited to one section still sees nothing of the others.
    const status = expectOk(
      await server.call(`${V1}/items/status.php`, {
        method: 'PATCH',
        token: data.managerToken.raw,
        json: { id: data.extinguishers, status: 'done' },
      }),
    );
    expect(status).toMatchObject({ item: { id: data.extinguishers, status: 'done' }, changed: true });
    const history = expectOk(await server.call(`${V1}/items/get.php?id=${data.extinguishers}`, { token: data.executorToken.raw })).item
      .status_history;
    expect(history.map((h: { to: string }) => h.to)).toEqual(['pending', 'in_progress', 'done']);
    const created = expectOk(
      await server.call(`${V1}/comments/create.php`, {
        method: 'POST',
        token: data.managerToken.raw,
        json: { item_id: data.lamp, text: 'Fitting swapped' },
      }),
      201,
    );
    expect(created.comment.id).toBeGreaterThan(data.comment);
    expect(expectOk(await search('fitting swapped')).hits).toHaveLength(1);
    expectError(
      await server.call(`${V1}/items/status.php`, {
        method: 'PATCH',
        token: data.executorToken.raw,
        json: { id: data.lamp, status: 'done' },
      }),
      404,
      'not_found',
    );
  });
});
