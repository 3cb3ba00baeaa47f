/**
 * Load benchmark of external API v1 (issue 6). Not part of `npm test`.
 *
 *   npm run bench
 *
 * 1. Builds (or reuses, from data/bench/) a large workspace through `importFixture` (bench/lib/workspace.ts).
 * 2. Starts the server as a child process in production mode (`dist/src/main.js` built by scripts/build.mjs, as `npm start` runs it; no --demo,
 *    NODE_ENV=production, LOG_LEVEL=warn, RATE_LIMIT_PER_MINUTE=0) on a copy of that database.
 * 3. Drives it with autocannon, one scenario at a time (warm-up, then the measured run), and measures the
 *    ceilings of the same run: a bare Fastify server and a bare node:http server, child processes too.
 * 4. Writes bench/results/<date>.json and .svg, prints the Markdown table and puts it in docs/performance.md.
 *
 * Environment: BENCH_DURATION (s, default 10), BENCH_WARMUP (s, default 3), BENCH_CONNECTIONS (50), BENCH_SLOW_DURATION
 * (s, default 30: the measured run of the web's project page, alone and beside trees),
 * BENCH_ONLY (scenario names separated by commas without a space after them), BENCH_FRESH=1 (rebuild the cached workspace),
 * BENCH_PROFILE=1 (a fresh server per scenario started with --cpu-prof; profiles in data/bench/profiles/<scenario>/,
 * the largest file is the main thread's; summarise with `node --import tsx bench/profile-top.ts FILE`), BENCH_NO_DOCS=1 (leave docs/ alone).
 *
 * BENCH_METRICS=1 measures only what /metrics costs the hot path: items/get against a server with METRICS=off
 * and one with METRICS=on (scraped once a second meanwhile), alternating BENCH_METRICS_ROUNDS times (default 3);
 * it prints the figures and writes bench/results/metrics-<date>.json, nothing else.
 *
 * BENCH_NOTIFICATIONS=1 measures what notifications cost a status change and a comment: each scenario against
 * a server with NOTIFICATIONS=off and one with it on (each on its own copy of the workspace), alternating
 * BENCH_NOTIFICATIONS_ROUNDS times (default 3); it prints the ratios and writes bench/results/notifications-<date>.json.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { type BenchActor, type BenchWorkspace, copyOfWorkspace, SEARCH_QUERIES, SHAPE, webSession } from './lib/workspace.js';
import { drive, eventLoopDelay, type LoadResult, median, type RequestSpec, type ServerProcess, waitUntilIdle } from './lib/load.js';
import { startCeiling, startPunchlist } from './lib/servers.js';
import { random } from './lib/random.js';
import {
  budgetTable,
  machine,
  markdownTable,
  ratioChart,
  type ScenarioResult,
  singleConnectionTable,
  type Target,
  targetsTable,
} from './lib/report.js';

const ROOT = resolve(new URL('..', import.meta.url).pathname);
const DATA = join(ROOT, 'data', 'bench');
const V1 = '/api/external/v1';
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
/** The measured run of a page that takes tens of milliseconds (the web's project page): enough samples for a p99. */
const SLOW_DURATION = Number(process.env.BENCH_SLOW_DURATION ?? 30);
const SINGLE_DURATION = Number(process.env.BENCH_SINGLE_DURATION ?? 5);
const CEILING_DURATION = Number(process.env.BENCH_CEILING_DURATION ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(/,(?! )/).map((s) => s.trim())) : null;
const PROFILE = process.env.BENCH_PROFILE === '1';
const METRICS_ROUNDS = process.env.BENCH_METRICS === '1' ? Number(process.env.BENCH_METRICS_ROUNDS ?? 3) : 0;
const NOTIFICATION_ROUNDS = process.env.BENCH_NOTIFICATIONS === '1' ? Number(process.env.BENCH_NOTIFICATIONS_ROUNDS ?? 3) : 0;

const log = (line: string) => process.stdout.write(`${line}\n`);

// ---------------------------------------------------------------------------------------------------
// Workspace: built once per generator version, copied for every run (write scenarios change it).

async function workspace(): Promise<{ file: string; meta: BenchWorkspace }> {
  const file = join(DATA, `run-${process.pid}`, 'punchlist.db');
  return { file, meta: await copyOfWorkspace(DATA, file, log) };
}

// ---------------------------------------------------------------------------------------------------
// Scenarios

