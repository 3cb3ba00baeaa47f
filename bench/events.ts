/**
 * Benchmark: the event layer (docs/design.md §11), in-process on SQLite with the test workspace.
 * 1. What recording an event adds to a write: CPU µs per status change through the real item write path,
 *    against the same path whose outbox writes nothing, in the same run (alternating rounds).
 * 2. Delivery throughput: events/s a webhook endpoint receives on a local receiver (loopback HTTP), from a
 *    backlog of events, with signing and the per-event visibility check.
 * 3. Notifications throughput: events/s the notification worker turns into notifications (the rules, the
 *    per-recipient visibility check, the inserts; web only, no SMTP), from a backlog of comments and status
 *    changes on items with participants (docs/design.md §15 asks for 1 000 events/s on SQLite).
 * Run: npm run bench:events   (not part of npm test)
 */
import { createTransactionRunner } from '../src/db/group-commit.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createItemsModule } from '../src/features/items/index.js';
import { createProjectsModule } from '../src/features/projects/index.js';
import { createVocabularyRepository } from '../src/features/vocabulary/vocabulary.repository.js';
import { startReceiver } from '../test/helpers/receiver.js';
import { startTestServer } from '../test/helpers/server.js';
import { USERS } from '../test/helpers/workspace.js';

const WRITES = Number(process.env.WRITES ?? 4000);
const ROUNDS = Number(process.env.ROUNDS ?? 4);
const BACKLOG = Number(process.env.BACKLOG ?? 3000);

const server = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: '1' } });
const { ctx } = server;
const manager = { id: USERS.manager, role: 'member' as const, name: 'Manager' };
const silentOutbox = { append: async () => {}, committed: () => {} };
const { projectsRepo, visibleItems } = createProjectsModule({ db: ctx.db.kysely });
const paths = {
  withEvents: ctx.itemWrites,
  // The same item module over an outbox that drops the events: what the events cost, measured.
  withoutEvents: createItemsModule({
    db: ctx.db.kysely,
    transactions: createTransactionRunner(ctx.db.kysely, ctx.db.dialect),
    projectsRepo,
    visibleItems,
    projects: ctx.projects,
    vocabularyRepo: createVocabularyRepository(ctx.db.kysely),
    audit: ctx.audit,
    events: silentOutbox,
    blobs: ctx.blobs,
    images: ctx.images,
    clock: ctx.clock,
    urls: ctx.config,
  }).itemWrites,
};

/** CPU µs per status change (alternating two statuses so that every call writes). */
async function cpuPerWrite(service: typeof ctx.itemWrites): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < WRITES; i++) await service.setStatus(manager, 2001, i % 2 ? 'in_progress' : 'blocked');
  const used = process.cpuUsage(start);
  return (used.user + used.system) / WRITES;
}

await cpuPerWrite(paths.withEvents); // warm-up
const samples: Record<keyof typeof paths, number[]> = { withEvents: [], withoutEvents: [] };
for (let round = 0; round < ROUNDS; round++) {
  for (const name of (round % 2 ? ['withoutEvents', 'withEvents'] : ['withEvents', 'withoutEvents']) as (keyof typeof paths)[]) {
    samples[name].push(await cpuPerWrite(paths[name]));
  }
}
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
const write = { withEventsUs: median(samples.withEvents), withoutEventsUs: median(samples.withoutEvents) };
console.log(
  `status change, CPU per write: ${write.withEventsUs.toFixed(1)} µs with its event, ${write.withoutEventsUs.toFixed(1)} µs without (+${(write.withEventsUs - write.withoutEventsUs).toFixed(1)} µs)`,
);

const receiver = await startReceiver();
const { id } = await ctx.webhooks.create(manager, { url: `${receiver.base}/hook`, events: ['comment.created'] });
for (let i = 0; i < BACKLOG; i++) await ctx.comments.addComment(manager, 2010, { text: `backlog ${i}` });
const started = performance.now();
ctx.webhookWorker.start();
while (receiver.received.length < BACKLOG) await new Promise((resolve) => setTimeout(resolve, 20));
const seconds = (performance.now() - started) / 1000;
await ctx.webhookWorker.stop();
const delivery = { events: BACKLOG, seconds, perSecond: BACKLOG / seconds, endpoint: id };
console.log(
  `webhook deliveries: ${BACKLOG} events to one local receiver in ${seconds.toFixed(2)} s = ${delivery.perSecond.toFixed(0)} events/s`,
);

