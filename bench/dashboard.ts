/**
 * Benchmark of the dashboard (issue 45, docs/design.md §23 and §10), on a Punchlist node run as `npm start` runs it:
 *
 *   npm run bench:dashboard
 *
 * On a copy of the benchmark workspace (bench/lib/workspace.ts: 200 projects, 100 000 items, built once and cached
 * in data/bench/), signed in as its admin (who sees every item):
 * 1. `/dashboard` (every project, 100 000 items) and `/projects/<big>/dashboard` (5 000 items): the first answer
 *    (cold: the figures computed in the worker pool) and then warm (autocannon, one connection: nothing queues),
 *    p50 and p99; the target is a warm answer within 300 ms for 50 000 items.
 * 2. In the same run, the baseline: `/projects` (the web's lightest signed-in page) the same way; the ratio of the p99s.
 *
 * Writes bench/results/dashboard-<date>.json. Environment: BENCH_DURATION (s of each run, default 8).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { drive, type LoadResult } from './lib/load.js';
import { machine } from './lib/report.js';
import { startPunchlist } from './lib/servers.js';
import { copyOfWorkspace, SHAPE, webSession } from './lib/workspace.js';

const ROOT = resolve(new URL('..', import.meta.url).pathname);
const DATA = join(ROOT, 'data', 'bench');
const DIR = join(DATA, `dashboard-${process.pid}`);
const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const TARGET_MS = 300;
const log = (line: string) => process.stderr.write(`${line}\n`);

async function main() {
  mkdirSync(DIR, { recursive: true });
  const file = join(DIR, 'punchlist.db');
  const meta = await copyOfWorkspace(DATA, file, log);
  const cookie = `punchlist_session=${await webSession(file, meta)}`;
  const server = await startPunchlist(file);
  try {
    const get = (path: string) => () => ({ method: 'GET' as const, path, headers: { cookie } });
    /** The first answer (the figures computed), then warm with one connection. */
    async function measure(path: string): Promise<{ path: string; cold_ms: number; warm: LoadResult }> {
      const started = performance.now();
      const first = await fetch(server.url + path, { headers: { cookie } });
      if (first.status !== 200) throw new Error(`${path} answered ${first.status}`);
      await first.text();
      const cold = performance.now() - started;
      await drive({ url: server.url, connections: 1, durationSeconds: 2, next: get(path), pid: server.child.pid });
      const warm = await drive({ url: server.url, connections: 1, durationSeconds: DURATION, next: get(path), pid: server.child.pid });
      log(`${path}: cold ${cold.toFixed(0)} ms, warm p50 ${warm.latency_ms.p50} ms, p99 ${warm.latency_ms.p99} ms`);
      return { path, cold_ms: Math.round(cold), warm };
    }
    const load = loadavg()[0];
    const baseline = await measure('/projects');
    const overview = await measure('/dashboard');
    const project = await measure(`/projects/${meta.bigProjectId}/dashboard`);
    const result = {
      date: new Date().toISOString(),
      machine: machine(),
      load_before: load,
      load_after: loadavg()[0],
      workspace: { projects: SHAPE.projects, items: SHAPE.items },
      target_warm_ms: TARGET_MS,
      baseline,
      overview: { ...overview, items: SHAPE.items, p99_vs_baseline: overview.warm.latency_ms.p99 / baseline.warm.latency_ms.p99 },
      project: { ...project, items: 5000, p99_vs_baseline: project.warm.latency_ms.p99 / baseline.warm.latency_ms.p99 },
      met: overview.warm.latency_ms.p99 <= TARGET_MS && project.warm.latency_ms.p99 <= TARGET_MS,
    };
    mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
    const out = join(ROOT, 'bench', 'results', `dashboard-${result.date.slice(0, 10)}.json`);
    writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
    log(`written ${out}; target (warm p99 ≤ ${TARGET_MS} ms) ${result.met ? 'met' : 'MISSED'}`);
  } finally {
    await server.stop();
    rmSync(DIR, { recursive: true, force: true });
  }
}

await main();