interface Scenario {
  name: string;
  description: string;
  next: () => RequestSpec;
  /**
   * Also measured with one connection: the latency of one request when nothing queues before it. At 50
   * connections a response of ~1 MB (the 5 000-item tree) or a search can only show the queue.
   */
  single?: boolean;
  /** Connections of the measured load (default BENCH_CONNECTIONS). */
  connections?: number;
  /**
   * A page that takes a worker thread tens of milliseconds: warmed up over the measured connections, not
   * BENCH_CONNECTIONS (50 connections of them would leave a queue that the measured run waits behind), and measured
   * for longer (seconds), to have enough samples for a p99.
   */
  slow?: { durationSeconds: number };
  /** Load driven at the same time on other connections, not measured: the heavy requests of other users. */
  beside?: { connections: number; next: () => RequestSpec };
}

function scenarios(meta: BenchWorkspace, searchWired: boolean, webCookie = ''): Scenario[] {
  const rand = random(7);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const actor = (key: string) => meta.actors.find((a) => a.key === key)!;
  const admin = actor('admin');
  const itemOf = (a: BenchActor) => {
    const [from, to] = pick(a.visibleItems);
    return from + Math.floor(rand() * (to - from + 1));
  };
  const readers = ['admin', 'manager', 'executor-partial', 'observer'].map(actor);
  const statuses = ['pending', 'in_progress', 'done', 'blocked'] as const;
  let comment = 0;
  const itemGet = (a: BenchActor): RequestSpec => ({ method: 'GET', path: `${V1}/items/get.php?id=${itemOf(a)}`, token: a.token });
  const setStatus = (a: BenchActor): RequestSpec => ({
    method: 'PATCH',
    path: `${V1}/items/status.php`,
    token: a.token,
    body: { id: itemOf(a), status: pick(statuses) },
  });
  const addComment = (a: BenchActor): RequestSpec => ({
    method: 'POST',
    path: `${V1}/comments/create.php`,
    token: a.token,
    body: { item_id: itemOf(a), text: `Замечание нагрузочного теста ${++comment}: проверить крепление кабеля` },
  });
  const search = (a: BenchActor, projectId: number, q: string): RequestSpec => ({
    method: 'GET',
    path: `${V1}/projects/search.php?id=${projectId}&q=${encodeURIComponent(q)}`,
    token: a.token,
  });
  // Trees are loaded as HTTP clients do (fetch, browsers, requests: gzip accepted); one scenario keeps a client that
  // does not accept it, beside which the answer's megabyte is copied into the socket (docs/performance.md).
  const treeOf = (gzip: boolean): RequestSpec => ({
    method: 'GET',
    path: `${V1}/projects/tree.php?id=${meta.bigProjectId}`,
    token: admin.token,
    headers: gzip ? { 'accept-encoding': 'gzip, deflate, br' } : {},
  });
  const bigTree = treeOf(true);
  let pages = 0;
  /** The web's project page, every other one filtered by a word of its texts (the text filter of issue 41). */
  const projectPage = (): RequestSpec => ({
    method: 'GET',
    path: `/projects/${meta.bigProjectId}${++pages % 2 ? '' : `?q=${encodeURIComponent(SEARCH_QUERIES.selective)}`}`,
    headers: { cookie: `punchlist_session=${webCookie}` },
  });
  let changing = 0;
  /** The project whose items the actor sees (admins: any). */
  const projectOf = (a: BenchActor) =>
    a.key.startsWith('admin') ? 1 + Math.floor(rand() * SHAPE.projects) : a.key === 'manager-2' ? 2 : 1;

  const list: Scenario[] = [
    {
      name: 'auth/me',
      description: 'GET auth/me, 6 tokens in turn',
      next: () => ({ method: 'GET', path: `${V1}/auth/me.php`, token: pick(meta.actors).token }),
    },
    {
      name: 'items/get',
      description: 'GET items/get of random visible items, 4 users (admin, manager, partial executor, observer)',
      single: true,
      next: () => itemGet(pick(readers)),
    },
    // Issue 31: one user's heavy request must not show in another's latency. Each tree of the "changing"
    // variant follows a status change in the project, so none is answered from the cache.
    {
      name: 'items/get, 10 connections',
      description: 'items/get as above, 10 connections',
      connections: 10,
      next: () => itemGet(pick(readers)),
    },
    {
      name: 'items/get beside trees',
      description: 'items/get over 10 connections while 4 more load the 5 000-item tree (admin, gzip accepted)',
      connections: 10,
      next: () => itemGet(pick(readers)),
      beside: { connections: 4, next: () => bigTree },
    },
    {
      name: 'items/get beside trees without gzip',
      description: 'the same, the 4 tree connections not accepting gzip',
      connections: 10,
      next: () => itemGet(pick(readers)),
      beside: { connections: 4, next: () => treeOf(false) },
    },
    {
      name: 'items/get beside web project pages',
      description: "items/get over 10 connections while 4 more open the web's page of the 5 000-item project (admin, signed in)",
      connections: 10,
      next: () => itemGet(pick(readers)),
      beside: {
        connections: 4,
        next: () => ({ method: 'GET', path: `/projects/${meta.bigProjectId}`, headers: { cookie: `punchlist_session=${webCookie}` } }),
      },
    },
    // Issue 41: the web's project page (its tree built and filtered in the worker pool) beside other users' trees.
    {
      name: 'web project page, 2 connections',
      description: "the web's page of the 5 000-item project, plain and with a text filter in turn (admin, signed in), 2 connections",
      connections: 2,
      slow: { durationSeconds: SLOW_DURATION },
      next: () => projectPage(),
    },
    {
      name: 'web project page beside trees',
      description: 'the same page over 2 connections while 4 more load the 5 000-item tree (admin, gzip accepted)',
      connections: 2,
      slow: { durationSeconds: SLOW_DURATION },
      next: () => projectPage(),
      beside: { connections: 4, next: () => bigTree },
    },
    {
      name: 'web project page beside changing trees',
      description: 'the same page over 2 connections while 4 more change a status in the project and load its tree, in turn',
      connections: 2,
      slow: { durationSeconds: SLOW_DURATION },
      next: () => projectPage(),
      beside: { connections: 4, next: () => (++changing % 2 ? bigTree : setStatus(actor('manager'))) },
    },
    {
      name: 'items/get beside changing trees',
      description: 'items/get over 10 connections while 4 more change a status in the 5 000-item project and load its tree, in turn',
      connections: 10,
      next: () => itemGet(pick(readers)),
      beside: { connections: 4, next: () => (++changing % 2 ? bigTree : setStatus(actor('manager'))) },
    },
    {
      name: 'projects/tree',
      description: `GET projects/tree of the 5 000-item project (admin)`,
      single: true,
      next: () => bigTree,
    },
  ];
  if (searchWired) {
    list.push(
      {
        name: 'projects/search selective',
        description: `GET projects/search q="${SEARCH_QUERIES.selective}" (a few hits) in the 5 000-item project`,
        single: true,
        next: () => search(admin, meta.bigProjectId, SEARCH_QUERIES.selective),
      },
      {
        name: 'projects/search broad',
        description: `GET projects/search q="${SEARCH_QUERIES.broad}" (~10 % of texts) in the 5 000-item project`,
        single: true,
        next: () => search(admin, meta.bigProjectId, SEARCH_QUERIES.broad),
      },
      {
        name: 'projects/search broad (manager)',
        description: `the broad search as a manager of the project`,
        single: true,
        next: () => search(actor('manager'), meta.bigProjectId, SEARCH_QUERIES.broad),
      },
      {
        name: 'projects/search broad (partial access)',
        description: `the broad search as an executor who sees one section of the project`,
        single: true,
        next: () => search(actor('executor-partial'), meta.bigProjectId, SEARCH_QUERIES.broad),
      },
    );
  }
  list.push(
    { name: 'PATCH items/status', description: 'PATCH items/status of random items (admin), random status', next: () => setStatus(admin) },
    { name: 'POST comments/create', description: 'POST comments/create on random items (admin)', next: () => addComment(admin) },
    {
      name: 'mixed',
      description:
        'several users and tokens: 40 % items/get, 10 % auth/me, 10 % projects/get, 5 % projects/list, 5 % small tree, 5 % search, 15 % status, 15 % comments',
      next: () => {
        const a = pick(meta.actors);
        const r = rand() * 100;
        if (r < 40) return itemGet(a);
        if (r < 50) return { method: 'GET', path: `${V1}/auth/me.php`, token: a.token };
        if (r < 60) return { method: 'GET', path: `${V1}/projects/get.php?id=${projectOf(a)}`, token: a.token };
        if (r < 65) return { method: 'GET', path: `${V1}/projects/list.php?limit=20`, token: a.token };
        if (r < 70) {
          // Trees of the small projects only: the 5 000-item tree has its own scenario.
          const projectId = a.key.startsWith('admin') ? 2 + Math.floor(rand() * (SHAPE.projects - 1)) : a.key === 'manager-2' ? 2 : null;
          return projectId ? { method: 'GET', path: `${V1}/projects/tree.php?id=${projectId}`, token: a.token } : itemGet(a);
        }
        if (r < 75) return searchWired ? search(a, projectOf(a), SEARCH_QUERIES.selective) : itemGet(a);
        if (r < 90) return a.canSetStatus ? setStatus(a) : addComment(a);
        return addComment(a);
      },
    },
  );
  return list;
}