// The worker starts at the end of the outbox: everything before (the webhook backlog) tells nobody.
await ctx.notificationWorker.consumer.drain();
const executor = { id: USERS.executor, role: 'member' as const, name: 'Executor' };
for (let i = 0; i < BACKLOG; i++) {
  if (i % 2) await ctx.comments.addComment(manager, 1000, { text: `notified ${i}` });
  else await ctx.itemWrites.setStatus(executor, 1001, i % 4 ? 'in_progress' : 'done');
}
const notifiedBefore = Number(
  (
    await ctx.db.kysely
      .selectFrom('notifications')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow()
  ).n,
);
const notifyStarted = performance.now();
const notifyCpu = process.cpuUsage();
await ctx.notificationWorker.consumer.drain();
const notifyUsed = process.cpuUsage(notifyCpu);
const notifySeconds = (performance.now() - notifyStarted) / 1000;
const made =
  Number(
    (
      await ctx.db.kysely
        .selectFrom('notifications')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  ) - notifiedBefore;
const notifications = {
  events: BACKLOG,
  notifications: made,
  seconds: notifySeconds,
  perSecond: BACKLOG / notifySeconds,
  cpuUsPerEvent: (notifyUsed.user + notifyUsed.system) / BACKLOG,
};
console.log(
  `notifications: ${BACKLOG} events (${made} notifications) in ${notifySeconds.toFixed(2)} s = ${notifications.perSecond.toFixed(0)} events/s, ` +
    `${notifications.cpuUsPerEvent.toFixed(1)} µs CPU per event`,
);

// 4. What notifications add to a status change and a comment: CPU per write with the notification worker
// running (commits wake it; it turns the events into notifications, web only) and stopped, alternating rounds.
// Written by the admin, as in `npm run bench`: the project's manager is told of every `blocked` (a manager
// changing the status would be the only active manager, and nobody would be told).
const admin = { id: USERS.admin, role: 'admin' as const, name: 'Admin' };
async function cpuPerChange(kind: 'status' | 'comment', worker: boolean): Promise<number> {
  if (worker) ctx.notificationWorker.consumer.start();
  const start = process.cpuUsage();
  for (let i = 0; i < WRITES; i++) {
    if (kind === 'status') await ctx.itemWrites.setStatus(admin, 1001, i % 2 ? 'in_progress' : 'blocked');
    else await ctx.comments.addComment(admin, 1000, { text: `cost ${i}` });
  }
  // The worker's share: what it still has to do for these writes is done before the clock stops.
  if (worker) await ctx.notificationWorker.consumer.drain();
  const used = process.cpuUsage(start);
  if (worker) await ctx.notificationWorker.consumer.stop();
  else await ctx.notificationWorker.consumer.drain(); // skipped: the next round starts from a drained outbox
  return (used.user + used.system) / WRITES;
}
const notificationCost: Record<string, { off: number[]; on: number[] }> = { status: { off: [], on: [] }, comment: { off: [], on: [] } };
for (const kind of ['status', 'comment'] as const) {
  await cpuPerChange(kind, false); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const worker of round % 2 ? [true, false] : [false, true])
      notificationCost[kind]![worker ? 'on' : 'off'].push(await cpuPerChange(kind, worker));
  }
  const off = median(notificationCost[kind]!.off);
  const on = median(notificationCost[kind]!.on);
  console.log(`${kind} with notifications: ${on.toFixed(1)} µs CPU per write, without ${off.toFixed(1)} µs (×${(on / off).toFixed(3)})`);
}

receiver.close();
await server.close();
mkdirSync('bench/results', { recursive: true });
const file = `bench/results/events-${new Date().toISOString().slice(0, 10)}.json`;
writeFileSync(
  file,
  JSON.stringify(
    { at: new Date().toISOString(), writes: WRITES, rounds: ROUNDS, samples, write, delivery, notifications, notificationCost },
    null,
    2,
  ) + '\n',
);
console.log(`written to ${file}`);
