/**
 * Scale-out benchmark (issue 7): the same read and write scenarios on SQLite (one node) and on PostgreSQL
 * (one node, then two nodes on the same database), reported side by side as throughput ratios. Not part
 * of `npm test`.
 *
 *   npm run bench:scale
 *
 * 1. Builds (or reuses, from data/bench/, shared with `npm run bench`) the workspace of bench/lib/workspace.ts,
 *    with BENCH_SCALE_ITEMS items (default 100 000, the size of `npm run bench`).
 * 2. Moves a copy of it to a fresh PostgreSQL database (`punchlist_bench_<pid>`) the way docs/deployment.md
 *    moves a deployment: `bin/punchlist export` on the SQLite copy, `bin/punchlist import` into PostgreSQL,
 *    then `vacuum analyze` (what autovacuum does after a bulk load, done now so every run starts alike).
 * 3. Starts three server processes in production mode: one on the SQLite copy, two (nodes A and B) on the
 *    PostgreSQL database, sharing one storage directory.
 * 4. For every scenario, measures in turn: SQLite one node, PostgreSQL one node (A), PostgreSQL two nodes
 *    (A and B driven at the same time by two autocannon instances, half the connections each; their
 *    requests/s are added). Each measurement is a warm-up, then the measured run. Interleaving the
 *    configurations per scenario keeps the three figures of a row close in time on a shared machine. It also
 *    reads, from /proc, where the CPU went during each run: server processes, PostgreSQL, the driver.
 * 5. Writes bench/results/scale-<date>.json and prints the Markdown tables. Drops the database and removes
 *    the copies at the end, also on failure or Ctrl-C.
 *
 * Environment: BENCH_DURATION (s, default 10), BENCH_WARMUP (s, default 2), BENCH_CONNECTIONS (total, default
 * 50), BENCH_SCALE_ITEMS (default 100000), BENCH_ONLY (comma-separated scenario names), BENCH_PG (the
 * PostgreSQL maintenance database, default postgres://postgres@127.0.0.1:5432/postgres), DATABASE_POOL_SIZE
 * (per PostgreSQL node, default 10).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { join, resolve } from 'node:path';
import {
  drive,
  freePort,
  type LoadResult,
  processStat,
  type RequestSpec,
  type ServerProcess,
  startServer,
  waitUntilIdle,
} from './lib/load.js';
import { type BenchDatabase, createBenchDatabase, execute, serverInfo } from './lib/postgres.js';
import { random } from './lib/random.js';
import { machine } from './lib/report.js';
import { punchlistCommand, serverEnv } from './lib/servers.js';
import { type BenchActor, type BenchWorkspace, copyOfWorkspace, SEARCH_QUERIES, SHAPE } from './lib/workspace.js';

const ROOT = resolve(new URL('..', import.meta.url).pathname);
const DATA = join(ROOT, 'data', 'bench');
const V1 = '/api/external/v1';

function integerEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < min) throw new Error(`${name} must be an integer ≥ ${min}, got "${raw}"`);
  return Number(raw);
}

const DURATION = integerEnv('BENCH_DURATION', 10, 1);
const WARMUP = integerEnv('BENCH_WARMUP', 2, 0);
const CONNECTIONS = integerEnv('BENCH_CONNECTIONS', 50, 2);
// The big project alone holds 5 000 items; the other 199 projects need a few each.
const ITEMS = integerEnv('BENCH_SCALE_ITEMS', SHAPE.items, 10_000);
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((s) => s.trim())) : null;

const log = (line: string) => process.stdout.write(`${line}\n`);
const seconds = (since: number) => Math.round((performance.now() - since) / 100) / 10;

// ---------------------------------------------------------------------------------------------------
// Workspace: the SQLite file of bench/lib/workspace.ts (cached), copied, and moved to PostgreSQL.

async function sqliteWorkspace(runDir: string): Promise<{ file: string; meta: BenchWorkspace }> {
  // The generator reads SHAPE when it runs, and the cache key covers SHAPE: a smaller workspace is cached
  // beside the full one instead of replacing it.
  SHAPE.items = ITEMS;
  const file = join(runDir, 'sqlite', 'punchlist.db');
  const meta = await copyOfWorkspace(DATA, file, log);
  return { file, meta };
}

/** `bin/punchlist ARGS` with the environment of a deployment; rejects unless it exits with 0. */
function punchlist(args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'punchlist'), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('error', fail);
    child.once('exit', (code, signal) => (code === 0 ? done() : fail(new Error(`punchlist ${args[0]} exited with ${code ?? signal}`))));
  });
}