// ---------------------------------------------------------------------------------------------------
// Servers

/** One measurement of a ceiling server (it stays up, idle, between measurements). */
async function measureCeiling(server: ServerProcess, durationSeconds: number): Promise<LoadResult> {
  const next = (): RequestSpec => ({ method: 'GET', path: '/' });
  await drive({ url: server.url, connections: CONNECTIONS, durationSeconds: 1, next });
  return drive({ url: server.url, connections: CONNECTIONS, durationSeconds, next, pid: server.child.pid });
}

async function searchIsWired(server: ServerProcess, token: string): Promise<boolean> {
  const response = await fetch(`${server.url}${V1}/projects/search.php?id=1&q=${encodeURIComponent(SEARCH_QUERIES.selective)}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await response.json()) as { ok?: boolean; error?: { code?: string } };
  if (response.status === 200 && body.ok) return true;
  log(`  projects/search answered ${response.status} ${body.error?.code ?? ''}: the endpoint is not wired yet, its scenarios are skipped`);
  return false;
}

// ---------------------------------------------------------------------------------------------------

/** Issues 16 and 31 (docs/design.md §10): ratios to the run's Fastify ceiling (the median of its measurements). */
const TARGETS = { 'items/get': 0.25, 'auth/me': 0.5, 'PATCH items/status': 0.2, 'POST comments/create': 0.15 };

function checkTargets(results: ScenarioResult[]): Target[] {
  const by = (name: string) => results.find((r) => r.name === name);
  const targets: Target[] = [];
  for (const [name, limit] of Object.entries(TARGETS)) {
    const r = by(name);
    targets.push({
      scenario: name,
      what: 'ratio to Fastify',
      limit: `≥ ${limit}`,
      value: r?.ratio ?? null,
      pass: r?.ratio == null ? null : r.ratio >= limit,
    });
    targets.push({
      scenario: name,
      what: 'p99 ms',
      limit: '≤ 15',
      value: r?.latency_ms.p99 ?? null,
      pass: r ? r.latency_ms.p99 <= 15 : null,
    });
  }
  // No commit stall: the writes' slowest thousandth.
  for (const name of ['PATCH items/status', 'POST comments/create']) {
    const r = by(name);
    targets.push({
      scenario: name,
      what: 'p99.9 ms',
      limit: '≤ 30',
      value: r?.latency_ms.p99_9 ?? null,
      pass: r ? r.latency_ms.p99_9 <= 30 : null,
    });
  }
  // One connection: what one request costs; 50 connections: the same figure with the queue in front of it.
  // Over one connection: what one request costs with nothing queued before it.
  const latency = (scenario: string, label: string, p: 'p50' | 'p95', limit: number) => {
    const value = by(scenario)?.single?.latency_ms[p];
    targets.push({
      scenario: label,
      what: `${p} ms, 1 connection`,
      limit: `≤ ${limit}`,
      value: value ?? null,
      pass: value === undefined ? null : value <= limit,
    });
  };
  latency('projects/tree', 'projects/tree (5 000 items, warm)', 'p50', 15);
  /** Isolation: each scenario's p99 at most 4 × the p99 of `aloneName`. */
  const isolation = (aloneName: string, names: readonly string[]) => {
    const alone = by(aloneName)?.latency_ms.p99;
    for (const name of names) {
      const value = by(name)?.latency_ms.p99;
      const ratio = value === undefined || !alone ? null : Math.round((value / alone) * 10) / 10;
      targets.push({ scenario: name, what: 'p99 ÷ p99 alone', limit: '≤ 4', value: ratio, pass: ratio === null ? null : ratio <= 4 });
    }
  };
  // Issue 31: items/get's p99 beside other users' trees at most 4 × its p99 alone.
  isolation('items/get, 10 connections', [
    'items/get beside trees',
    'items/get beside trees without gzip',
    'items/get beside web project pages',
    'items/get beside changing trees',
  ]);
  // Issue 41: the web's project page beside 4 clients loading 5 000-item trees keeps its p99 within 4 × alone.
  isolation('web project page, 2 connections', ['web project page beside trees', 'web project page beside changing trees']);
  latency('projects/search selective', 'projects/search selective', 'p95', 5);
  latency('projects/search broad (manager)', 'projects/search broad (manager)', 'p95', 50);
  latency('projects/search broad (partial access)', 'projects/search broad (partial access)', 'p95', 50);
  const punchlist = results.filter((r) => r.ratio !== null);
  const last = punchlist[punchlist.length - 1];
  targets.push({
    scenario: 'server',
    what: 'RSS MB at the end',
    limit: '≤ 300',
    value: last?.rss_mb_end ?? null,
    pass: last?.rss_mb_end == null ? null : last.rss_mb_end <= 300,
  });
  const failures = punchlist.reduce((n, r) => n + r.errors + r.timeouts + r.non_2xx, 0);
  targets.push({ scenario: 'all scenarios', what: 'errors + timeouts + non-2xx', limit: '0', value: failures, pass: failures === 0 });
  return targets;
}

function updateDocs(section: string) {
  const file = join(ROOT, 'docs/performance.md');
  const begin = '<!-- bench:results:begin -->';
  const end = '<!-- bench:results:end -->';
  const text = existsSync(file) ? readFileSync(file, 'utf8') : `# Performance\n\n${begin}\n${end}\n`;
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from < 0 || to < from) {
    log('docs/performance.md has no results markers: left unchanged');
    return;
  }
  writeFileSync(file, `${text.slice(0, from + begin.length)}\n${section}\n${text.slice(to)}`);
}

