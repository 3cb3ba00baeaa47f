import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { inProcessRunner, type Run } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { expectOk } from '../helpers/envelope.js';
import { solid, uploadForm } from '../helpers/images.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { PASSWORD, USERS } from '../helpers/workspace.js';
import { EMPTY_HERE, PERSISTENT, rowsOf, tableNames, TRANSIENT } from './roundtrip-tables.js';

/**
 * Moving a deployment from SQLite to PostgreSQL with `punchlist export` + `import`, as an operator would
 * (docs/deployment.md), the commands run in the test process (test/helpers/cli.ts; the binary's own contract is
 * tested in test/cli/): a SQLite server with the standard workspace and writes of every kind
 * through the API and the review service, exported by the CLI, imported by the CLI into a fresh
 * PostgreSQL database, exported again. The two exports must be equal, every persistent table must hold
 * the same rows on both sides, and the API must answer the same on both.
 */

let dir: string;
let source: TestServer;
let target: TestServer | undefined;
let targetDb: TestDatabase;
let firstExport: string;
let secondExport: string;

const cli = inProcessRunner(() => ({
  cwd: dir,
  env: { HOME: dir, STORAGE_URL: `file:${join(source.dir, 'storage')}`, DATA_DIR: dir, LOG_LEVEL: 'warn' },
}));

function punchlist(args: string[], databaseUrl: string): Promise<Run> {
  return cli(args, { DATABASE_URL: databaseUrl });
}

