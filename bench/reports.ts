/**
 * Benchmark of reports (docs/design.md §17, §10): a 5 000-item project with 1 000 photos, its PDF and CSV
 * streamed by a server process in production mode, while items/get is driven beside it.
 *
 *   npm run bench:reports
 *
 * Measures, for each format: time to the first byte and to the last, size, the server's peak RSS (sampled
 * every 100 ms), and items/get latency (autocannon, BENCH_CONNECTIONS connections) alone and while the
 * report runs, with the event-loop delay of the server during each. The PDF runs twice: first with the
 * thumbnails still to make (cold), then with them kept in the blob store (warm). Writes
 * bench/results/reports-<date>.json.
 * Environment: BENCH_DURATION (s of the items/get baseline, default 8), BENCH_CONNECTIONS (default 10).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { SCOPES } from '../src/domain/scopes.js';
import { generateToken } from '../src/domain/token-format.js';
import { importFixture } from '../src/features/fixtures/import.service.js';
import { createImageConverter } from '../src/imaging/images.js';
import { openBlobStore } from '../src/storage/index.js';
import { drive, eventLoopDelay, freePort, type LoadResult, rssMb, type ServerProcess, startServer } from './lib/load.js';
import { random } from './lib/random.js';
import { machine } from './lib/report.js';
import { serverEnv } from './lib/servers.js';

const ROOT = resolve(new URL('..', import.meta.url).pathname);
const DIR = join(ROOT, 'data', 'bench', `reports-${process.pid}`);
const V1 = '/api/external/v1';
const SHAPE = { sections: 10, checklistsPerSection: 10, itemsPerChecklist: 50, photos: 1000, photoSize: [1600, 1200] as const };
const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const NOW = '2026-01-01T00:00:00.000Z';
const log = (line: string) => process.stderr.write(`${line}\n`);

/** A photo-like picture (gradients and noise), different for each seed, converted as uploads are. */
async function photo(seed: number): Promise<{ data: Buffer; width: number; height: number; size: number }> {
  const [width, height] = SHAPE.photoSize;
  const rand = random(seed);
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i += 3) {
    const x = (i / 3) % width;
    const y = Math.floor(i / 3 / width);
    raw[i] = (x * 255) / width + rand() * 40;
    raw[i + 1] = (y * 255) / height + rand() * 40;
    raw[i + 2] = ((x + y + seed * 97) % 255) + rand() * 40;
  }
  const jpeg = await sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 85 })
    .toBuffer();
  return createImageConverter().toWebp(jpeg);
}

