import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { USERS } from '../../../test/helpers/workspace.js';
import type { Actor } from '../../domain/policy.js';
import { createEventsRepository, type NewEvent } from './events.repository.js';

/**
 * PostgreSQL only (the `postgres` project alone runs *.postgres.test.ts): writers commit concurrently there, so
 * event ids can commit out of order. SQLite has one writer at a time: there they cannot, and nothing is to test.
 */
let server: TestServer;
const admin: Actor = { id: USERS.admin, role: 'admin' };
const feed = (actor: Actor, input: { after: number }) =>
  server.ctx.events.list(actor, { limit: 500, projectId: null, itemId: null, types: null, wait: 0, ...input });
const last = async () => (await feed(admin, { after: 0 })).next_after;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

it('lets writers commit without waiting for each other, and never lets a reader pass an event not yet committed', async () => {
  const repo = createEventsRepository(server.ctx.db.kysely);
  const event = (n: number): NewEvent => ({
    type: 'comment.created',
    at: new Date().toISOString(),
    project_id: 1,
    section_id: null,
    checklist_id: null,
    item_id: null,
    actor_id: USERS.admin,
    token_id: null,
    data: { n },
  });
  const after = await last();
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let appended!: () => void;
  const firstAppended = new Promise<void>((resolve) => (appended = resolve));
  const open = server.ctx.db.kysely.transaction().execute(async (trx) => {
    await repo.append(trx, [event(1)]);
    appended();
    await held;
  });
  await firstAppended;
  // A second writer commits while the first is still open: it takes the next id and does not wait.
  await server.ctx.db.kysely.transaction().execute((trx) => repo.append(trx, [event(2)]));
  const reading = feed(admin, { after });
  await new Promise((resolve) => setTimeout(resolve, 200));
  release();
  await open;
  // The reader waited for the open writer: it sees both, in id order, not the second alone.
  expect((await reading).events.map((e) => (e.data as { n: number }).n)).toEqual([1, 2]);
});
