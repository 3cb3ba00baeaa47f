import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The real server as a child process (`node --import tsx src/main.ts`, what `bin/punchlist serve`
 * runs, with its dependencies preloaded): for tests that kill it, and for the soak run. Only the variables given (and PATH, HOME,
 * TMPDIR) reach it.
 */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ChildServer {
  url: string;
  port: number;
  process: ChildProcess;
  /** Resolves with the exit code or signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** What the process wrote to stderr and stdout so far. */
  output(): string;
  /** Milliseconds from spawn to the first healthy answer. */
  startMs: number;
}

/**
 * A port that was free a moment ago (loopback), below the kernel's ephemeral range (32768–60999 here):
 * a port the kernel picked for `listen(0)` can be taken by any outgoing connection of a parallel test
 * before the child server binds it (EADDRINUSE); one outside that range only by another listener.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

export async function startChildServer(options: {
  env: Record<string, string>;
  port?: number;
  readyTimeoutMs?: number;
}): Promise<ChildServer> {
  const port = options.port ?? (await freePort());
  const started = performance.now();
  // As `npm start`: the JavaScript dependencies load before tsx's hooks (src/preload-dependencies.mjs).
  const preload = join(REPO_ROOT, 'src', 'preload-dependencies.mjs');
  const child = spawn(process.execPath, ['--import', preload, '--import', 'tsx', join(REPO_ROOT, 'src', 'main.ts')], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      TMPDIR: process.env.TMPDIR ?? '/tmp',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += String(chunk)));
  child.stderr!.on('data', (chunk) => (output += String(chunk)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  let done = false;
  void exited.then(() => (done = true));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  while (Date.now() < deadline) {
    if (done) throw new Error(`the server exited before it was ready:\n${output}`);
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
      if (res.ok) {
        return { url, port, process: child, exited, output: () => output, startMs: performance.now() - started };
      }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`the server did not answer /healthz within ${options.readyTimeoutMs ?? 60_000} ms:\n${output}`);
}