/**
 * items/get with and without the metrics, on the same database, in alternating rounds so that the
 * machine's other load falls on both alike. The metrics server is scraped once a second, as a Prometheus
 * with a short interval would.
 */
async function compareMetrics(file: string, meta: BenchWorkspace) {
  const items = scenarios(meta, false).find((s) => s.name === 'items/get')!;
  const servers = { off: await startPunchlist(file, undefined, 'off'), on: await startPunchlist(file, undefined, 'on') };
  const runs: Record<'off' | 'on', LoadResult[]> = { off: [], on: [] };
  try {
    for (let round = 1; round <= METRICS_ROUNDS; round++) {
      // Alternating which goes first: the second of a pair tends to meet a warmer (or busier) machine.
      for (const mode of round % 2 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
        const server = servers[mode];
        await drive({ url: server.url, connections: CONNECTIONS, durationSeconds: WARMUP, next: items.next });
        await waitUntilIdle(server.url + '/healthz');
        const scraper = mode === 'on' ? setInterval(() => void fetch(`${server.url}/metrics`).then((r) => r.text()), 1000) : undefined;
        const result = await drive({
          url: server.url,
          connections: CONNECTIONS,
          durationSeconds: DURATION,
          next: items.next,
          pid: server.child.pid,
        });
        clearInterval(scraper);
        runs[mode].push(result);
        log(
          `round ${round}, metrics ${mode}: ${result.requests_per_s} req/s, p50 ${result.latency_ms.p50} ms, p99 ${result.latency_ms.p99} ms, ` +
            `server CPU ${result.server_cpu_us_per_request} µs/request, non-2xx ${result.non_2xx}, errors ${result.errors + result.timeouts}`,
        );
      }
    }
  } finally {
    await Promise.all([servers.off.stop(), servers.on.stop()]);
  }
  const mean = (list: LoadResult[], pick: (r: LoadResult) => number | null) =>
    Math.round((list.reduce((n, r) => n + (pick(r) ?? 0), 0) / list.length) * 100) / 100;
  const summary = Object.fromEntries(
    (['off', 'on'] as const).map((mode) => [
      mode,
      {
        requests_per_s: mean(runs[mode], (r) => r.requests_per_s),
        p50_ms: mean(runs[mode], (r) => r.latency_ms.p50),
        p99_ms: mean(runs[mode], (r) => r.latency_ms.p99),
        server_cpu_us_per_request: mean(runs[mode], (r) => r.server_cpu_us_per_request),
      },
    ]),
  );
  log(`\nitems/get, mean of ${METRICS_ROUNDS} rounds of ${DURATION} s at ${CONNECTIONS} connections: ${JSON.stringify(summary)}`);
  const out = join(ROOT, 'bench/results');
  mkdirSync(out, { recursive: true });
  const date = new Date().toISOString();
  writeFileSync(
    join(out, `metrics-${date.slice(0, 10)}.json`),
    JSON.stringify(
      {
        date,
        command: 'BENCH_METRICS=1 npm run bench',
        machine: machine(),
        load_average_after: loadavg(),
        settings: { connections: CONNECTIONS, duration_s: DURATION, warmup_s: WARMUP, rounds: METRICS_ROUNDS },
        summary,
        runs,
      },
      null,
      2,
    ) + '\n',
  );
}

