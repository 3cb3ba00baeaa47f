/**
 * Benchmark: what notifications cost the writes (docs/design.md §15, issue 28), in-process on a copy of the bench
 * workspace (bench/lib/workspace.ts: 100 000 items, 200 projects with 2 managers each), SQLite, web only.
 * 1. CPU per write with the notification worker running (commits wake it; it turns the events into
 *    notifications) and stopped, 50 writers at once as in `npm run bench` (group commit), status changes
 *    (random items and statuses, by an admin: the managers are told of `done` and `blocked`) and comments,
 *    alternating rounds; the worker's share of a round is drained before its clock stops.
 * 2. The worker's own CPU per event: batches of 500 writes, then one drain, measured alone.
 * CPU time (process.cpuUsage), not wall time: a loaded machine stretches both modes alike; medians of rounds.
 * Run: npm run bench:notifications   (WRITES, ROUNDS; not part of npm test)
 */
import { rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadavg } from 'node:os';
import { loadConfig } from '../src/shared/config.js';
import { createContext } from '../src/composition/context.js';
import { copyOfWorkspace } from './lib/workspace.js';
import { random } from './lib/random.js';

const ROOT = resolve(new URL('..', import.meta.url).pathname);
const DATA = join(ROOT, 'data', 'bench');
const WRITES = Number(process.env.WRITES ?? 6000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const WRITERS = 50;
const BATCH = 500;

const dir = join(DATA, `notifications-${process.pid}`);
const meta = await copyOfWorkspace(DATA, join(dir, 'punchlist.db'), (line) => console.log(line));
const ctx = await createContext(
  loadConfig({
    NODE_ENV: 'production',
    DATABASE_URL: `sqlite:${join(dir, 'punchlist.db')}`,
    STORAGE_URL: `file:${join(dir, 'storage')}`,
    DATA_DIR: dir,
    LOG_LEVEL: 'silent',
    SESSION_SECRET: 'bench',
  }),
);
// As main.ts starts them, but for the notification worker, which each round starts or not.
ctx.webhookWorker.start();
ctx.searchIndexer.start();
const consumer = ctx.notificationWorker.consumer;
const adminMeta = meta.actors.find((a) => a.key === 'admin')!;
const admin = { id: adminMeta.userId, role: 'admin' as const, name: 'Admin' };
const rand = random(7);
const statuses = ['pending', 'in_progress', 'done', 'blocked'] as const;
const [first, last] = adminMeta.visibleItems[0]!;
const anyItem = () => first + Math.floor(rand() * (last - first + 1));
let comments = 0;
const writes = {
  status: () => ctx.itemWrites.setStatus(admin, anyItem(), statuses[Math.floor(rand() * statuses.length)]!),
  comment: () => ctx.comments.addComment(admin, anyItem(), { text: `Замечание ${++comments}: проверить крепление кабеля` }),
};
type Kind = keyof typeof writes;

async function write(kind: Kind, count: number, writers: number) {
  let left = count;
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (left-- > 0) await writes[kind]();
    }),
  );
}

const cpu = () => {
  const used = process.cpuUsage();
  return used.user + used.system;
};
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;

/** CPU µs per write of a round; the worker's work for the round is done before the clock stops. */
async function round(kind: Kind, worker: boolean): Promise<number> {
  if (worker) consumer.start();
  const start = cpu();
  await write(kind, WRITES, WRITERS);
  if (worker) await consumer.drain();
  const used = cpu() - start;
  if (worker) await consumer.stop();
  else await consumer.drain(); // unmeasured: the next round starts from a drained outbox
  return used / WRITES;
}

/** The worker alone: CPU µs per event of draining batches of BATCH events. */
async function drainCost(kind: Kind): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < 2 * ROUNDS + 1; i++) {
    await write(kind, BATCH, WRITERS);
    await ctx.searchIndexer.drain(); // its background work would fall into the drain's clock
    const start = cpu();
    await consumer.drain();
    samples.push((cpu() - start) / BATCH);
  }
  return median(samples.slice(1));
}

const results: Record<string, unknown> = {};
await consumer.drain();
for (const kind of ['status', 'comment'] as const) {
  await round(kind, false); // warm-up of both
  await round(kind, true);
  const samples = { off: [] as number[], on: [] as number[] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const worker of r % 2 ? [true, false] : [false, true]) samples[worker ? 'on' : 'off'].push(await round(kind, worker));
  }
  const off = median(samples.off);
  const on = median(samples.on);
  const drain = await drainCost(kind);
  console.log(
    `${kind}: ${on.toFixed(1)} µs CPU per write with notifications, ${off.toFixed(1)} without (×${(on / off).toFixed(3)}, +${(on - off).toFixed(1)} µs); ` +
      `the worker alone ${drain.toFixed(1)} µs per event`,
  );
  results[kind] = { off, on, ratio: on / off, workerUsPerEvent: drain, samples };
}
await ctx.close();
rmSync(dir, { recursive: true, force: true });
mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
const file = join(ROOT, `bench/results/notifications-inprocess-${new Date().toISOString().slice(0, 10)}.json`);
writeFileSync(
  file,
  JSON.stringify(
    { at: new Date().toISOString(), writes: WRITES, rounds: ROUNDS, writers: WRITERS, loadAverage: loadavg(), results },
    null,
    2,
  ) + '\n',
);
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}; written to ${file}`,
);
