/**
 * What the ratio targets of issue 31 leave for our own code, and the floor of each target's operation, in one run
 * (docs/performance.md, "The ladder"). Not part of `npm test`.
 *
 * 1. The bare Fastify ceiling, and the same server after N µs of busy work per request (N = 25 … 300): the ratio
 *    a server reaches beside this load generator on this machine as a function of the work it does itself.
 *    Interpolated, the **own-work allowance** of each target: the µs per request a server may spend and still
 *    reach the target ratio (the rest of the budget is the HTTP stack's, and the loopback write's, which grows as
 *    the server slows: the load generator sleeps between answers and every write wakes it).
 * 2. The **floor** of each target: bare Fastify around the operation's service call alone, on the same workspace
 *    and requests (bench/lib/ladder-server.ts): no authentication, audit record, envelope, validation or cache.
 * 3. Punchlist itself (as `npm start` runs it) on the same requests as `npm run bench`.
 *
 * Every measurement is preceded by one of the ceiling; a round's ratios divide by the median of its ceilings (one
 * 3-s measurement of bare Fastify moves by ±30 % here). Each rung's own work is also given in µs of the spin
 * curve: the busy work that answers as many requests per second.
 *
 *   npm run bench:ladder          (BENCH_DURATION 6, BENCH_WARMUP 2, BENCH_ROUNDS 2, BENCH_CONNECTIONS 50)
 *
 * Writes bench/results/ladder-<date>.json and prints a Markdown table.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { drive, freePort, type LoadResult, median, type RequestSpec, type ServerProcess, startServer } from './lib/load.js';
import { random } from './lib/random.js';
import { machine } from './lib/report.js';
import { serverEnv, startCeiling, startPunchlist } from './lib/servers.js';
import { type BenchActor, copyOfWorkspace } from './lib/workspace.js';

const ROOT = resolve(new URL('..', import.meta.url).pathname);
const DATA = join(ROOT, 'data', 'bench');
const V1 = '/api/external/v1';
const DURATION = Number(process.env.BENCH_DURATION ?? 6);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const CEILING_DURATION = 3;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SPINS = [25, 50, 75, 100, 150, 200, 300];
const TARGETS = { 'auth/me': 0.5, 'items/get': 0.25, 'PATCH items/status': 0.2, 'POST comments/create': 0.15 } as const;
type TargetName = keyof typeof TARGETS;
const log = (line: string) => process.stdout.write(`${line}\n`);

interface Rung {
  name: string;
  rps: number;
  /** The ceiling measured right before it. */
  ceiling_rps: number;
  cpu_us: number | null;
  p99_ms: number;
  non_2xx: number;
}

async function measure(server: ServerProcess, ceiling: ServerProcess, name: string, next: () => RequestSpec): Promise<Rung> {
  const root = (): RequestSpec => ({ method: 'GET', path: '/' });
  const base = await drive({ url: ceiling.url, connections: CONNECTIONS, durationSeconds: CEILING_DURATION, next: root });
  await drive({ url: server.url, connections: CONNECTIONS, durationSeconds: WARMUP, next });
  const r: LoadResult = await drive({ url: server.url, connections: CONNECTIONS, durationSeconds: DURATION, next, pid: server.child.pid });
  const rung = {
    name,
    rps: r.requests_per_s,
    ceiling_rps: base.requests_per_s,
    cpu_us: r.server_cpu_us_per_request,
    p99_ms: r.latency_ms.p99,
    non_2xx: r.non_2xx + r.errors,
  };
  log(`  ${name}: ${rung.rps} req/s (ceiling just before ${rung.ceiling_rps}), ${rung.cpu_us} µs CPU/request, ${rung.non_2xx} errors`);
  return rung;
}

/**
 * The busy work (µs per request) at which the spin curve answers `rps` requests/s: linear in 1 / rps (the time
 * per request) between the measured points, extrapolated past the last two.
 */
function spinAt(curve: { spin: number; rps: number }[], rps: number): number {
  const points = [...curve].sort((a, b) => a.spin - b.spin);
  let i = points.findIndex((p) => p.rps <= rps);
  if (i <= 0) i = i === 0 ? 1 : points.length - 1;
  const [a, b] = [points[i - 1]!, points[i]!];
  return Math.round(a.spin + ((1 / rps - 1 / a.rps) * (b.spin - a.spin)) / (1 / b.rps - 1 / a.rps));
}