interface LoadTimes {
  export_s: number;
  import_s: number;
  vacuum_analyze_s: number;
  export_mb: number;
}

/** Moves the SQLite copy into the empty PostgreSQL database: export, import, vacuum analyze. */
async function loadPostgres(sqliteFile: string, database: BenchDatabase, runDir: string): Promise<LoadTimes> {
  const fixture = join(runDir, 'export.json');
  const env = {
    SESSION_SECRET: 'bench',
    DATA_DIR: join(runDir, 'cli'),
    STORAGE_URL: `file:${join(runDir, 'cli', 'storage')}`,
    LOG_LEVEL: 'warn',
  };
  let started = performance.now();
  await punchlist(['export', fixture], { ...env, DATABASE_URL: `sqlite:${sqliteFile}` });
  const exportSeconds = seconds(started);
  const exportMb = Math.round(readFileSync(fixture).length / 2 ** 20);
  log(`  exported ${exportMb} MB in ${exportSeconds} s`);
  started = performance.now();
  await punchlist(['import', fixture], { ...env, DATABASE_URL: database.url });
  const importSeconds = seconds(started);
  log(`  imported into ${database.name} in ${importSeconds} s`);
  rmSync(fixture, { force: true });
  started = performance.now();
  await execute(database.url, ['vacuum analyze']);
  const vacuumSeconds = seconds(started);
  log(`  vacuum analyze in ${vacuumSeconds} s`);
  return { export_s: exportSeconds, import_s: importSeconds, vacuum_analyze_s: vacuumSeconds, export_mb: exportMb };
}

// ---------------------------------------------------------------------------------------------------
// Scenarios: those of bench/run.ts that read and write, minus the 5 000-item tree and the searches, which
// have their own benchmarks (the mixed one still holds small trees and searches).

interface Scenario {
  name: string;
  description: string;
  /** A fresh request generator, seeded: every configuration gets the same sequence of requests. */
  requests: () => () => RequestSpec;
}