/**
 * PATCH items/status and POST comments/create with notifications off and on (each server on its own copy of
 * the workspace), in alternating rounds so that the machine's other load falls on both alike. Emails are not
 * sent (no SMTP_URL): what is measured is the events → notifications work beside the writes.
 */
async function compareNotifications(meta: BenchWorkspace, files: Record<'off' | 'on', string>) {
  const wanted = ['PATCH items/status', 'POST comments/create'].filter((name) => !ONLY || ONLY.has(name));
  const chosen = scenarios(meta, false).filter((s) => wanted.includes(s.name));
  // BENCH_PROFILE=1: each server under --cpu-prof (data/bench/profiles/notifications-off|on/), for bench/profile-top.ts.
  const servers = {
    off: await startPunchlist(files.off, PROFILE ? 'notifications-off' : undefined, 'on', 'off'),
    on: await startPunchlist(files.on, PROFILE ? 'notifications-on' : undefined, 'on', 'on'),
  };
  const runs: Record<string, Record<'off' | 'on', LoadResult[]>> = {};
  try {
    for (const scenario of chosen) {
      runs[scenario.name] = { off: [], on: [] };
      for (let round = 1; round <= NOTIFICATION_ROUNDS; round++) {
        for (const mode of round % 2 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
          const server = servers[mode];
          await drive({ url: server.url, connections: CONNECTIONS, durationSeconds: WARMUP, next: scenario.next });
          await waitUntilIdle(server.url + '/healthz');
          const result = await drive({
            url: server.url,
            connections: CONNECTIONS,
            durationSeconds: DURATION,
            next: scenario.next,
            pid: server.child.pid,
          });
          runs[scenario.name]![mode].push(result);
          log(
            `${scenario.name}, round ${round}, notifications ${mode}: ${result.requests_per_s} req/s, p50 ${result.latency_ms.p50} ms, ` +
              `p99 ${result.latency_ms.p99} ms, server CPU ${result.server_cpu_us_per_request} µs/request, non-2xx ${result.non_2xx}`,
          );
        }
      }
    }
  } finally {
    await Promise.all([servers.off.stop(), servers.on.stop()]);
  }
  const mean = (list: LoadResult[], pick: (r: LoadResult) => number | null) =>
    Math.round((list.reduce((n, r) => n + (pick(r) ?? 0), 0) / list.length) * 100) / 100;
  const summary = Object.fromEntries(
    Object.entries(runs).map(([name, byMode]) => {
      const of = (mode: 'off' | 'on') => ({
        requests_per_s: mean(byMode[mode], (r) => r.requests_per_s),
        p50_ms: mean(byMode[mode], (r) => r.latency_ms.p50),
        p99_ms: mean(byMode[mode], (r) => r.latency_ms.p99),
        server_cpu_us_per_request: mean(byMode[mode], (r) => r.server_cpu_us_per_request),
      });
      const off = of('off');
      const on = of('on');
      const ratio = {
        cpu_per_request: Math.round((on.server_cpu_us_per_request / off.server_cpu_us_per_request) * 1000) / 1000,
        requests_per_s: Math.round((on.requests_per_s / off.requests_per_s) * 1000) / 1000,
      };
      return [name, { off, on, ratio }];
    }),
  );
  log(`\nnotifications off → on, mean of ${NOTIFICATION_ROUNDS} rounds of ${DURATION} s at ${CONNECTIONS} connections:`);
  for (const [name, s] of Object.entries(summary)) log(`  ${name}: ${JSON.stringify(s)}`);
  const out = join(ROOT, 'bench/results');
  mkdirSync(out, { recursive: true });
  const date = new Date().toISOString();
  writeFileSync(
    join(out, `notifications-${date.slice(0, 10)}.json`),
    JSON.stringify(
      {
        date,
        command: 'BENCH_NOTIFICATIONS=1 npm run bench',
        machine: machine(),
        load_average_after: loadavg(),
        settings: { connections: CONNECTIONS, duration_s: DURATION, warmup_s: WARMUP, rounds: NOTIFICATION_ROUNDS },
        summary,
        runs,
      },
      null,
      2,
    ) + '\n',
  );
}