async function main() {
  const dir = join(DATA, `ladder-${process.pid}`);
  const meta = await copyOfWorkspace(DATA, join(dir, 'floors.db'), log);
  await copyOfWorkspace(DATA, join(dir, 'punchlist.db'), log);
  const rand = random(11);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const actor = (key: string) => meta.actors.find((a) => a.key === key)!;
  const readers = ['admin', 'manager', 'executor-partial', 'observer'].map(actor);
  const admin = readers[0]!;
  const itemOf = (a: BenchActor) => {
    const [from, to] = pick(a.visibleItems);
    return from + Math.floor(rand() * (to - from + 1));
  };
  const statuses = ['pending', 'in_progress', 'done', 'blocked'] as const;
  let comment = 0;
  const text = () => `Замечание нагрузочного теста ${++comment}: проверить крепление кабеля`;
  // The floors' requests and Punchlist's, alike: the same users, items and bodies as `npm run bench`.
  const requests: Record<TargetName, { floor: () => RequestSpec; punchlist: () => RequestSpec }> = {
    'auth/me': {
      floor: () => ({ method: 'GET', path: '/floor/me', token: pick(meta.actors).token }),
      punchlist: () => ({ method: 'GET', path: `${V1}/auth/me.php`, token: pick(meta.actors).token }),
    },
    'items/get': {
      floor: () => {
        const k = Math.floor(rand() * readers.length);
        return { method: 'GET', path: `/floor/card?actor=${k}&id=${itemOf(readers[k]!)}` };
      },
      punchlist: () => {
        const a = pick(readers);
        return { method: 'GET', path: `${V1}/items/get.php?id=${itemOf(a)}`, token: a.token };
      },
    },
    'PATCH items/status': {
      floor: () => ({ method: 'PATCH', path: '/floor/status', body: { actor: 0, id: itemOf(admin), status: pick(statuses) } }),
      punchlist: () => ({
        method: 'PATCH',
        path: `${V1}/items/status.php`,
        token: admin.token,
        body: { id: itemOf(admin), status: pick(statuses) },
      }),
    },
    'POST comments/create': {
      floor: () => ({ method: 'POST', path: '/floor/comment', body: { actor: 0, item_id: itemOf(admin), text: text() } }),
      punchlist: () => ({
        method: 'POST',
        path: `${V1}/comments/create.php`,
        token: admin.token,
        body: { item_id: itemOf(admin), text: text() },
      }),
    },
  };

  const load = loadavg().map((n) => n.toFixed(2));
  const ceiling = await startCeiling('fastify');
  // Its JIT warmed up before the first comparison (its first seconds answer a third less).
  await drive({ url: ceiling.url, connections: CONNECTIONS, durationSeconds: 5, next: () => ({ method: 'GET', path: '/' }) });
  const rounds: { spins: Rung[]; floors: Rung[]; punchlist: Rung[] }[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      log(`round ${round} of ${ROUNDS}`);
      const port = await freePort();
      const ladder = await startServer({
        name: 'ladder',
        script: join(ROOT, 'bench/lib/ladder-server.ts'),
        args: [String(port)],
        port,
        probePath: '/',
        env: {
          ...serverEnv({ databaseUrl: `sqlite:${join(dir, 'floors.db')}`, dataDir: dir, port }),
          MALLOC_ARENA_MAX: '2',
          LADDER_TOKENS: readers.map((a) => a.token).join(','),
        },
      });
      const spins: Rung[] = [];
      const floors: Rung[] = [];
      try {
        spins.push(await measure(ladder, ceiling, 'spin 0 µs', () => ({ method: 'GET', path: '/' })));
        for (const spin of SPINS)
          spins.push(await measure(ladder, ceiling, `spin ${spin} µs`, () => ({ method: 'GET', path: `/spin?us=${spin}` })));
        for (const [name, r] of Object.entries(requests)) floors.push(await measure(ladder, ceiling, `floor: ${name}`, r.floor));
      } finally {
        await ladder.stop();
      }
      const server = await startPunchlist(join(dir, 'punchlist.db'));
      const punchlist: Rung[] = [];
      try {
        for (const [name, r] of Object.entries(requests)) punchlist.push(await measure(server, ceiling, `Punchlist: ${name}`, r.punchlist));
      } finally {
        await server.stop();
      }
      rounds.push({ spins, floors, punchlist });
    }
  } finally {
    await ceiling.stop();
    rmSync(dir, { recursive: true, force: true });
  }

  // The ceiling of a round is the median of its measurements: one of 3 s moves by ±30 % on this 2-core machine
  // (bare Fastify's CPU per request with it), while the servers that do work of their own answer steadily.
  const summary = (Object.entries(TARGETS) as [TargetName, number][]).map(([name, target]) => {
    const per = rounds.map(({ spins, floors, punchlist }) => {
      const ceilingRps = median([...spins, ...floors, ...punchlist].map((r) => r.ceiling_rps));
      const curve = spins.map((r) => ({ spin: Number(/spin (\d+)/.exec(r.name)![1]), rps: r.rps }));
      const floor = floors.find((r) => r.name === `floor: ${name}`)!;
      const ours = punchlist.find((r) => r.name === `Punchlist: ${name}`)!;
      const ratio = (rps: number) => Math.round((rps / ceilingRps) * 1000) / 1000;
      return {
        ceiling_rps: ceilingRps,
        allowance_us: spinAt(curve, target * ceilingRps),
        floor_ratio: ratio(floor.rps),
        floor_own_us: spinAt(curve, floor.rps),
        punchlist_ratio: ratio(ours.rps),
        punchlist_own_us: spinAt(curve, ours.rps),
      };
    });
    return { target: name, ratio: target, rounds: per, floor_misses_target: per.every((p) => p.floor_ratio < target) };
  });

  const cell = (values: number[]) => values.join(', ');
  const table = [
    '| target | ratio asked | own work allowed, µs | floor: ratio | floor: own work, µs | Punchlist: ratio | Punchlist: own work, µs | the floor alone misses the target |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
    ...summary.map(
      (s) =>
        `| ${s.target} | ${s.ratio} | ${cell(s.rounds.map((p) => p.allowance_us))} | ${cell(s.rounds.map((p) => p.floor_ratio))} | ` +
        `${cell(s.rounds.map((p) => p.floor_own_us))} | ${cell(s.rounds.map((p) => p.punchlist_ratio))} | ` +
        `${cell(s.rounds.map((p) => p.punchlist_own_us))} | ${s.floor_misses_target ? 'yes' : 'no'} |`,
    ),
  ].join('\n');
  const curveTable = [
    '| own work per request | ' +
      rounds.map((_, i) => `req/s, round ${i + 1}`).join(' | ') +
      ' | ' +
      rounds.map((_, i) => `CPU µs, round ${i + 1}`).join(' | ') +
      ' |',
    '|---|' + rounds.map(() => '---:').join('|') + '|' + rounds.map(() => '---:').join('|') + '|',
    ...rounds[0]!.spins.map(
      (r, i) =>
        `| ${r.name.replace('spin ', '')} | ${rounds.map((x) => x.spins[i]!.rps).join(' | ')} | ${rounds.map((x) => x.spins[i]!.cpu_us).join(' | ')} |`,
    ),
    `| (ceiling, median of the round) | ${summary[0]!.rounds.map((p) => p.ceiling_rps).join(' | ')} | ${rounds.map(() => '').join(' | ')} |`,
  ].join('\n');
  log(`\n${curveTable}\n\n${table}`);
  const date = new Date().toISOString().slice(0, 10);
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  const out = join(ROOT, 'bench/results', `ladder-${date}.json`);
  writeFileSync(
    out,
    JSON.stringify(
      {
        command: 'npm run bench:ladder',
        at: new Date().toISOString(),
        machine: machine(),
        load_average_before: load,
        load_average_after: loadavg().map((n) => n.toFixed(2)),
        settings: { connections: CONNECTIONS, duration_s: DURATION, warmup_s: WARMUP, ceiling_s: CEILING_DURATION, rounds: ROUNDS },
        summary,
        rounds,
      },
      null,
      2,
    ) + '\n',
  );
  log(`\nwritten ${out}`);
}

await main();