async function ok(args: string[], databaseUrl: string): Promise<Run> {
  const result = await punchlist(args, databaseUrl);
  expect(result.code, `punchlist ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result;
}

const sourceUrl = () => `sqlite:${join(dir, 'source.db')}`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'punchlist-roundtrip-'));
  source = await startTestServer({ env: { DATABASE_URL: sourceUrl() } });
  // PostgreSQL whatever PUNCHLIST_TEST_DB says: this test is about moving from one dialect to the other.
  targetDb = await createTestDatabase(dir, 'postgres');
});

afterAll(async () => {
  await target?.close();
  await source?.close();
  await targetDb?.drop();
  await rm(dir, { recursive: true, force: true });
});

const call = (server: TestServer, path: string, init: Parameters<TestServer['call']>[1] = {}) => server.call(path, init);

describe('export + import from SQLite to PostgreSQL', () => {
  const created = { answer: 0, itemImage: 0, answerImage: 0 };

  it('takes writes of every kind on the SQLite deployment', async () => {
    const { tokens } = source;
    const status = (token: string, id: number, value: string) =>
      call(source, `${V1}/items/status.php`, { method: 'PATCH', token, json: { id, status: value } });
    expectOk(await status(tokens.executor, 1001, 'done'));
    // A token limited to a project (docs/design.md §18) must come back limited, not widened.
    await source.ctx.tokens.createToken({ userId: 2, name: 'one project', scopes: ['auth:me'], expiresAt: null, projectIds: [1] });
    // Companies (docs/design.md §20): a person's company and an item's.
    const admin = { id: 1, role: 'admin' as const };
    const company = await source.ctx.companies.createCompany(admin, { name: 'Sparks Ltd', trade: 'Electrical' });
    await source.ctx.companies.setUserCompany(admin, 3, company.id);
    await source.ctx.itemWrites.setCompany(admin, 1001, company.id);
    // The project's vocabulary (docs/design.md §21): a category and a value of a field, and a retired field's.
    const category = await source.ctx.vocabulary.addCategory(admin, 1, 'Electrical');
    const severity = await source.ctx.vocabulary.addField(admin, 1, { name: 'Severity', kind: 'choice', options: ['low', 'high'] });
    const cost = await source.ctx.vocabulary.addField(admin, 1, { name: 'Cost', kind: 'number' });
    // The project's escalation ladder travels with it (docs/design.md §21).
    await source.ctx.vocabulary.setEscalation(admin, 1, { everyDays: 3, managersAfterDays: 9 });
    await source.ctx.itemEdits.updateItem(admin, 1001, {
      vocabulary: {
        categoryId: category,
        values: new Map([
          [severity, 'high'],
          [cost, '120.5'],
        ]),
      },
    });
    await source.ctx.vocabulary.retireField(admin, cost, true);
    expectOk(await status(tokens.manager, 2001, 'blocked'));
    expectOk(await status(tokens.manager, 2001, 'in_progress'));
    expectOk(
      await call(source, `${V1}/items/planning.php`, {
        method: 'PATCH',
        token: tokens.manager,
        json: { id: 1010, priority: 'high', deadline: '2027-03-01' },
      }),
    );
    expectOk(
      await call(source, `${V1}/comments/create.php`, {
        method: 'POST',
        token: tokens.observer,
        json: { item_id: 1000, text: 'Проверено, ёлки' },
      }),
      201,
    );
    // An idempotency key: its row is transient and must not travel.
    expectOk(
      await call(source, `${V1}/comments/create.php`, {
        method: 'POST',
        token: tokens.manager,
        json: { item_id: 2010, text: 'Keyed comment' },
        headers: { 'idempotency-key': 'roundtrip-1', 'x-request-id': 'client-42', 'user-agent': 'roundtrip/1' },
      }),
      201,
    );
    const answer = expectOk(
      await call(source, `${V1}/answers/create.php`, {
        method: 'POST',
        token: tokens.executor,
        json: {
          item_id: 1000,
          text: 'Act signed',
          document_links: [{ kind: 'spreadsheet', title: 'Act', url: 'https://example.test/act.xlsx' }],
        },
      }),
      201,
    );
    created.answer = answer.answer.id;
    expectOk(
      await call(source, `${V1}/items/links.php`, {
        method: 'PUT',
        token: tokens.manager,
        json: {
          id: 1000,
          document_links: [
            { title: 'Plan v2', url: 'https://example.test/plan-v2' },
            { kind: 'folder', title: 'Photos', url: 'https://example.test/photos' },
          ],
        },
      }),
    );
    const itemImages = expectOk(
      await call(source, `${V1}/items/attachments.php`, {
        method: 'POST',
        token: tokens.manager,
        body: uploadForm({ item_id: '1001' }, [{ name: 'wall.png', bytes: await solid(40, 30, 'png') }]),
      }),
      201,
    );
    created.itemImage = itemImages.attachments[0].id;
    // Answer 7000 is approved: new images reset it to pending, recorded as an answer review.
    const answerImages = expectOk(
      await call(source, `${V1}/answers/attachments.php`, {
        method: 'POST',
        token: tokens.executor,
        body: uploadForm({ answer_id: '7000' }, [{ name: 'act.jpg', bytes: await solid(32, 32, 'jpeg') }]),
      }),
      201,
    );
    expect(answerImages.status_reset).toBe(true);
    created.answerImage = answerImages.attachments[0].id;

    // The web side: reviews, verdicts, rework.
    const manager = { id: USERS.manager, role: 'member' as const };
    const { review } = source.ctx;
    await review.reviewAnswer(manager, created.answer, 'approved');
    await review.reviewAnswer(manager, 7001, 'rejected');
    await review.reviewAnswer(manager, 7000, 'approved');
    await review.returnToRework(manager, 1010, { reason: 'Exit sign missing', deadline: '2099-01-31' });
    await review.setItemVerdict(manager, 2000, 'accepted');
    await review.setProjectVerdict(manager, 1, 'rejected');

    // Tokens: one revoked, one with an expiry, used from an address (last_used_*), a refused call audited.
    const spare = await source.ctx.tokens.createToken({
      userId: USERS.executor,
      name: 'spare',
      scopes: ['auth:me'],
      expiresAt: new Date('2099-06-01T00:00:00Z'),
    });
    expectOk(await call(source, `${V1}/auth/me.php`, { token: spare.token }));
    await source.ctx.tokens.revokeToken(spare.id);
    expect((await call(source, `${V1}/auth/me.php`, { token: spare.token })).status).toBe(401);
    expect((await call(source, `${V1}/items/get.php?id=4000`, { token: tokens.executor })).status).toBe(404);
    // A web session: transient.
    expect((await source.ctx.sessions.signIn({ email: 'manager@punchlist.test', password: PASSWORD, ip: '127.0.0.1' })).ok).toBe(true);
    await source.ctx.audit.flush();
  });

  it('exports with the CLI to a file, imports it into a fresh PostgreSQL database, and exports the same again', async () => {
    const file = join(dir, 'export.json');
    const exported = await ok(['export', file], sourceUrl());
    expect(exported.stdout).toBe('');
    expect(exported.stderr).toMatch(/^exported 8 users, 3 projects, .* to .*export\.json\n$/);
    firstExport = await readFile(file, 'utf8');
    const fixture = JSON.parse(firstExport);
    // The extensions are there (docs/decisions.md, "Fixture extensions").
    const item1000 = fixture.projects[0].sections[0].checklists[0].items[0];
    expect(item1000.id).toBe(1000);
    expect(item1000.status_history[0]).toMatchObject({ kind: 'created', from: null, to: 'pending', user_id: null });
    const answer7000 = item1000.answers.find((a: { id: number }) => a.id === 7000);
    expect(answer7000.reviews.map((r: { reason: string; to: string }) => `${r.reason}:${r.to}`)).toEqual([
      'attachments_added:pending',
      'review:approved',
    ]);
    expect(answer7000.attachments[0]).toMatchObject({
      id: created.answerImage,
      path: expect.stringMatching(/^answers\/7000\//),
      uploaded_by: USERS.executor,
    });
    expect(fixture.users[0]).toHaveProperty('password_hash');
    expect(fixture.tokens[0]).toHaveProperty('token_hash');
    expect(fixture.tokens[0]).not.toHaveProperty('raw');
    expect(fixture.audit_log.length).toBeGreaterThan(10);
    expect(firstExport).not.toContain('plk_');

    const imported = await ok(['import', file, '--json'], targetDb.url);
    expect(JSON.parse(imported.stdout)).toMatchObject({
      users: 8,
      projects: 3,
      items: 9,
      attachments: 2,
      audit_log: fixture.audit_log.length,
    });

    const again = await ok(['export'], targetDb.url);
    expect(again.stderr).toMatch(/ to stdout\n$/);
    secondExport = again.stdout;
    expect(JSON.parse(secondExport)).toEqual(fixture);
    // Byte for byte, too: docs/deployment.md suggests `cmp` to check a move.
    expect(secondExport).toBe(firstExport);
  });

  it('holds the same rows in every persistent table on both sides, and nothing transient', async () => {
    const from = openDatabase(sourceUrl());
    const to = openDatabase(targetDb.url);
    try {
      // Every table is either carried or deliberately left out: a new table must be added to one list.
      const expected = [...Object.keys(PERSISTENT), ...TRANSIENT].sort();
      expect(await tableNames(from)).toEqual(expected);
      expect(await tableNames(to)).toEqual(expected);
      for (const table of Object.keys(PERSISTENT)) {
        const rows = await rowsOf(from.kysely, table);
        expect(rows.length, `rows of ${table}`).toBeGreaterThan(0);
        expect(await rowsOf(to.kysely, table), `rows of ${table}`).toEqual(rows);
      }
      for (const table of TRANSIENT.filter((t) => !EMPTY_HERE.includes(t))) {
        expect((await rowsOf(from.kysely, table)).length, `rows of ${table} on SQLite`).toBeGreaterThan(0);
        expect(await rowsOf(to.kysely, table), `rows of ${table} on PostgreSQL`).toEqual([]);
      }
    } finally {
      await from.close();
      await to.close();
    }
  });

  it('answers the same through the API on PostgreSQL, with the same tokens, passwords and blobs', async () => {
    target = await startTestServer({
      workspace: false,
      env: { DATABASE_URL: targetDb.url, STORAGE_URL: `file:${join(source.dir, 'storage')}` },
    });
    const same = (server: TestServer, body: unknown) => JSON.parse(JSON.stringify(body).split(server.url).join('BASE_URL'));
    const get = async (server: TestServer, path: string) =>
      same(server, expectOk(await call(server, path, { token: source.tokens.manager })));
    for (const path of [
      `${V1}/items/get.php?id=1000`,
      `${V1}/items/get.php?id=1001`,
      `${V1}/items/get.php?id=1010`,
      `${V1}/items/get.php?id=2000`,
      `${V1}/projects/tree.php?id=1`,
      `${V1}/projects/list.php?archived=all`,
      `${V1}/projects/search.php?id=1&q=${encodeURIComponent('ёлки')}`,
      `${V1}/projects/search.php?id=1&q=plan-v2`,
    ]) {
      expect(await get(target, path), path).toEqual(await get(source, path));
    }
    const card = expectOk(await call(target, `${V1}/items/get.php?id=1000`, { token: source.tokens.executor })).item;
    expect(card.status_history.length).toBe(1);
    expect(card.answers.find((a: { id: number }) => a.id === 7000).attachments).toHaveLength(1);

    // The blob is found through the imported row, in the storage the operator kept.
    const download = await target.request(`/api/items/file.php?id=${created.itemImage}`, { token: source.tokens.executor });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('image/webp');
    // The revoked token stays revoked; passwords still sign in.
    expect((await call(target, `${V1}/auth/me.php`, { token: source.tokens.inactive })).body.error.code).toBe('token_revoked');
    expect((await target.ctx.sessions.signIn({ email: 'executor@punchlist.test', password: PASSWORD, ip: '127.0.0.1' })).ok).toBe(true);

    // New rows get ids above the imported ones (the sequences were advanced).
    const comment = expectOk(
      await call(target, `${V1}/comments/create.php`, {
        method: 'POST',
        token: source.tokens.manager,
        json: { item_id: 1000, text: 'After the move' },
      }),
      201,
    );
    const maxComment = Math.max(
      ...JSON.parse(firstExport).projects.flatMap((p: any) =>
        p.sections.flatMap((s: any) => s.checklists.flatMap((c: any) => c.items.flatMap((i: any) => i.comments.map((cm: any) => cm.id)))),
      ),
    );
    expect(comment.comment.id).toBeGreaterThan(maxComment);
    const history = await target.ctx.db.kysely
      .selectFrom('item_history')
      .select((eb) => eb.fn.max('id').as('max'))
      .executeTakeFirstOrThrow();
    const status = expectOk(
      await call(target, `${V1}/items/status.php`, { method: 'PATCH', token: source.tokens.manager, json: { id: 2010, status: 'done' } }),
    );
    expect(status.changed).toBe(true);
    const latest = await target.ctx.db.kysely
      .selectFrom('item_history')
      .select('id')
      .where('item_id', '=', 2010)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(latest.id).toBeGreaterThan(Number(history.max));
  });

  it('fails, leaving no file, rather than write an export that misses rows', async () => {
    // A row the tree cannot reach (an item filed under a project its checklist is not in).
    await source.ctx.db.kysely.updateTable('items').set({ project_id: 3 }).where('id', '=', 1001).execute();
    const file = join(dir, 'partial.json');
    const result = await punchlist(['export', file], sourceUrl());
    await source.ctx.db.kysely.updateTable('items').set({ project_id: 1 }).where('id', '=', 1001).execute();
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^punchlist: the database holds \d+ rows of items but \d+ were reached; the export is incomplete\n$/);
    expect((await readdir(dir)).filter((name) => name.includes('partial'))).toEqual([]);
  });

  it('refuses to import the same export twice, changing nothing', async () => {
    const again = await punchlist(['import', join(dir, 'export.json')], targetDb.url);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^punchlist: .*already exists.*nothing was imported\n$/);
  });
});