function scenarios(meta: BenchWorkspace): Scenario[] {
  const actor = (key: string) => meta.actors.find((a) => a.key === key)!;
  const admin = actor('admin');
  const readers = ['admin', 'manager', 'executor-partial', 'observer'].map(actor);
  const statuses = ['pending', 'in_progress', 'done', 'blocked'] as const;

  /** The request builders over one seeded generator. */
  const builders = (seed: number) => {
    const rand = random(seed);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
    const itemOf = (a: BenchActor) => {
      const [from, to] = pick(a.visibleItems);
      return from + Math.floor(rand() * (to - from + 1));
    };
    let comment = 0;
    const itemGet = (a: BenchActor): RequestSpec => ({ method: 'GET', path: `${V1}/items/get.php?id=${itemOf(a)}`, token: a.token });
    const authMe = (a: BenchActor): RequestSpec => ({ method: 'GET', path: `${V1}/auth/me.php`, token: a.token });
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
    /** The project whose items the actor sees (admins: any). */
    const projectOf = (a: BenchActor) =>
      a.key.startsWith('admin') ? 1 + Math.floor(rand() * SHAPE.projects) : a.key === 'manager-2' ? 2 : 1;
    const mixed = (): RequestSpec => {
      const a = pick(meta.actors);
      const r = rand() * 100;
      if (r < 40) return itemGet(a);
      if (r < 50) return authMe(a);
      if (r < 60) return { method: 'GET', path: `${V1}/projects/get.php?id=${projectOf(a)}`, token: a.token };
      if (r < 65) return { method: 'GET', path: `${V1}/projects/list.php?limit=20`, token: a.token };
      if (r < 70) {
        // Trees of the small projects only: the 5 000-item tree is a benchmark of its own (bench/run.ts).
        const projectId = a.key.startsWith('admin') ? 2 + Math.floor(rand() * (SHAPE.projects - 1)) : a.key === 'manager-2' ? 2 : null;
        return projectId ? { method: 'GET', path: `${V1}/projects/tree.php?id=${projectId}`, token: a.token } : itemGet(a);
      }
      if (r < 75)
        return {
          method: 'GET',
          path: `${V1}/projects/search.php?id=${projectOf(a)}&q=${encodeURIComponent(SEARCH_QUERIES.selective)}`,
          token: a.token,
        };
      if (r < 90) return a.canSetStatus ? setStatus(a) : addComment(a);
      return addComment(a);
    };
    return { pick, itemGet, authMe, setStatus, addComment, mixed };
  };

  return [
    {
      name: 'items/get',
      description: 'GET items/get of random visible items, 4 users (admin, manager, partial executor, observer)',
      requests: () => {
        const b = builders(11);
        return () => b.itemGet(b.pick(readers));
      },
    },
    {
      name: 'auth/me',
      description: 'GET auth/me, 6 tokens in turn',
      requests: () => {
        const b = builders(12);
        return () => b.authMe(b.pick(meta.actors));
      },
    },
    {
      name: 'PATCH items/status',
      description: 'PATCH items/status of random items (admin), random status',
      requests: () => {
        const b = builders(13);
        return () => b.setStatus(admin);
      },
    },
    {
      name: 'POST comments/create',
      description: 'POST comments/create on random items (admin)',
      requests: () => {
        const b = builders(14);
        return () => b.addComment(admin);
      },
    },
    {
      name: 'mixed',
      description:
        'the mix of bench/run.ts, 6 tokens: 40 % items/get, 10 % auth/me, 10 % projects/get, 5 % projects/list, 5 % small tree, 5 % search, 15 % status, 15 % comments',
      requests: () => builders(15).mixed,
    },
  ];
}

// ---------------------------------------------------------------------------------------------------
// Servers and measurements

async function startNode(
  name: string,
  databaseUrl: string,
  dataDir: string,
  storageDir: string,
  extraEnv: Record<string, string> = {},
): Promise<ServerProcess> {
  const port = await freePort();
  mkdirSync(dataDir, { recursive: true });
  return startServer({
    name,
    ...punchlistCommand(),
    port,
    probePath: '/readyz',
    env: { ...serverEnv({ databaseUrl, dataDir, storageDir, port }), MALLOC_ARENA_MAX: '2', ...extraEnv },
  });
}

interface Configuration {
  key: 'sqlite_1' | 'pg_1' | 'pg_2';
  label: string;
  nodes: ServerProcess[];
}

/** CPU ticks used so far by the whole machine (busy, total) from /proc/stat. */
function machineCpu(): { busy: number; total: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

interface CpuTicks {
  servers: number;
  driver: number;
  /** Per PostgreSQL process: the pools open and close backends (idle ones after 10 s). */
  postgres: Map<string, number>;
}

/**
 * CPU ticks so far of the processes that share the machine during a run: the server processes under test,
 * this process (the autocannon driver) and PostgreSQL's.
 */
function cpuTicks(serverPids: (number | undefined)[]): CpuTicks | null {
  const self = processStat(process.pid);
  if (!self) return null;
  let servers = 0;
  for (const pid of serverPids) servers += (pid === undefined ? null : processStat(pid))?.ticks ?? 0;
  const postgres = new Map<string, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    const stat = processStat(entry);
    if (stat?.command === 'postgres') postgres.set(entry, stat.ticks);
  }
  return { servers, driver: self.ticks, postgres };
}

/** PostgreSQL's ticks between two readings: a backend started since counts whole, one that exited is missed. */
function postgresTicks(before: CpuTicks, after: CpuTicks): number {
  let ticks = 0;
  for (const [pid, t] of after.postgres) ticks += t - (before.postgres.get(pid) ?? 0);
  return ticks;
}

