import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import { type AppContext, createContext } from '../../composition/context.js';
import type { ItemStatus } from '../../domain/values.js';
import { startTestServer, type TestServer, V1 } from '../../../test/helpers/server.js';
import { USERS, type UserKey } from '../../../test/helpers/workspace.js';

/*
 * Issue 41: random writes never leave a cached card or tree older than the database. Writes through the services
 * (status, text, assignees, plan place, comments, answers, moves between checklists and within one; a plan and a
 * user renamed by hand) interleave with cached reads (v1 items/get and projects/tree, from a node with a cache);
 * after each write every cached answer equals a fresh read from a node without one. The columns and triggers
 * behind it: cached-columns.test.ts.
 */

const ITEMS = [1000, 1001, 2010] as const;
const READERS: UserKey[] = ['manager', 'partial'];
const manager = { id: USERS.manager, role: 'member' as const, name: 'Manager' };
const executor = { id: USERS.executor, role: 'member' as const, name: 'Executor' };
const STATUSES: ItemStatus[] = ['pending', 'in_progress', 'done', 'blocked'];

let server: TestServer;
let uncached: { ctx: AppContext; app: FastifyInstance };
let planId: number;
let counter = 0;

beforeAll(async () => {
  server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  const ctx = await createContext({ ...server.ctx.config, responseCacheMb: 0 }, { migrate: false });
  uncached = { ctx, app: await buildApp(ctx, { logger: false }) };
  const plan = await sql<{ id: number }>`SELECT MIN(id) AS id FROM plans WHERE project_id = 1`.execute(server.ctx.db.kysely);
  planId = Number(plan.rows[0]!.id);
});

afterAll(async () => {
  await uncached?.app.close();
  await uncached?.ctx.close();
  await server?.close();
});

/** Every reader's cards and tree from one node: status and `data` (or the error's code). */
async function reads(app: FastifyInstance) {
  const get = async (token: string, path: string) => {
    const res = await app.inject({ method: 'GET', url: `${V1}${path}`, headers: { authorization: `Bearer ${token}` } });
    const body = res.json();
    return [res.statusCode, body.data ?? body.error.code];
  };
  const out: Record<string, unknown> = {};
  for (const reader of READERS) {
    for (const id of ITEMS) out[`${reader} card ${id}`] = await get(server.tokens[reader], `/items/get.php?id=${id}`);
    out[`${reader} tree`] = await get(server.tokens[reader], '/projects/tree.php?id=1');
  }
  return out;
}

interface Write {
  name: string;
  run(): Promise<unknown>;
}

const item = fc.constantFrom(...ITEMS);
const text = () => `change ${++counter}`;

const writes: fc.Arbitrary<Write>[] = [
  fc.tuple(item, fc.constantFrom(...STATUSES)).map(([id, status]) => ({
    name: `status ${id} ${status}`,
    run: () => server.ctx.itemWrites.setStatus(manager, id, status),
  })),
  item.map((id) => ({ name: `text ${id}`, run: () => server.ctx.itemEdits.updateItem(manager, id, { text: text() }) })),
  // The executor stays one (the answers are theirs).
  fc.tuple(item, fc.subarray([USERS.partial, USERS.bystander])).map(([id, others]) => ({
    name: `assignees ${id} [${others.join(',')}]`,
    run: () => server.ctx.itemEdits.updateItem(manager, id, { participantIds: [USERS.executor, ...others] }),
  })),
  fc.tuple(item, fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })).map(([id, x, y]) => ({
    name: `placed ${id}`,
    run: () => server.ctx.itemLocations.placeItem(manager, id, { planId, x, y }),
  })),
  item.map((id) => ({ name: `off the plan ${id}`, run: () => server.ctx.itemLocations.removeFromPlan(manager, id) })),
  item.map((id) => ({ name: `comment ${id}`, run: () => server.ctx.comments.addComment(manager, id, { text: text() }) })),
  item.map((id) => ({ name: `answer ${id}`, run: () => server.ctx.answers.addAnswer(executor, id, { text: text() }) })),
  fc.tuple(item, fc.constantFrom(100, 101, 200, 201)).map(([id, checklistId]) => ({
    name: `moved ${id} to checklist ${checklistId}`,
    run: () => server.ctx.itemEdits.updateItem(manager, id, { checklistId }),
  })),
  fc.tuple(item, fc.constantFrom('up', 'down')).map(([id, to]) => ({
    name: `moved ${id} ${to}`,
    run: () => server.ctx.itemEdits.moveItem(manager, id, to),
  })),
  fc.constant({
    name: 'SQL: the plan renamed by hand',
    run: () => sql`UPDATE plans SET name = ${text()} WHERE id = ${planId}`.execute(server.ctx.db.kysely),
  }),
  fc.constant({
    name: 'SQL: a participant renamed by hand',
    run: () => sql`UPDATE users SET name = ${text()} WHERE id = ${USERS.executor}`.execute(server.ctx.db.kysely),
  }),
];

/** The keys whose cached answer differs from the fresh one, with both. */
async function stale() {
  const [cached, fresh] = [await reads(server.app), await reads(uncached.app)];
  return Object.keys(fresh)
    .filter((key) => JSON.stringify(cached[key]) !== JSON.stringify(fresh[key]))
    .map((key) => ({ key, cached: cached[key], fresh: fresh[key] }));
}

describe('cached cards and trees after random writes', () => {
  it('has every write working (each once, in order)', async () => {
    await reads(server.app);
    for (const arbitrary of writes) {
      const [write] = fc.sample(arbitrary, { numRuns: 1, seed: 7 });
      await expect(write!.run(), write!.name).resolves.not.toThrow();
      expect(await stale(), write!.name).toEqual([]);
    }
  });

  it('are never older than the database', async () => {
    const hits = server.ctx.responseCache!.stats.hits;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(...writes), { minLength: 1, maxLength: 6 }), async (sequence) => {
        for (const write of sequence) {
          // A write a rule refuses (a status the item cannot take, an item at the top already) changes nothing.
          await write.run().catch(() => undefined);
          expect(await stale(), `after ${write.name}`).toEqual([]);
        }
      }),
      { numRuns: Number(process.env.CACHE_FRESHNESS_RUNS ?? 20) },
    );
    // The caches were in use: a good part of the reads were answered from them.
    expect(server.ctx.responseCache!.stats.hits - hits).toBeGreaterThan(50);
  });
});
