/**
 * Benchmark of plans and pins (issue 47, DESIGN.md §19 and §10), on a Punchlist node run as `npm start` runs it:
 *
 *   npm run bench:plans
 *
 * 1. A 50-page A1 PDF (made here with PDFKit: dense line work and text on every page, like a drawing) uploaded
 *    through the web form ("Upload plan", in Chromium): the time until all 50 plans are listed (rendered and
 *    tiled), and the server's peak RSS meanwhile (VmRSS sampled every 100 ms, and VmHWM), its rendering process's
 *    (a child of the server) and the two summed.
 * 2. items/get (autocannon) while that upload renders vs. alone, in the same run: the ratio of the p99s. The load
 *    runs beside the rendering for its first BENCH_BESIDE seconds (default 12), then stops, so that (1) times the
 *    rendering of a node answering its users rather than of one whose two cores a load generator keeps busy (at
 *    nice 19 the rendering gets only what nice-0 processes leave: under a load that never stops, nothing).
 * 3. A tile served after the access check (bearer token) vs. @fastify/static serving the same bytes from a file,
 *    in the same run: requests/s and their ratio; and the 304 path (If-None-Match with the tile's ETag).
 * 4. The bytes a plan page at 390×844 transfers until its drawing shows (the viewer opened, the first tiles
 *    drawn, the network quiet): Chromium via playwright-core, every response's size summed.
 *
 * Writes bench/results/plans-<date>.json. Environment: BENCH_DURATION (s of each autocannon run, default 8),
 * BENCH_CONNECTIONS (default 10), BENCH_PAGES (default 50), BENCH_PROFILE=1 (the server under --cpu-prof,
 * profiles in data/bench/profiles/plans).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { chromium } from 'playwright-core';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { SCOPES } from '../src/domain/scopes.js';
import { generateToken } from '../src/domain/token-format.js';
import { importFixture } from '../src/features/fixtures/import.service.js';
import { drawingPdf } from './lib/drawing-pdf.js';
import { drive, type LoadResult, rssMb, type ServerProcess } from './lib/load.js';
import { random } from './lib/random.js';
import { machine } from './lib/report.js';
import { startCeiling, startPunchlist } from './lib/servers.js';

const ROOT = resolve(new URL('..', import.meta.url).pathname);
const DIR = join(ROOT, 'data', 'bench', `plans-${process.pid}`);
const V1 = '/api/external/v1';
const PAGES = Number(process.env.BENCH_PAGES ?? 50);
const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const BESIDE = Number(process.env.BENCH_BESIDE ?? 12);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const PASSWORD = 'bench-password-1';
const ITEMS = 500;
const NOW = '2026-01-01T00:00:00.000Z';
const log = (line: string) => process.stderr.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function buildWorkspace(file: string): Promise<string> {
  const db = openDatabase(`sqlite:${file}`);
  await migrateToLatest(db.kysely);
  const token = generateToken();
  let id = 1000;
  await importFixture(
    db.kysely,
    db.dialect,
    {
      users: [
        { id: 1, email: 'admin@bench.test', name: 'Admin', role: 'admin', password: PASSWORD },
        { id: 2, email: 'manager@bench.test', name: 'Maria Manager', role: 'member', password: PASSWORD },
      ],
      projects: [
        {
          id: 1,
          name: 'Fit-out: plans bench',
          description: 'Bench project',
          deadline: '2026-12-31',
          members: [{ user_id: 2, role: 'manager', sections: null, checklists: null }],
          sections: Array.from({ length: 5 }, (_, s) => ({
            id: 10 + s,
            name: `Section ${s + 1}`,
            checklists: Array.from({ length: 5 }, (_, c) => ({
              id: 100 + s * 5 + c,
              name: `Checklist ${s + 1}.${c + 1}`,
              items: Array.from({ length: ITEMS / 25 }, () => {
                id++;
                return {
                  id,
                  text: `Check joint ${id}: fixings, seal and marking`,
                  status: 'pending',
                  priority: 'medium',
                  participants: [2],
                };
              }),
            })),
          })),
        },
      ],
      tokens: [{ id: 1, user_id: 2, name: 'bench', raw: token, scopes: [...SCOPES], expires_at: null, revoked_at: null }],
    },
    { now: () => new Date(NOW) },
  );
  await db.close();
  return token;
}

const itemsGet = (token: string) => {
  const rand = random(3);
  return () => ({ method: 'GET' as const, path: `${V1}/items/get.php?id=${1001 + Math.floor(rand() * ITEMS)}`, token });
};

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

function vmHwmMb(pid: number | undefined): number | null {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/** The server's child processes (a plan's rendering process renders outside it), from /proc. */
function childPids(pid: number | undefined): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

