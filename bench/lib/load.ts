/**
 * Child processes under test and the load driver: start a server (Punchlist or a ceiling) as a child
 * process, drive it with autocannon, sample its RSS, and summarise one scenario.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import autocannon, { type Request } from 'autocannon';

export interface ServerProcess {
  name: string;
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntilAnswering(url: string, child: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with status ${child.exitCode} before answering`);
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`server at ${url} did not answer within ${timeoutMs} ms`);
}

/** Spawns `node [nodeArgs] script args` with env (`--import tsx` for a .ts script), waits until `probePath` answers. */
export async function startServer(options: {
  name: string;
  script: string;
  args?: string[];
  nodeArgs?: string[];
  env?: Record<string, string>;
  port: number;
  probePath: string;
}): Promise<ServerProcess> {
  const loader = options.script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...loader, options.script, ...(options.args ?? [])], {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${options.port}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitUntilAnswering(url + options.probePath, child, 120_000);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    name: options.name,
    url,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Waits until the server answers `probePath` within `fastMs`: a scenario whose requests outlive its
 * duration (a slow endpoint at 50 connections) must not eat into the next scenario.
 */
export async function waitUntilIdle(url: string, fastMs = 50, timeoutMs = 300_000): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    const t = performance.now();
    try {
      await (await fetch(url)).arrayBuffer();
    } catch {
      // not answering yet
    }
    if (performance.now() - t < fastMs) return Math.round(performance.now() - started);
    await sleep(200);
  }
  throw new Error(`server at ${url} stayed busy for ${timeoutMs} ms`);
}

/** Resident set size of a process in MB (Linux /proc), null elsewhere or once it is gone. */
export function rssMb(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/** Clock ticks per second of /proc/PID/stat's CPU times. */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a process (all its threads), in clock ticks, with its command name; null once it is gone. */
export function processStat(pid: number | string): { command: string; ticks: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { command: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null;
  }
}

/** CPU seconds (user + system, all threads) a process has used so far (Linux /proc), null elsewhere. */
function cpuSeconds(pid: number | undefined): number | null {
  const stat = pid === undefined ? null : processStat(pid);
  return stat ? stat.ticks / CLOCK_TICKS : null;
}

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  path: string;
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface LoadResult {
  requests: number;
  requests_per_s: number;
  latency_ms: { p50: number; p95: number; p99: number; p99_9: number; max: number; mean: number };
  errors: number;
  timeouts: number;
  non_2xx: number;
  status_codes: Record<string, number>;
  rss_mb_peak: number | null;
  rss_mb_end: number | null;
  /**
   * Server CPU time per answered request (µs, all its threads): what one request costs, whatever else the
   * machine is doing. The load generator shares the 2 cores, so req/s moves with the machine; this does not.
   */
  server_cpu_us_per_request: number | null;
  /** The server's event loop during the run (prom-client's monitorEventLoopDelay, via /metrics): p99 and longest delay, ms. */
  event_loop?: { p99_ms: number; max_ms: number } | null;
  /** The load driven beside the measured one (a scenario's `beside`), measured on its own connections. */
  beside?: LoadResult;
}

/**
 * The event-loop delay since the previous call (prom-client resets its histogram at every scrape of
 * /metrics): call once before a run to start afresh, once after to read it. null when /metrics is off.
 */
export async function eventLoopDelay(url: string): Promise<{ p99_ms: number; max_ms: number } | null> {
  const response = await fetch(`${url}/metrics`).catch(() => null);
  if (!response?.ok) return null;
  const text = await response.text();
  const gauge = (name: string) => Number(new RegExp(`^${name} ([0-9.e+-]+)`, 'm').exec(text)?.[1] ?? NaN) * 1000;
  const p99 = gauge('nodejs_eventloop_lag_p99_seconds');
  const max = gauge('nodejs_eventloop_lag_max_seconds');
  return Number.isFinite(p99) && Number.isFinite(max) ? { p99_ms: Math.round(p99 * 10) / 10, max_ms: Math.round(max * 10) / 10 } : null;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** The median of `values` (the mean of the middle two for an even count); 0 for none. */
export function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** p50, p95, p99, p99.9, max and mean of values sorted in ascending order, to two decimals. */
export function summarize(sorted: Float64Array): LoadResult['latency_ms'] {
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    p50: round2(percentile(sorted, 50)),
    p95: round2(percentile(sorted, 95)),
    p99: round2(percentile(sorted, 99)),
    p99_9: round2(percentile(sorted, 99.9)),
    max: round2(sorted[sorted.length - 1] ?? 0),
    mean: round2(sorted.length ? sum / sorted.length : 0),
  };
}

/** Runs autocannon against `url` with one request generator; latencies from every response. */
export async function drive(options: {
  url: string;
  connections: number;
  durationSeconds: number;
  next: () => RequestSpec;
  pid?: number;
}): Promise<LoadResult> {
  const request: Request = {
    setupRequest: (defaults) => {
      const spec = options.next();
      const headers: Record<string, string> = { ...spec.headers };
      if (spec.token) headers.authorization = `Bearer ${spec.token}`;
      if (spec.body !== undefined) headers['content-type'] = 'application/json';
      return {
        ...defaults,
        method: spec.method,
        path: spec.path,
        headers,
        body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
      };
    },
  };
  let samples = new Float64Array(1 << 16);
  let count = 0;
  const statusCodes: Record<string, number> = {};
  let peak: number | null = null;
  const sampler = setInterval(() => {
    const rss = rssMb(options.pid);
    if (rss !== null) peak = Math.max(peak ?? 0, rss);
  }, 250);
  const cpuBefore = cpuSeconds(options.pid);
  const started = performance.now();
  const instance = autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationSeconds,
    timeout: 30,
    requests: [request],
  });
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (count === samples.length) {
      const grown = new Float64Array(samples.length * 2);
      grown.set(samples);
      samples = grown;
    }
    samples[count++] = responseTime;
    statusCodes[statusCode] = (statusCodes[statusCode] ?? 0) + 1;
  });
  const result = await instance;
  const elapsed = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const rssEnd = rssMb(options.pid);
  const cpuAfter = cpuSeconds(options.pid);
  const cpuUsed = cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore;
  return {
    requests: count,
    requests_per_s: Math.round(count / (result.duration || elapsed)),
    latency_ms: summarize(samples.slice(0, count).sort()),
    errors: result.errors,
    timeouts: result.timeouts,
    non_2xx: result.non2xx,
    status_codes: statusCodes,
    rss_mb_peak: peak === null ? rssEnd : Math.max(peak, rssEnd ?? 0),
    rss_mb_end: rssEnd,
    server_cpu_us_per_request: cpuUsed === null || count === 0 ? null : Math.round((cpuUsed * 1e6) / count),
  };
}