async function main() {
  const startedAt = new Date();
  log(
    `machine: ${JSON.stringify(machine())}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const { file, meta } = await workspace();
  if (NOTIFICATION_ROUNDS > 0) {
    const second = join(DATA, `run-${process.pid}-on`, 'punchlist.db');
    await copyOfWorkspace(DATA, second, log);
    try {
      return await compareNotifications(meta, { off: file, on: second });
    } finally {
      rmSync(join(file, '..'), { recursive: true, force: true });
      rmSync(join(second, '..'), { recursive: true, force: true });
    }
  }
  if (METRICS_ROUNDS > 0) {
    try {
      return await compareMetrics(file, meta);
    } finally {
      rmSync(join(file, '..'), { recursive: true, force: true });
    }
  }
  const wanted = (name: string) => !ONLY || ONLY.has(name) || [...ONLY].some((o) => name.startsWith(o));
  const results: ScenarioResult[] = [];
  const children: ServerProcess[] = [];
  const stopAll = () => Promise.all(children.map((c) => c.stop()));
  process.once('SIGINT', () => void stopAll().then(() => process.exit(130)));
  const loadBefore = loadavg();
  try {
    // The ceilings run as child processes for the whole run. The machine is shared (and has 2 cores): the
    // Fastify ceiling is measured right before every scenario, and the ratios divide by the median of those
    // measurements (one of 5 s moves by ±30 % on this machine: bench:ladder, docs/performance.md).
    const fastifyServer = await startCeiling('fastify');
    children.push(fastifyServer);
    const httpServer = await startCeiling('http');
    children.push(httpServer);
    const httpCeiling = await measureCeiling(httpServer, DURATION);
    log(
      `ceiling: bare node:http: ${httpCeiling.requests_per_s} req/s, p50 ${httpCeiling.latency_ms.p50} ms, p99 ${httpCeiling.latency_ms.p99} ms`,
    );
    await httpServer.stop();

    let server = await startPunchlist(file, PROFILE ? 'probe' : undefined);
    children.push(server);
    const wired = await searchIsWired(server, meta.actors[0]!.token);
    const list = scenarios(meta, wired, await webSession(file, meta)).filter((s) => wanted(s.name));
    const punchlist: ScenarioResult[] = [];
    const ceilings: LoadResult[] = [];
    for (const scenario of list) {
      if (PROFILE) {
        await server.stop();
        server = await startPunchlist(file, scenario.name.replace(/[^a-z0-9]+/gi, '-').toLowerCase());
        children.push(server);
      }
      log(`${scenario.name}: ${scenario.description}`);
      const ceiling = await measureCeiling(fastifyServer, CEILING_DURATION);
      ceilings.push(ceiling);
      const health = server.url + '/healthz';
      const connections = scenario.connections ?? CONNECTIONS;
      const duration = scenario.slow?.durationSeconds ?? DURATION;
      await drive({
        url: server.url,
        connections: scenario.slow ? connections : CONNECTIONS,
        durationSeconds: WARMUP,
        next: scenario.next,
      });
      await waitUntilIdle(health);
      await eventLoopDelay(server.url);
      const beside = scenario.beside && drive({ url: server.url, durationSeconds: duration, ...scenario.beside });
      const result = await drive({
        url: server.url,
        connections,
        durationSeconds: duration,
        next: scenario.next,
        pid: server.child.pid,
      });
      if (beside) result.beside = await beside;
      result.event_loop = await eventLoopDelay(server.url);
      const drainMs = await waitUntilIdle(health);
      log(
        `  ${result.requests_per_s} req/s (Fastify ceiling just before: ${ceiling.requests_per_s}), p50 ${result.latency_ms.p50} ms, ` +
          `p95 ${result.latency_ms.p95} ms, p99 ${result.latency_ms.p99} ms, p99.9 ${result.latency_ms.p99_9} ms, server CPU ${result.server_cpu_us_per_request} µs/request, RSS ${result.rss_mb_end} MB, ` +
          `event loop delay p99 ${result.event_loop?.p99_ms ?? '–'} ms, max ${result.event_loop?.max_ms ?? '–'} ms, ` +
          `errors ${result.errors + result.timeouts}, non-2xx ${result.non_2xx} ${JSON.stringify(result.status_codes)}` +
          (drainMs > 500 ? `; the server needed ${drainMs} ms more to answer what was still queued` : ''),
      );
      let single: LoadResult | undefined;
      if (scenario.single) {
        single = await drive({ url: server.url, connections: 1, durationSeconds: SINGLE_DURATION, next: scenario.next });
        await waitUntilIdle(health);
        log(
          `  1 connection: ${single.requests_per_s} req/s, p50 ${single.latency_ms.p50} ms, p95 ${single.latency_ms.p95} ms, p99 ${single.latency_ms.p99} ms`,
        );
      }
      punchlist.push({
        name: scenario.name,
        description: scenario.description,
        ...result,
        ratio: null,
        ceiling_rps: ceiling.requests_per_s,
        drain_ms: drainMs,
        single,
      });
    }
    await server.stop();
    await fastifyServer.stop();

    const fastifyRps = Math.round(median(ceilings.map((c) => c.requests_per_s)));
    for (const r of punchlist) r.ratio = Math.round((r.requests_per_s / fastifyRps) * 1000) / 1000;
    const best = ceilings.reduce<LoadResult | undefined>((a, c) => (!a || c.requests_per_s > a.requests_per_s ? c : a), undefined);
    results.push(
      {
        ...(best ?? httpCeiling),
        name: 'ceiling: bare Fastify',
        description: `median of ${ceilings.length} measurements of ${CEILING_DURATION} s, one before each scenario (${ceilings.map((c) => c.requests_per_s).join(', ')})`,
        requests_per_s: fastifyRps,
        ratio: null,
      },
      { ...httpCeiling, name: 'ceiling: bare node:http', description: 'node:http answering a fixed JSON object', ratio: null },
      ...punchlist,
    );

    const targets = checkTargets(results);
    const date = startedAt.toISOString().slice(0, 10);
    const loadAfter = loadavg();
    const report = {
      date: startedAt.toISOString(),
      command: 'npm run bench',
      machine: machine(),
      load_average: { before: loadBefore, after: loadAfter },
      settings: {
        connections: CONNECTIONS,
        duration_s: DURATION,
        warmup_s: WARMUP,
        profile: PROFILE,
        database: 'sqlite',
        search_wired: wired,
      },
      workspace: { ...meta.summary, generation_seconds: meta.generationSeconds, shape: SHAPE },
      ceilings: {
        fastify_each_scenario: ceilings.map((c) => c.requests_per_s),
        fastify_median: fastifyRps,
        http: httpCeiling.requests_per_s,
      },
      results,
      targets,
    };
    const out = join(ROOT, 'bench/results');
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, `${date}.json`), JSON.stringify(report, null, 2) + '\n');
    writeFileSync(join(out, `${date}.svg`), ratioChart(results, TARGETS, `Punchlist v1 at ${CONNECTIONS} connections, ${date}`));

    const table = markdownTable(results);
    const section = [
      `Last run: ${startedAt.toISOString()} — ${report.machine.nproc} CPUs (${report.machine.cpu}), ` +
        `${report.machine.memory_total_gb} GB, Node ${report.machine.node}, SQLite; load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, ` +
        `after ${loadAfter.map((l) => l.toFixed(2)).join(' ')}. ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${DURATION} s per scenario.` +
        (wired ? '' : ' projects/search was not wired yet: its scenarios were skipped.'),
      '',
      table,
      '',
      singleConnectionTable(results),
      '',
      targetsTable(targets),
      '',
      budgetTable(results, TARGETS, fastifyRps),
      '',
      `![ratios](../bench/results/${date}.svg)`,
    ].join('\n');
    log('');
    log(table);
    log('');
    log(singleConnectionTable(results));
    log('');
    log(targetsTable(targets));
    log('');
    log(budgetTable(results, TARGETS, fastifyRps));
    log(`\nwritten bench/results/${date}.json and bench/results/${date}.svg`);
    if (process.env.BENCH_NO_DOCS !== '1' && !ONLY && !PROFILE) {
      updateDocs(section);
      log('updated docs/performance.md');
    }
  } finally {
    await stopAll();
    rmSync(join(file, '..'), { recursive: true, force: true });
  }
}

await main();