async function buildWorkspace(file: string): Promise<string> {
  const db = openDatabase(`sqlite:${file}`);
  await migrateToLatest(db.kysely);
  const token = generateToken();
  const rand = random(7);
  const statuses = ['pending', 'in_progress', 'done', 'blocked'];
  let id = 1000;
  const sections = Array.from({ length: SHAPE.sections }, (_, s) => ({
    id: 10 + s,
    name: `Секция ${s + 1} — Section ${s + 1}`,
    checklists: Array.from({ length: SHAPE.checklistsPerSection }, (_, c) => ({
      id: 100 + s * SHAPE.checklistsPerSection + c,
      name: `Checklist ${s + 1}.${c + 1}`,
      items: Array.from({ length: SHAPE.itemsPerChecklist }, () => {
        id++;
        const answered = rand() < 0.5;
        return {
          id,
          text: `Проверить узел ${id}: крепления, герметичность и маркировку (item ${id})`,
          description: 'Осмотр на месте',
          status: statuses[Math.floor(rand() * 4)]!,
          priority: ['low', 'medium', 'high'][Math.floor(rand() * 3)]!,
          deadline: rand() < 0.5 ? '2026-12-31' : null,
          requires_answer: answered,
          participants: [2, 3],
          verdict: rand() < 0.1 ? 'accepted' : null,
          answers: answered
            ? [{ id: id * 10, author_id: 3, text: 'Выполнено, акт приложен. '.repeat(4), status: rand() < 0.5 ? 'approved' : 'pending' }]
            : [],
        };
      }),
    })),
  }));
  await importFixture(
    db.kysely,
    db.dialect,
    {
      users: [
        { id: 1, email: 'admin@bench.test', name: 'Админ', role: 'admin' },
        { id: 2, email: 'manager@bench.test', name: 'Мария Менеджер', role: 'member' },
        { id: 3, email: 'executor@bench.test', name: 'Иван Исполнитель', role: 'member' },
      ],
      projects: [
        {
          id: 1,
          name: 'Жилой комплекс «Север» — handover',
          description: 'Bench project',
          deadline: '2026-12-31',
          members: [
            { user_id: 2, role: 'manager', sections: null, checklists: null },
            { user_id: 3, role: 'executor', sections: null, checklists: null },
          ],
          sections,
        },
      ],
      tokens: [{ id: 1, user_id: 2, name: 'bench', raw: token, scopes: [...SCOPES], expires_at: null, revoked_at: null }],
    },
    { now: () => new Date(NOW) },
  );
  // 1 000 photos on the first 1 000 items, stored as uploads store them (WebP under items/<id>/).
  const blobs = openBlobStore(`file:${join(DIR, 'storage')}`);
  const pictures = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map(photo));
  const rows = [];
  for (let n = 0; n < SHAPE.photos; n++) {
    const itemId = 1001 + n * 5;
    const picture = pictures[n % pictures.length]!;
    const path = `items/${itemId}/${randomUUID()}.webp`;
    await blobs.put(path, picture.data, 'image/webp');
    rows.push({
      item_id: itemId,
      answer_id: null,
      original_name: `photo-${n}.jpg`,
      mime_type: 'image/webp',
      path,
      size: picture.size,
      width: picture.width,
      height: picture.height,
      uploaded_by: 2,
      created_at: NOW,
    });
  }
  for (let i = 0; i < rows.length; i += 200)
    await db.kysely
      .insertInto('attachments')
      .values(rows.slice(i, i + 200))
      .execute();
  await db.close();
  return token;
}

interface ReportRun {
  format: 'pdf' | 'csv';
  status: number;
  first_byte_ms: number;
  total_ms: number;
  bytes: number;
  server_rss_mb_peak: number | null;
  /** The server's event-loop delay during the report (p99, longest), ms. */
  event_loop: { p99_ms: number; max_ms: number } | null;
  /** null when the report ran alone. */
  items_get_during: LoadResult | null;
}

/** Streams one report while driving items/get (unless `alone`); RSS sampled every 100 ms. */
async function measureReport(server: ServerProcess, token: string, format: 'pdf' | 'csv', alone = false): Promise<ReportRun> {
  await eventLoopDelay(server.url);
  let peak = rssMb(server.child.pid) ?? 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(server.child.pid) ?? 0)), 100);
  const started = performance.now();
  const controller = new AbortController();
  const report = (async () => {
    const res = await fetch(`${server.url}${V1}/projects/report.php?id=1&format=${format}`, {
      headers: { authorization: `Bearer ${token}` },
      signal: controller.signal,
    });
    let firstByte = 0;
    let bytes = 0;
    for await (const chunk of res.body!) {
      if (bytes === 0) firstByte = performance.now() - started;
      bytes += (chunk as Uint8Array).byteLength;
    }
    return { status: res.status, first_byte_ms: Math.round(firstByte), total_ms: Math.round(performance.now() - started), bytes };
  })();
  // items/get beside it, for as long as the report runs (autocannon runs whole seconds: at least 2).
  const loads: LoadResult[] = [];
  let done = false;
  void report.finally(() => (done = true));
  while (!done && !alone)
    loads.push(
      await drive({ url: server.url, connections: CONNECTIONS, durationSeconds: 2, next: itemsGet(token), pid: server.child.pid }),
    );
  const result = await report;
  clearInterval(sampler);
  const during = alone ? null : merge(loads);
  const event_loop = await eventLoopDelay(server.url);
  return { format, ...result, server_rss_mb_peak: peak, event_loop, items_get_during: during };
}

/** Several 2-second drives as one: requests added up, the worst of their percentiles (conservative). */
function merge(loads: LoadResult[]): LoadResult {
  const first = loads[0]!;
  const worst = (key: keyof LoadResult['latency_ms']) => Math.max(...loads.map((l) => l.latency_ms[key]));
  const requests = loads.reduce((n, l) => n + l.requests, 0);
  return {
    ...first,
    requests,
    requests_per_s: Math.round(requests / (loads.length * 2)),
    latency_ms: { p50: worst('p50'), p95: worst('p95'), p99: worst('p99'), p99_9: worst('p99_9'), max: worst('max'), mean: worst('mean') },
    errors: loads.reduce((n, l) => n + l.errors, 0),
    non_2xx: loads.reduce((n, l) => n + l.non_2xx, 0),
    rss_mb_peak: Math.max(...loads.map((l) => l.rss_mb_peak ?? 0)),
  };
}

