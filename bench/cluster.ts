/**
 * What node:cluster gives on one machine (issue 31, item 4): `items/get` and `auth/me` against one Punchlist
 * process and against several under node:cluster, on the same SQLite file, the server pinned with `taskset`
 * to one core or to both; the load generator is not pinned. Not part of `npm test`.
 *
 *   npm run bench:cluster
 *
 * BENCH_DURATION (s, default 8), BENCH_WARMUP (2), BENCH_CONNECTIONS (50). Writes bench/results/cluster-<date>.json.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { drive, freePort, type LoadResult, type RequestSpec } from './lib/load.js';
import { random } from './lib/random.js';
import { machine } from './lib/report.js';
import { serverEnv } from './lib/servers.js';
import { copyOfWorkspace } from './lib/workspace.js';

const ROOT = resolve(new URL('..', import.meta.url).pathname);
const DATA = join(ROOT, 'data', 'bench');
const V1 = '/api/external/v1';
const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const log = (line: string) => process.stdout.write(`${line}\n`);

/** CPU seconds of a process and of its children still running (the cluster's workers). */
function treeCpuSeconds(pid: number): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(entry) === pid || Number(fields[1]) === pid) ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks / 100;
}

async function start(file: string, cores: string, workers: number): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const dir = join(file, '..');
  const script = workers > 0 ? join(ROOT, 'bench/lib/cluster-server.ts') : join(ROOT, 'src/main.ts');
  const child = spawn('taskset', ['-c', cores, process.execPath, '--import', 'tsx', script], {
    env: {
      ...process.env,
      CLUSTER_WORKERS: String(workers),
      ...serverEnv({ databaseUrl: `sqlite:${file}`, dataDir: dir, port }),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { url, child };
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error('the server did not start');
}

async function main() {
  const file = join(DATA, `cluster-${process.pid}`, 'punchlist.db');
  const meta = await copyOfWorkspace(DATA, file, log);
  const rand = random(11);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const readers = ['admin', 'manager', 'executor-partial', 'observer'].map((key) => meta.actors.find((a) => a.key === key)!);
  const scenarios: Record<string, () => RequestSpec> = {
    'items/get': () => {
      const a = pick(readers);
      const [from, to] = pick(a.visibleItems);
      return { method: 'GET', path: `${V1}/items/get.php?id=${from + Math.floor(rand() * (to - from + 1))}`, token: a.token };
    },
    'auth/me': () => ({ method: 'GET', path: `${V1}/auth/me.php`, token: pick(meta.actors).token }),
  };
  // workers 0: the plain server, no cluster.
  const setups = [
    { cores: '1', workers: 0 },
    { cores: '1', workers: 2 },
    { cores: '0,1', workers: 0 },
    { cores: '0,1', workers: 2 },
  ];
  const runs: Array<{ cores: string; workers: number; scenario: string; result: LoadResult; server_cpu_us_per_request: number }> = [];
  try {
    for (const setup of setups) {
      const server = await start(file, setup.cores, setup.workers);
      try {
        for (const [scenario, next] of Object.entries(scenarios)) {
          await drive({ url: server.url, connections: CONNECTIONS, durationSeconds: WARMUP, next });
          const cpu = treeCpuSeconds(server.child.pid!);
          const result = await drive({ url: server.url, connections: CONNECTIONS, durationSeconds: DURATION, next });
          const perRequest = Math.round(((treeCpuSeconds(server.child.pid!) - cpu) * 1e6) / Math.max(1, result.requests));
          runs.push({ ...setup, scenario, result, server_cpu_us_per_request: perRequest });
          log(
            `cores ${setup.cores}, ${setup.workers || 'no'} cluster workers, ${scenario}: ${result.requests_per_s} req/s, p50 ${result.latency_ms.p50} ms, ` +
              `p99 ${result.latency_ms.p99} ms, server CPU ${perRequest} µs/request, errors ${result.errors + result.non_2xx}`,
          );
        }
      } finally {
        server.child.kill('SIGTERM');
        await new Promise((r) => server.child.once('exit', r));
      }
    }
  } finally {
    rmSync(join(file, '..'), { recursive: true, force: true });
  }
  const out = join(ROOT, 'bench', 'results');
  mkdirSync(out, { recursive: true });
  const date = new Date().toISOString().slice(0, 10);
  writeFileSync(
    join(out, `cluster-${date}.json`),
    JSON.stringify({ machine: machine(), load_average_after: loadavg(), connections: CONNECTIONS, duration_s: DURATION, runs }, null, 2) +
      '\n',
  );
}

await main();
