import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { type AppContext, createContext } from '../../src/composition/context.js';
import { importFixture } from '../../src/features/fixtures/import.service.js';
import { solid, uploadForm } from '../helpers/images.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { USERS, type UserKey } from '../helpers/workspace.js';

/*
 * docs/design.md §10: a cached card or tree is never older than the last committed write its reader could see.
 * Random writes through every write path (v1, the web's services, the admin's, import, retention, and SQL by
 * hand) interleave with reads; after each write, two caching nodes answer exactly what a node without a
 * cache answers, for readers of every kind of access. The same database serves all three nodes (on
 * PostgreSQL, the two-node deployment).
 */

const V1 = '/api/external/v1';
const ITEMS = [1000, 1001, 2010] as const;
const READERS: UserKey[] = ['admin', 'manager', 'executor', 'partial', 'observer'];
const admin = { id: USERS.admin, role: 'admin' as const };
const manager = { id: USERS.manager, role: 'member' as const };

let server: TestServer;
let second: { ctx: AppContext; app: FastifyInstance };
let uncached: { ctx: AppContext; app: FastifyInstance };
let counter = 0;

async function node(ctx: AppContext) {
  return { ctx, app: await buildApp(ctx, { logger: false }) };
}

function v1(app: FastifyInstance, token: string, method: string, path: string, body?: unknown) {
  return app.inject({
    method: method as 'GET',
    url: `${V1}${path}`,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

/** What each reader gets of the cards and the tree, from one node: status and `data`. */
async function answers(app: FastifyInstance) {
  const out: Record<string, unknown> = {};
  for (const reader of READERS) {
    const token = server.tokens[reader];
    for (const id of ITEMS) {
      const res = await v1(app, token, 'GET', `/items/get.php?id=${id}`);
      out[`${reader} item ${id}`] = [res.statusCode, res.json().data ?? res.json().error.code];
    }
    const tree = await v1(app, token, 'GET', '/projects/tree.php?id=1');
    out[`${reader} tree`] = [tree.statusCode, tree.json().data ?? tree.json().error.code];
  }
  return out;
}

/** The answers that differ from the truth, with both sides: empty when the caches are right. */
function differences(cached: Record<string, unknown>, truth: Record<string, unknown>) {
  return Object.keys(truth)
    .filter((key) => JSON.stringify(cached[key]) !== JSON.stringify(truth[key]))
    .map((key) => ({ key, cached: cached[key], truth: truth[key] }));
}

const item = fc.constantFrom(...ITEMS);
const next = () => `change ${++counter}`;

interface Write {
  name: string;
  run(): Promise<unknown>;
}

/** Each write path the data can change by; the ones that may be refused (a rule, a conflict) just are. */
const writes: fc.Arbitrary<Write>[] = [
  item.map((id) => ({
    name: `v1 status ${id}`,
    run: () => v1(server.app, server.tokens.manager, 'PATCH', '/items/status.php', { id, status: ['done', 'in_progress'][counter++ % 2] }),
  })),
  item.map((id) => ({
    name: `v1 comment ${id}`,
    run: () => v1(second.app, server.tokens.executor, 'POST', '/comments/create.php', { item_id: id, text: next() }),
  })),
  item.map((id) => ({
    name: `v1 planning ${id}`,
    run: () => v1(server.app, server.tokens.manager, 'PATCH', '/items/planning.php', { id, priority: ['low', 'high'][counter++ % 2] }),
  })),
  item.map((id) => ({
    name: `v1 links ${id}`,
    run: () =>
      v1(second.app, server.tokens.manager, 'PUT', '/items/links.php', {
        id,
        document_links: [{ kind: 'document', title: next(), url: 'https://example.test/doc' }],
      }),
  })),
  item.map((id) => ({
    name: `v1 answer ${id}`,
    run: () => v1(server.app, server.tokens.executor, 'POST', '/answers/create.php', { item_id: id, text: next() }),
  })),
  item.map((id) => ({
    name: `v1 image ${id}`,
    run: async () =>
      server.request(`${V1}/items/attachments.php`, {
        method: 'POST',
        token: server.tokens.manager,
        body: uploadForm({ item_id: String(id) }, [{ name: 'a.png', type: 'image/png', bytes: await solid(16, 16, 'png') }]),
      }),
  })),
  item.map((id) => ({
    name: `web: item edited ${id}`,
    run: () => server.ctx.itemEdits.updateItem(manager, id, { text: next(), participantIds: counter % 2 ? [USERS.executor] : [] }),
  })),
  item.map((id) => ({
    name: `web: item moved ${id}`,
    run: () => server.ctx.itemEdits.updateItem(manager, id, { checklistId: [100, 200, 201][counter++ % 3] }),
  })),
  item.map((id) => ({
    name: `web: verdict ${id}`,
    // `rejected`: open whatever the item's status (only a done item can be accepted).
    run: () => server.ctx.review.setItemVerdict(manager, id, counter++ % 2 ? 'rejected' : null),
  })),
  fc.constant({
    name: 'web: answer reviewed',
    run: () => server.ctx.review.reviewAnswer(manager, 7001, ['approved', 'rejected'][counter++ % 2]!),
  }),
  fc.constant({ name: 'web: section renamed', run: () => server.ctx.structure.renameSection(manager, 20, next()) }),
  fc.constant({ name: 'web: new checklist', run: () => server.ctx.structure.createChecklist(manager, 10, next()) }),
  fc.constant({
    name: 'admin: partial access changed',
    run: () =>
      server.ctx.members.setMember(admin, 1, {
        userId: USERS.partial,
        role: 'executor',
        limited: true,
        sectionIds: counter++ % 2 ? [10] : [],
        checklistIds: [201],
      }),
  }),
  fc.constant({
    name: 'admin: observer removed and back',
    run: async () => {
      await server.ctx.members.removeMember(admin, 1, USERS.observer);
      if (counter++ % 2)
        await server.ctx.members.setMember(admin, 1, {
          userId: USERS.observer,
          role: 'observer',
          limited: false,
          sectionIds: [],
          checklistIds: [],
        });
    },
  }),
  fc.constant({
    name: 'admin: project archived or not',
    run: () => server.ctx.structure.updateProject(admin, 1, { name: 'Plant audit', description: '', archived: counter++ % 3 === 0 }),
  }),
  fc.constant({
    name: 'import: another project',
    run: () =>
      importFixture(
        server.ctx.db.kysely,
        server.ctx.db.dialect,
        { users: [], projects: [{ id: 100 + ++counter, name: next(), sections: [] }], tokens: [] },
        server.ctx.clock,
      ),
  }),
  fc.constant({ name: 'retention', run: () => server.ctx.retention.runOnce() }),
  fc.constant({
    name: 'SQL: a user renamed by hand',
    run: () => sql`UPDATE users SET name = ${next()} WHERE id = ${USERS.executor}`.execute(server.ctx.db.kysely),
  }),
  fc.constant({
    name: 'SQL: a comment edited by hand',
    run: () => sql`UPDATE comments SET text = ${next()} WHERE id = (SELECT MIN(id) FROM comments)`.execute(server.ctx.db.kysely),
  }),
];

beforeAll(async () => {
  server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  second = await node(await createContext(server.ctx.config, { migrate: false }));
  uncached = await node(await createContext({ ...server.ctx.config, responseCacheMb: 0 }, { migrate: false }));
});

afterAll(async () => {
  for (const n of [second, uncached]) {
    await n?.app.close();
    await n?.ctx.close();
  }
  await server?.close();
});

/** A write's outcome: a thrown error or an HTTP answer over 399 is a refusal. */
async function refusal(write: Write): Promise<string | null> {
  try {
    const result = (await write.run()) as { statusCode?: number; status?: number; body?: unknown; text?(): Promise<string> } | undefined;
    const status = result?.statusCode ?? result?.status ?? 200;
    if (status < 400) return null;
    return `HTTP ${status} ${result?.text ? await result.text() : String(result?.body)}`;
  } catch (error) {
    return String(error);
  }
}

describe('cached cards and trees', () => {
  it('has every write path working (each once, from the first item, in order)', async () => {
    for (const arbitrary of writes) {
      const [write] = fc.sample(arbitrary, { numRuns: 1, seed: 1 });
      expect(await refusal(write!), write!.name).toBeNull();
      expect(differences(await answers(server.app), await answers(uncached.app)), write!.name).toEqual([]);
    }
  }, 180_000);

  it('answer what a node without a cache answers, after any sequence of writes', async () => {
    const runs = Number(process.env.CACHE_PROPERTY_RUNS ?? 15);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(...writes), { minLength: 1, maxLength: 8 }), async (sequence) => {
        for (const write of sequence) {
          await refusal(write);
          const truth = await answers(uncached.app);
          expect(differences(await answers(server.app), truth), `first node after ${write.name}`).toEqual([]);
          expect(differences(await answers(second.app), truth), `second node after ${write.name}`).toEqual([]);
        }
      }),
      { numRuns: runs },
    );
    // The property held with the caches in use: most reads were answered from them.
    const stats = server.ctx.responseCache!.stats;
    expect(stats.hits).toBeGreaterThan(stats.misses / 4);
  }, 600_000);

  it('serves a cached answer again only while nothing it shows has changed', async () => {
    const { responseCache } = server.ctx;
    const get = () => v1(server.app, server.tokens.manager, 'GET', '/items/get.php?id=1001');
    const first = await get();
    const hits = responseCache!.stats.hits;
    const again = await get();
    expect(responseCache!.stats.hits).toBe(hits + 1);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.json().data).toEqual(first.json().data);
    expect((await v1(server.app, server.tokens.manager, 'GET', '/items/get.php?id=1001', undefined)).statusCode).toBe(200);
    const notModified = await server.app.inject({
      method: 'GET',
      url: `${V1}/items/get.php?id=1001`,
      headers: { authorization: `Bearer ${server.tokens.manager}`, 'if-none-match': String(first.headers.etag) },
    });
    expect(notModified.statusCode).toBe(304);
    // Trees are built in the worker thread (its read lane), off the event loop.
    expect((await v1(server.app, server.tokens.manager, 'GET', '/projects/tree.php?id=1')).statusCode).toBe(200);
    expect(server.ctx.offload.stats().workers).toBe(1);
    // Operators see it in /metrics.
    const metrics = (await server.ctx.metrics!.render()).body;
    expect(metrics).toMatch(/^punchlist_response_cache_hits_total [1-9]\d*$/m);
    expect(metrics).toMatch(/^punchlist_response_cache_bytes [1-9]\d*$/m);
  });
});