interface PlanListed {
  id: number;
  version: number;
}

async function listPlans(server: ServerProcess, token: string): Promise<PlanListed[]> {
  const url = `${server.url}${V1}/plans/list.php?project_id=1`;
  const headers = { authorization: `Bearer ${token}` };
  // A kept-alive connection the server has just closed: asked again on a new one.
  const res = await fetch(url, { headers }).catch(() => fetch(url, { headers, keepalive: false }));
  if (res.status !== 200) throw new Error(`plans/list answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { data: { plans: PlanListed[] } }).data.plans;
}

async function main() {
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  const file = join(DIR, 'punchlist.db');
  const loadBefore = loadavg().map((n) => Math.round(n * 100) / 100);
  const servers: ServerProcess[] = [];
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  try {
    let t = performance.now();
    const pdf = await drawingPdf(PAGES);
    const pdfPath = join(DIR, 'drawings.pdf');
    writeFileSync(pdfPath, pdf);
    log(`PDF: ${PAGES} A1 pages, ${(pdf.length / 1e6).toFixed(1)} MB, made in ${Math.round(performance.now() - t)} ms`);
    const token = await buildWorkspace(file);
    const server = await startPunchlist(file, process.env.BENCH_PROFILE ? 'plans' : undefined);
    servers.push(server);
    server.child.once('exit', (code, signal) => log(`punchlist exited: status ${code}, signal ${signal}`));
    const pid = server.child.pid;
    const idleRss = rssMb(pid);

    // items/get alone (after a warm-up).
    await drive({ url: server.url, connections: CONNECTIONS, durationSeconds: 2, next: itemsGet(token), pid });
    const alone = await drive({ url: server.url, connections: CONNECTIONS, durationSeconds: DURATION, next: itemsGet(token), pid });
    log(`items/get alone: p50 ${alone.latency_ms.p50} ms, p99 ${alone.latency_ms.p99} ms, ${alone.requests_per_s} req/s`);

    // 1 + 2: the upload through the web form until all plans are listed, items/get beside it for its first BESIDE s.
    const desk = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await desk.newPage();
    page.setDefaultTimeout(120_000);
    await page.goto(`${server.url}/login`);
    await page.getByLabel('Email').fill('manager@bench.test');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/projects');
    await page.goto(`${server.url}/projects/1/plans`);
    await page.locator('#plan-file').setInputFiles(pdfPath);
    await page.locator('#plan-name').fill('Levels');
    const rssBefore = rssMb(pid) ?? 0;
    let peak = rssBefore;
    // The node's whole memory: the server and its rendering process, summed at each sample; the latter's alone too.
    let peakWithChildren = rssBefore;
    let peakChildren = 0;
    const sampler = setInterval(() => {
      const server = rssMb(pid) ?? 0;
      const children = childPids(pid).reduce((n, child) => n + (rssMb(child) ?? 0), 0);
      peak = Math.max(peak, server);
      peakChildren = Math.max(peakChildren, children);
      peakWithChildren = Math.max(peakWithChildren, server + children);
    }, 100);
    t = performance.now();
    await page.getByRole('button', { name: 'Upload plan' }).click();
    await page.waitForURL('**/projects/1/plans?upload=*');
    const accepted = performance.now() - t;
    let plans: PlanListed[] = [];
    let finished = false;
    const watcher = (async () => {
      while ((plans = await listPlans(server, token)).length < PAGES) {
        if (performance.now() - t > 900_000) throw new Error(`only ${plans.length} plans after 15 min`);
        await sleep(250);
      }
      return performance.now() - t;
    })().finally(() => (finished = true));
    const loads: LoadResult[] = [];
    while (!finished && performance.now() - t < BESIDE * 1000)
      loads.push(await drive({ url: server.url, connections: CONNECTIONS, durationSeconds: 2, next: itemsGet(token), pid }));
    const renderedMs = await watcher;
    clearInterval(sampler);
    const during = merge(loads);
    const hwm = vmHwmMb(pid);
    log(
      `upload: accepted in ${Math.round(accepted)} ms, ${plans.length} plans listed after ${(renderedMs / 1000).toFixed(1)} s; ` +
        `server RSS ${rssBefore} MB before, peak ${peak} MB sampled, VmHWM ${hwm} MB; ` +
        `its rendering process's peak ${peakChildren} MB, server + rendering peak ${peakWithChildren} MB`,
    );
    log(
      `items/get during the upload's first ${BESIDE} s: p50 ${during.latency_ms.p50} ms, p99 ${during.latency_ms.p99} ms, ${during.requests_per_s} req/s ` +
        `(p99 ×${(during.latency_ms.p99 / alone.latency_ms.p99).toFixed(2)} of alone)`,
    );

    // 3: a full tile of the first plan's largest level, through the app and from @fastify/static.
    const plan = plans[0]!;
    const dzi = await (
      await fetch(`${server.url}/api/plans/tiles/${plan.id}/${plan.version}/sheet.dzi`, { headers: { authorization: `Bearer ${token}` } })
    ).text();
    const w = Number(/Width="(\d+)"/.exec(dzi)?.[1]);
    const h = Number(/Height="(\d+)"/.exec(dzi)?.[1]);
    const level = Math.ceil(Math.log2(Math.max(w, h)));
    const tilePath = `/api/plans/tiles/${plan.id}/${plan.version}/sheet_files/${level}/1_1.webp`;
    const tileRes = await fetch(server.url + tilePath, { headers: { authorization: `Bearer ${token}` } });
    if (tileRes.status !== 200) throw new Error(`tile answered ${tileRes.status}`);
    const tile = Buffer.from(await tileRes.arrayBuffer());
    const etag = tileRes.headers.get('etag') ?? '';
    const staticDir = join(DIR, 'static');
    mkdirSync(staticDir, { recursive: true });
    writeFileSync(join(staticDir, 'tile.webp'), tile);
    const ceiling = await startCeiling('static', staticDir);
    servers.push(ceiling);
    const tileGet =
      (headers: Record<string, string> = {}) =>
      () => ({ method: 'GET' as const, path: tilePath, token, headers });
    await drive({ url: server.url, connections: CONNECTIONS, durationSeconds: 2, next: tileGet(), pid });
    await drive({
      url: ceiling.url,
      connections: CONNECTIONS,
      durationSeconds: 2,
      next: () => ({ method: 'GET' as const, path: '/tile.webp' }),
    });
    const tiles = await drive({ url: server.url, connections: CONNECTIONS, durationSeconds: DURATION, next: tileGet(), pid });
    const fastifyStatic = await drive({
      url: ceiling.url,
      connections: CONNECTIONS,
      durationSeconds: DURATION,
      next: () => ({ method: 'GET' as const, path: '/tile.webp' }),
      pid: ceiling.child.pid,
    });
    const notModified = await drive({
      url: server.url,
      connections: CONNECTIONS,
      durationSeconds: DURATION,
      next: tileGet({ 'if-none-match': etag }),
      pid,
    });
    log(
      `tile (${tile.length} B): app ${tiles.requests_per_s} req/s (p99 ${tiles.latency_ms.p99} ms), @fastify/static ${fastifyStatic.requests_per_s} req/s ` +
        `(p99 ${fastifyStatic.latency_ms.p99} ms): ratio ${(tiles.requests_per_s / fastifyStatic.requests_per_s).toFixed(2)}; ` +
        `304 path ${notModified.requests_per_s} req/s (non-2xx counted: ${notModified.non_2xx})`,
    );

    // 4: the plan page at 390×844, signed in (the desk context's cookies), bytes until the drawing shows.
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 3,
      isMobile: true,
      hasTouch: true,
      storageState: await desk.storageState(),
    });
    const phonePage = await phone.newPage();
    phonePage.setDefaultTimeout(60_000);
    const responses: Array<{ url: string; bytes: number }> = [];
    let counting = true;
    phone.on('requestfinished', (request) => {
      if (!counting) return;
      void request.sizes().then((s) => responses.push({ url: request.url(), bytes: s.responseBodySize + s.responseHeadersSize }));
    });
    await phonePage.goto(`${server.url}/plans/${plan.id}`);
    await phonePage.locator('[data-testid="plan-view"][data-ready="true"]').waitFor();
    await phonePage.locator('[data-plan-fallback]').waitFor({ state: 'hidden' });
    await phonePage.waitForLoadState('networkidle');
    counting = false;
    await sleep(200);
    const bytes = responses.reduce((n, r) => n + r.bytes, 0);
    const byKind = (test: (url: string) => boolean) => responses.filter((r) => test(r.url)).reduce((n, r) => n + r.bytes, 0);
    const transfer = {
      total_bytes: bytes,
      responses: responses.length,
      tiles_bytes: byKind((u) => u.includes('/sheet_files/')),
      tiles: responses.filter((r) => r.url.includes('/sheet_files/')).length,
      scripts_bytes: byKind((u) => u.endsWith('.js') || u.includes('.js?')),
      css_bytes: byKind((u) => u.includes('.css')),
    };
    log(
      `plan page at 390×844: ${(bytes / 1e6).toFixed(2)} MB in ${responses.length} responses ` +
        `(tiles ${transfer.tiles}: ${(transfer.tiles_bytes / 1e3).toFixed(0)} kB, scripts ${(transfer.scripts_bytes / 1e3).toFixed(0)} kB, ` +
        `CSS ${(transfer.css_bytes / 1e3).toFixed(0)} kB)`,
    );

    const result = {
      date: new Date().toISOString(),
      machine: machine(),
      load_average_before: loadBefore,
      load_average_after: loadavg().map((n) => Math.round(n * 100) / 100),
      pdf: { pages: PAGES, size: 'A1', bytes: pdf.length },
      connections: CONNECTIONS,
      server_rss_mb_idle: idleRss,
      upload: {
        accepted_ms: Math.round(accepted),
        all_plans_listed_ms: Math.round(renderedMs),
        server_rss_mb_before: rssBefore,
        server_rss_mb_peak_sampled: peak,
        server_vm_hwm_mb: hwm,
        rendering_process_rss_mb_peak_sampled: peakChildren,
        server_and_rendering_rss_mb_peak_sampled: peakWithChildren,
      },
      items_get_alone: alone,
      items_get_during_upload: during,
      items_get_beside_seconds: BESIDE,
      items_get_p99_ratio: Math.round((during.latency_ms.p99 / alone.latency_ms.p99) * 100) / 100,
      tile: { bytes: tile.length, level, app: tiles, fastify_static: fastifyStatic, not_modified: notModified },
      tile_rate_ratio: Math.round((tiles.requests_per_s / fastifyStatic.requests_per_s) * 100) / 100,
      plan_page_390: { ...transfer, list: responses },
      targets: {
        all_plans_listed_ms: 120_000,
        server_rss_mb: 500,
        items_get_p99_ratio: 4,
        tile_rate_ratio: 0.5,
        plan_page_bytes: 1_500_000,
      },
    };
    mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
    const out = join(ROOT, 'bench', 'results', `plans-${result.date.slice(0, 10)}.json`);
    writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
    log(`written ${out}`);
  } finally {
    await browser.close();
    for (const s of servers.reverse()) await s.stop();
    rmSync(DIR, { recursive: true, force: true });
  }
}

await main();
