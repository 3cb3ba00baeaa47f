import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createContext } from '../../src/composition/context.js';
import type { Actor } from '../../src/domain/policy.js';
import { startReceiver, waitUntil } from '../helpers/receiver.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { USERS } from '../helpers/workspace.js';

/**
 * Webhook deliveries end to end (docs/design.md §11), on both dialects: real receivers on loopback, signatures
 * checked with the standardwebhooks package, retries on a clock the test moves, 410, visibility when sent,
 * a hanging receiver (two nodes on one database: test/scale/webhooks-two-nodes.test.ts).
 */
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let base: string;

let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };
let server: TestServer;
const manager = { id: USERS.manager, role: 'member' as const, name: 'Manager' };
const partial: Actor = { id: USERS.partial, role: 'member' };

const at = (path: string) => receiver.at(path);
const eventsAt = (path: string) =>
  at(path).map((r) => JSON.parse(r.body) as { id: number; type: string; item_id: number | null; data: any });

beforeAll(async () => {
  receiver = await startReceiver();
  base = receiver.base;
  server = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: '1' }, clock });
  server.ctx.webhookWorker.start();
});

afterAll(async () => {
  receiver.close();
  await server.close();
});

beforeEach(() => {
  offsetMs = 0;
});

describe('webhook deliveries', () => {
  it('delivers each event once, in order, as the feed shows it, signed per Standard Webhooks', async () => {
    const { id, secret } = await server.ctx.webhooks.create(manager, { url: `${base}/all` });
    await server.ctx.itemWrites.setStatus(manager, 1001, 'blocked');
    await server.ctx.comments.addComment(manager, 1001, { text: 'first' });
    await server.ctx.comments.addComment(manager, 1001, { text: 'second' });
    const got = await waitUntil(
      () => eventsAt('/all'),
      (list) => list.length >= 3,
    );
    expect(got.map((e) => e.type)).toEqual(['item.status_changed', 'comment.created', 'comment.created']);
    expect(got.map((e) => e.data.comment?.text ?? null)).toEqual([null, 'first', 'second']);
    const feed = (await server.call(`${V1}/events/list.php?after=${got[0]!.id - 1}&limit=3`, { token: server.tokens.manager })).body.data
      .events;
    expect(got).toEqual(feed);
    for (const delivery of at('/all')) {
      expect(new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>)).toEqual(JSON.parse(delivery.body));
      expect(delivery.headers['webhook-id']).toBe(`msg_${JSON.parse(delivery.body).id}`);
    }
    const logged = await server.ctx.webhooks.listWithDeliveries(manager);
    expect(logged.find((w) => w.id === id)!.deliveries.map((d) => [d.status, d.response_code])).toEqual([
      ['succeeded', 200],
      ['succeeded', 200],
      ['succeeded', 200],
    ]);
  });

  it('sends only the chosen types and project, and only what the owner can see when it is sent', async () => {
    await server.ctx.webhooks.create(manager, { url: `${base}/comments`, events: ['comment.created'] });
    const mine = await server.ctx.webhooks.create(partial, { url: `${base}/partial` });
    await server.ctx.itemWrites.setStatus(manager, 1000, 'in_progress');
    await server.ctx.comments.addComment(manager, 2001, { text: 'in a checklist partial cannot see' });
    await server.ctx.comments.addComment(manager, 1000, { text: 'visible to partial' });
    await waitUntil(
      () => eventsAt('/comments'),
      (list) => list.length >= 2,
    );
    expect(eventsAt('/comments').map((e) => e.data.comment.text)).toEqual(['in a checklist partial cannot see', 'visible to partial']);
    const partialGot = await waitUntil(
      () => eventsAt('/partial'),
      (list) => list.length >= 2,
    );
    expect(partialGot.map((e) => e.item_id)).toEqual([1000, 1000]);

    // Access lost: nothing more is sent; a deactivated owner's endpoint stops too.
    await server.ctx.db.kysely.deleteFrom('project_members').where('user_id', '=', USERS.partial).execute();
    await server.ctx.comments.addComment(manager, 1000, { text: 'after partial lost access' });
    await waitUntil(
      () => eventsAt('/comments'),
      (list) => list.length >= 3,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(eventsAt('/partial')).toHaveLength(2);
    expect((await server.ctx.webhooks.list(partial)).find((w) => w.id === mine.id)!.state).toBe('active');
  });

  it('retries a failing receiver with backoff until it answers, and disables on 410 or after 24 hours of failure', async () => {
    receiver.answers.set('/flaky', [500, 503]);
    const flaky = await server.ctx.webhooks.create(manager, { url: `${base}/flaky`, events: ['item.planning_changed'] });
    await server.ctx.itemWrites.setPlanning(manager, 1001, { priority: 'low' });
    await waitUntil(
      () => at('/flaky'),
      (list) => list.length >= 1,
    );
    const row = (id: number) => async () =>
      await server.ctx.db.kysely.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const endpoint = row(flaky.id);
    const first = await waitUntil(endpoint, (e) => e.attempts === 1);
    // The first retry comes within 10 s: 5 s ± 20 %.
    const wait = Date.parse(first.next_attempt_at!) - clock.now().getTime();
    expect(wait).toBeGreaterThan(3_000);
    expect(wait).toBeLessThanOrEqual(6_000);
    offsetMs += 7_000;
    await waitUntil(
      () => at('/flaky'),
      (list) => list.length >= 2,
    );
    const second = await waitUntil(endpoint, (e) => e.attempts === 2);
    expect(Date.parse(second.next_attempt_at!) - clock.now().getTime()).toBeGreaterThan(20_000);
    offsetMs += 40_000;
    await waitUntil(
      () => at('/flaky'),
      (list) => list.length >= 3,
    );
    const done = await waitUntil(endpoint, (e) => e.attempts === 0);
    expect(done).toMatchObject({ state: 'active', failing_since: null });
    expect(new Set(at('/flaky').map((r) => r.headers['webhook-id'])).size).toBe(1);
    const log = (await server.ctx.webhooks.listWithDeliveries(manager)).find((w) => w.id === flaky.id)!.deliveries;
    expect(log.map((d) => [d.attempt, d.status, d.response_code])).toEqual([
      [3, 'succeeded', 200],
      [2, 'failed', 503],
      [1, 'failed', 500],
    ]);

    receiver.answers.set('/gone', [410]);
    const gone = await server.ctx.webhooks.create(manager, { url: `${base}/gone`, events: ['item.planning_changed'] });
    await server.ctx.itemWrites.setPlanning(manager, 1001, { priority: 'medium' });
    const disabled = await waitUntil(
      async () => (await server.ctx.webhooks.list(manager)).find((w) => w.id === gone.id)!,
      (w) => w.state === 'disabled',
    );
    expect(disabled.disabled_reason).toMatch(/410 Gone/);

    receiver.answers.set(
      '/down',
      Array.from({ length: 20 }, () => 500),
    );
    const down = await server.ctx.webhooks.create(manager, { url: `${base}/down`, events: ['item.planning_changed'] });
    await server.ctx.itemWrites.setPlanning(manager, 1001, { priority: 'high' });
    // The first failure must be recorded before the clock moves on, or it would count from after the jump.
    await waitUntil(row(down.id), (e) => e.attempts === 1);
    offsetMs += 25 * 3_600_000;
    const dead = await waitUntil(
      async () => (await server.ctx.webhooks.list(manager)).find((w) => w.id === down.id)!,
      (w) => w.state === 'disabled',
    );
    expect(dead.disabled_reason).toMatch(/failed for 24 hours \(last: HTTP 500\)/);
  });

  it('keeps delivering to other endpoints while one receiver hangs, and redelivers a logged delivery', async () => {
    receiver.answers.set('/hang', ['hang']);
    await server.ctx.webhooks.create(manager, { url: `${base}/hang`, events: ['comment.created'] });
    const fine = await server.ctx.webhooks.create(manager, { url: `${base}/fine`, events: ['comment.created'] });
    await server.ctx.comments.addComment(manager, 1010, { text: 'while one receiver hangs' });
    const got = await waitUntil(
      () => eventsAt('/fine'),
      (list) => list.length >= 1,
      5_000,
    );
    expect(got.map((e) => e.data.comment.text)).toEqual(['while one receiver hangs']);
    // The hanging receiver got its request too (it never answers); on a busy machine a moment after /fine.
    expect(
      await waitUntil(
        () => at('/hang'),
        (list) => list.length >= 1,
        5_000,
      ),
    ).toHaveLength(1);
    // A request is not slowed by it either.
    expect((await server.call(`${V1}/auth/me.php`, { token: server.tokens.manager })).status).toBe(200);

    const [delivery] = (await server.ctx.webhooks.listWithDeliveries(manager)).find((w) => w.id === fine.id)!.deliveries;
    const again = await server.ctx.webhooks.redeliver(manager, delivery!.id);
    expect(again.status).toBe(200);
    expect(at('/fine').map((r) => r.headers['webhook-id'])).toEqual([`msg_${got[0]!.id}`, `msg_${got[0]!.id}`]);
    await expect(server.ctx.webhooks.redeliver(partial, delivery!.id)).rejects.toMatchObject({ status: 404 });
  });

  it('stops serving the endpoints of a deactivated owner', async () => {
    const observer = { id: USERS.observer, role: 'member' as const, name: 'Observer' };
    await server.ctx.webhooks.create(observer, { url: `${base}/observer`, events: ['comment.created'] });
    await server.ctx.comments.addComment(manager, 1011, { text: 'before' });
    await waitUntil(
      () => at('/observer'),
      (list) => list.length >= 1,
    );
    await server.ctx.usersAdmin.setUserActive({ id: USERS.admin, role: 'admin' }, USERS.observer, false);
    await server.ctx.comments.addComment(manager, 1011, { text: 'after the owner was deactivated' });
    await waitUntil(
      () => at('/all'),
      (list) => list.some((r) => r.body.includes('after the owner was deactivated')),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(eventsAt('/observer').map((e) => e.data.comment.text)).toEqual(['before']);
  });

  it('refuses private destinations unless allowed, and unknown event types', async () => {
    const strict = await createContext({ ...server.ctx.config, webhookAllowPrivate: false }, { migrate: false });
    try {
      await expect(strict.webhooks.create(manager, { url: `${base}/x` })).rejects.toMatchObject({
        status: 422,
        message: expect.stringContaining('127.0.0.1'),
      });
      await expect(strict.webhooks.create(manager, { url: 'ftp://example.test/' })).rejects.toMatchObject({ status: 422 });
    } finally {
      await strict.close();
    }
    await expect(server.ctx.webhooks.create(manager, { url: `${base}/x`, events: ['item.deleted'] })).rejects.toMatchObject({
      status: 422,
    });
    await expect(server.ctx.webhooks.create(partial, { url: `${base}/x`, projectId: 3 })).rejects.toMatchObject({ status: 404 });
  });
});