const itemsGet = (token: string) => {
  const rand = random(3);
  return () => ({ method: 'GET' as const, path: `${V1}/items/get.php?id=${1001 + Math.floor(rand() * 5000)}`, token });
};

async function main() {
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  const file = join(DIR, 'punchlist.db');
  let server: ServerProcess | undefined;
  const loadBefore = loadavg().map((n) => Math.round(n * 100) / 100);
  try {
    const t = performance.now();
    const token = await buildWorkspace(file);
    log(`workspace built in ${Math.round(performance.now() - t)} ms`);
    const port = await freePort();
    server = await startServer({
      name: 'punchlist',
      script: join(ROOT, 'src/main.ts'),
      port,
      probePath: '/healthz',
      env: {
        ...serverEnv({ databaseUrl: `sqlite:${file}`, dataDir: DIR, port }),
        // As `npm start` and docs/deployment.md run a node: glibc keeps fewer malloc arenas (RSS).
        MALLOC_ARENA_MAX: '2',
        METRICS: 'on',
      },
    });
    const idleRss = rssMb(server.child.pid);
    // Warm-up, then items/get alone.
    await drive({ url: server.url, connections: CONNECTIONS, durationSeconds: 2, next: itemsGet(token), pid: server.child.pid });
    await eventLoopDelay(server.url);
    const alone = await drive({
      url: server.url,
      connections: CONNECTIONS,
      durationSeconds: DURATION,
      next: itemsGet(token),
      pid: server.child.pid,
    });
    alone.event_loop = await eventLoopDelay(server.url);
    log(`items/get alone: p50 ${alone.latency_ms.p50} ms, p99 ${alone.latency_ms.p99} ms, ${alone.requests_per_s} req/s`);
    const runs: (ReportRun & { with_load: boolean })[] = [];
    for (const [format, alone] of [
      ['pdf', true],
      ['pdf', false],
      ['csv', true],
      ['csv', false],
    ] as const) {
      const run = await measureReport(server, token, format, alone);
      runs.push({ ...run, with_load: !alone });
      const during = run.items_get_during;
      log(
        `${format}${alone ? ' alone' : ' beside items/get'}: status ${run.status}, first byte ${run.first_byte_ms} ms, done ${run.total_ms} ms, ` +
          `${Math.round(run.bytes / 1024)} KiB, server RSS peak ${run.server_rss_mb_peak} MB, event loop p99 ${run.event_loop?.p99_ms} ms ` +
          `max ${run.event_loop?.max_ms} ms` +
          (during
            ? `; items/get meanwhile p50 ${during.latency_ms.p50} ms, p99 ${during.latency_ms.p99} ms, max ${during.latency_ms.max} ms`
            : ''),
      );
    }
    const date = new Date().toISOString().slice(0, 10);
    const result = {
      date: new Date().toISOString(),
      machine: machine(),
      // The machine is shared: its load says how far the figures are from an idle machine's.
      load_average_before: loadBefore,
      load_average_after: loadavg().map((n) => Math.round(n * 100) / 100),
      shape: {
        items: SHAPE.sections * SHAPE.checklistsPerSection * SHAPE.itemsPerChecklist,
        photos: SHAPE.photos,
        photo_pixels: SHAPE.photoSize,
      },
      connections: CONNECTIONS,
      server_rss_mb_idle: idleRss,
      items_get_alone: alone,
      reports: runs,
      targets: { first_byte_ms: 1000, total_ms: 60_000, server_rss_mb: 400 },
    };
    mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
    writeFileSync(join(ROOT, 'bench', 'results', `reports-${date}.json`), `${JSON.stringify(result, null, 2)}\n`);
    log(`written bench/results/reports-${date}.json`);
  } finally {
    await server?.stop();
    rmSync(DIR, { recursive: true, force: true });
  }
}

await main();