interface Measurement {
  configuration: string;
  nodes: number;
  connections_per_node: number[];
  /** Requests/s of all nodes added up. */
  requests_per_s: number;
  requests: number;
  /** The worse node's percentiles (with one node: that node's). */
  latency_ms: LoadResult['latency_ms'];
  errors: number;
  timeouts: number;
  non_2xx: number;
  status_codes: Record<string, number>;
  rss_mb_end: (number | null)[];
  /**
   * Shares of the machine's CPU time during the run (all cores together are 100 %): busy in all, used by the
   * server processes under test, by PostgreSQL, by the autocannon driver (this process).
   */
  cpu_pct: { machine_busy: number; servers: number; postgres: number; driver: number } | null;
  drain_ms: number;
  per_node: LoadResult[];
}

/** Splits the connections evenly: 50 over two nodes is 25 + 25. */
function split(total: number, parts: number): number[] {
  return Array.from({ length: parts }, (_, i) => Math.floor(total / parts) + (i < total % parts ? 1 : 0));
}

async function measure(configuration: Configuration, scenario: Scenario): Promise<Measurement> {
  const { nodes } = configuration;
  const connections = split(CONNECTIONS, nodes.length);
  // One generator for all nodes of the configuration: together they answer the sequence one node would.
  const next = scenario.requests();
  const driveAll = (durationSeconds: number) =>
    Promise.all(nodes.map((node, i) => drive({ url: node.url, connections: connections[i]!, durationSeconds, next, pid: node.child.pid })));
  const idle = () => Promise.all(nodes.map((node) => waitUntilIdle(`${node.url}/healthz`)));

  if (WARMUP > 0) await driveAll(WARMUP);
  await idle();
  const pids = nodes.map((node) => node.child.pid);
  const machineBefore = machineCpu();
  const ticksBefore = cpuTicks(pids);
  const perNode = await driveAll(DURATION);
  const machineAfter = machineCpu();
  const ticksAfter = cpuTicks(pids);
  const drainMs = Math.max(...(await idle()));

  const sum = (f: (r: LoadResult) => number) => perNode.reduce((n, r) => n + f(r), 0);
  const worst = (p: keyof LoadResult['latency_ms']) => Math.max(...perNode.map((r) => r.latency_ms[p]));
  const statusCodes: Record<string, number> = {};
  for (const r of perNode) for (const [code, n] of Object.entries(r.status_codes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  let cpu: Measurement['cpu_pct'] = null;
  if (machineBefore && machineAfter && ticksBefore && ticksAfter && machineAfter.total > machineBefore.total) {
    const pct = (ticks: number) => Math.round((ticks / (machineAfter.total - machineBefore.total)) * 100);
    cpu = {
      machine_busy: pct(machineAfter.busy - machineBefore.busy),
      servers: pct(ticksAfter.servers - ticksBefore.servers),
      postgres: pct(postgresTicks(ticksBefore, ticksAfter)),
      driver: pct(ticksAfter.driver - ticksBefore.driver),
    };
  }
  return {
    configuration: configuration.label,
    nodes: nodes.length,
    connections_per_node: connections,
    requests_per_s: sum((r) => r.requests_per_s),
    requests: sum((r) => r.requests),
    latency_ms: { p50: worst('p50'), p95: worst('p95'), p99: worst('p99'), p99_9: worst('p99_9'), max: worst('max'), mean: worst('mean') },
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    non_2xx: sum((r) => r.non_2xx),
    status_codes: statusCodes,
    rss_mb_end: perNode.map((r) => r.rss_mb_end),
    cpu_pct: cpu,
    drain_ms: drainMs,
    per_node: perNode,
  };
}

// ---------------------------------------------------------------------------------------------------
// Report

interface Row {
  name: string;
  description: string;
  sqlite_1: Measurement;
  pg_1: Measurement;
  pg_2: Measurement;
  ratios: { pg_1_to_sqlite_1: number; pg_2_to_sqlite_1: number; pg_2_to_pg_1: number };
}

const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : 0);

function throughputTable(rows: Row[]): string {
  return [
    '| scenario | SQLite, 1 node req/s | PostgreSQL, 1 node req/s | PostgreSQL, 2 nodes req/s | PG 1 node ÷ SQLite | PG 2 nodes ÷ SQLite | PG 2 nodes ÷ PG 1 node |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.sqlite_1.requests_per_s} | ${r.pg_1.requests_per_s} | ${r.pg_2.requests_per_s} | ` +
        `${r.ratios.pg_1_to_sqlite_1.toFixed(2)} | ${r.ratios.pg_2_to_sqlite_1.toFixed(2)} | ${r.ratios.pg_2_to_pg_1.toFixed(2)} |`,
    ),
  ].join('\n');
}

function latencyTable(rows: Row[]): string {
  const cell = (m: Measurement) => `${m.latency_ms.p50.toFixed(1)} / ${m.latency_ms.p99.toFixed(1)}`;
  const failures = (m: Measurement) => m.errors + m.timeouts + m.non_2xx;
  return [
    '| scenario | p50 / p99 ms, SQLite 1 node | PG 1 node | PG 2 nodes (worse node) | errors + timeouts + non-2xx (SQLite 1 / PG 1 / PG 2) |',
    '|---|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${cell(r.sqlite_1)} | ${cell(r.pg_1)} | ${cell(r.pg_2)} | ${failures(r.sqlite_1)} / ${failures(r.pg_1)} / ${failures(r.pg_2)} |`,
    ),
  ].join('\n');
}

/** Where the machine's CPU went: servers + PostgreSQL + driver, and the machine's busy share (the rest: anything else). */
function cpuTable(rows: Row[]): string {
  const cell = (m: Measurement) =>
    m.cpu_pct ? `${m.cpu_pct.servers} + ${m.cpu_pct.postgres} + ${m.cpu_pct.driver} / ${m.cpu_pct.machine_busy}` : '–';
  return [
    '| scenario | CPU %: servers + PostgreSQL + driver / machine busy, SQLite 1 node | PG 1 node | PG 2 nodes |',
    '|---|---:|---:|---:|',
    ...rows.map((r) => `| ${r.name} | ${cell(r.sqlite_1)} | ${cell(r.pg_1)} | ${cell(r.pg_2)} |`),
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------------

async function main() {
  const startedAt = new Date();
  const started = performance.now();
  log(
    `machine: ${JSON.stringify(machine())}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const runDir = join(DATA, `scale-${process.pid}`);
  mkdirSync(runDir, { recursive: true });
  const children: ServerProcess[] = [];
  let database: BenchDatabase | undefined;
  let cleaned: Promise<void> | undefined;
  const cleanUp = () =>
    (cleaned ??= (async () => {
      await Promise.all(children.map((c) => c.stop()));
      if (database) {
        await database.drop().catch((err: Error) => log(`could not drop ${database?.name}: ${err.message}`));
        log(`dropped ${database.name}`);
      }
      rmSync(runDir, { recursive: true, force: true });
    })());
  process.once('SIGINT', () => void cleanUp().finally(() => process.exit(130)));
  try {
    const { file, meta } = await sqliteWorkspace(runDir);
    log(`workspace: ${JSON.stringify(meta.summary)}`);
    database = await createBenchDatabase('punchlist_bench');
    log(`moving the workspace to PostgreSQL (${database.name}): bin/punchlist export, then import`);
    const loadTimes = await loadPostgres(file, database, runDir);
    const postgres = await serverInfo(database.url);

    const sqliteNode = await startNode('sqlite', `sqlite:${file}`, join(runDir, 'sqlite'), join(runDir, 'sqlite', 'storage'));
    children.push(sqliteNode);
    // Two nodes share one storage directory: the orphan sweep must spare what the other node writes (docs/deployment.md, "Storage").
    const shared = { ORPHAN_SWEEP_GRACE_SECONDS: '600' };
    const nodeA = await startNode('pg-a', database.url, join(runDir, 'pg-a'), join(runDir, 'pg-storage'), shared);
    children.push(nodeA);
    const nodeB = await startNode('pg-b', database.url, join(runDir, 'pg-b'), join(runDir, 'pg-storage'), shared);
    children.push(nodeB);
    const configurations: Configuration[] = [
      { key: 'sqlite_1', label: 'SQLite, 1 node', nodes: [sqliteNode] },
      { key: 'pg_1', label: 'PostgreSQL, 1 node', nodes: [nodeA] },
      { key: 'pg_2', label: 'PostgreSQL, 2 nodes', nodes: [nodeA, nodeB] },
    ];

    const loadBefore = loadavg();
    const wanted = (name: string) => !ONLY || ONLY.has(name);
    const rows: Row[] = [];
    for (const scenario of scenarios(meta).filter((s) => wanted(s.name))) {
      log(`${scenario.name}: ${scenario.description}`);
      const measured: Partial<Record<Configuration['key'], Measurement>> = {};
      for (const configuration of configurations) {
        const m = await measure(configuration, scenario);
        measured[configuration.key] = m;
        log(
          `  ${configuration.label}: ${m.requests_per_s} req/s (${m.per_node.map((r) => r.requests_per_s).join(' + ')}), p50 ${m.latency_ms.p50} ms, ` +
            `p99 ${m.latency_ms.p99} ms, CPU ${m.cpu_pct ? `busy ${m.cpu_pct.machine_busy} % (servers ${m.cpu_pct.servers}, PostgreSQL ${m.cpu_pct.postgres}, driver ${m.cpu_pct.driver})` : '?'}, ` +
            `errors ${m.errors + m.timeouts}, non-2xx ${m.non_2xx} ${JSON.stringify(m.status_codes)}`,
        );
      }
      const { sqlite_1, pg_1, pg_2 } = measured as Record<Configuration['key'], Measurement>;
      rows.push({
        name: scenario.name,
        description: scenario.description,
        sqlite_1,
        pg_1,
        pg_2,
        ratios: {
          pg_1_to_sqlite_1: ratio(pg_1.requests_per_s, sqlite_1.requests_per_s),
          pg_2_to_sqlite_1: ratio(pg_2.requests_per_s, sqlite_1.requests_per_s),
          pg_2_to_pg_1: ratio(pg_2.requests_per_s, pg_1.requests_per_s),
        },
      });
    }
    const loadAfter = loadavg();

    const report = {
      date: startedAt.toISOString(),
      command: 'npm run bench:scale',
      machine: machine(),
      load_average: { before: loadBefore, after: loadAfter },
      settings: {
        connections_total: CONNECTIONS,
        duration_s: DURATION,
        warmup_s: WARMUP,
        two_nodes:
          'two autocannon instances at the same time, one per node, connections split evenly; requests/s added, latency of the worse node',
        database_pool_size_per_node: Number(process.env.DATABASE_POOL_SIZE || 10),
        rate_limit: 'off (RATE_LIMIT_PER_MINUTE=0)',
        storage: 'file: (no scenario touches it)',
      },
      postgres,
      workspace: { ...meta.summary, shape: SHAPE, generation_seconds: meta.generationSeconds, postgres_load: loadTimes },
      results: rows,
      total_seconds: seconds(started),
    };
    const out = join(ROOT, 'bench/results');
    mkdirSync(out, { recursive: true });
    const name = `scale-${startedAt.toISOString().slice(0, 10)}.json`;
    writeFileSync(join(out, name), JSON.stringify(report, null, 2) + '\n');

    log('');
    log(
      `${report.machine.nproc} CPUs (${report.machine.cpu}), Node ${report.machine.node}, PostgreSQL ${postgres.version}; ` +
        `${meta.summary.items} items; ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${DURATION} s per measurement; ` +
        `load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')}`,
    );
    log('');
    log(throughputTable(rows));
    log('');
    log(latencyTable(rows));
    log('');
    log(cpuTable(rows));
    log(`\nwritten bench/results/${name} (whole run ${report.total_seconds} s)`);
  } finally {
    await cleanUp();
  }
}

await main();
