/** The servers of the benchmarks, as child processes: Punchlist as `npm start` runs it (production mode), and the ceilings. */
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { freePort, type ServerProcess, startServer } from './load.js';

const ROOT = resolve(new URL('../..', import.meta.url).pathname);
const DATA = join(ROOT, 'data', 'bench');
let built = false;

/** How `npm start` runs the server: dist/ (built once per benchmark run by scripts/build.mjs), without tsx. */
export function punchlistCommand(): { script: string; nodeArgs: string[] } {
  if (!built) execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { stdio: 'inherit' });
  built = true;
  return { script: join(ROOT, 'dist/src/main.js'), nodeArgs: ['--import', join(ROOT, 'dist/src/preload-dependencies.mjs')] };
}

/**
 * The environment every benchmark gives a Punchlist node: production mode, quiet logs, no rate limit, its database,
 * its storage (`storageDir`, default DATA_DIR/storage) and its address. Callers add what they vary.
 */
export function serverEnv(options: { databaseUrl: string; dataDir: string; storageDir?: string; port: number }): Record<string, string> {
  return {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '0',
    DATABASE_URL: options.databaseUrl,
    STORAGE_URL: `file:${options.storageDir ?? join(options.dataDir, 'storage')}`,
    DATA_DIR: options.dataDir,
    SESSION_SECRET: 'bench',
    HOST: '127.0.0.1',
    PORT: String(options.port),
  };
}

/** Punchlist on a copy of the workspace (`file`); `profileName`: under --cpu-prof, profiles in data/bench/profiles/<name>. */
export async function startPunchlist(
  file: string,
  profileName?: string,
  metrics: 'on' | 'off' = 'on',
  notifications: 'on' | 'off' = 'on',
): Promise<ServerProcess> {
  const { script, nodeArgs } = punchlistCommand();
  const port = await freePort();
  const dir = join(file, '..');
  // One directory per scenario: each worker thread writes a profile of its own beside the main thread's.
  const profile = profileName ? ['--cpu-prof', `--cpu-prof-dir=${join(DATA, 'profiles', profileName)}`] : [];
  return startServer({
    name: 'punchlist',
    script,
    nodeArgs: [...profile, ...nodeArgs],
    port,
    probePath: '/healthz',
    env: {
      ...serverEnv({ databaseUrl: `sqlite:${file}`, dataDir: dir, port }),
      // As `npm start` and docs/deployment.md run a node: glibc keeps fewer malloc arenas (RSS).
      MALLOC_ARENA_MAX: '2',
      METRICS: metrics,
      NOTIFICATIONS: notifications,
    },
  });
}

/** A ceiling of the same run; `static` serves the files of `dir` with @fastify/static. */
export async function startCeiling(kind: 'fastify' | 'http' | 'static', dir?: string): Promise<ServerProcess> {
  const port = await freePort();
  return startServer({
    name: kind,
    script: join(ROOT, 'bench/lib/ceiling-server.ts'),
    args: [kind, String(port), ...(dir ? [dir] : [])],
    port,
    probePath: '/',
    env: { NODE_ENV: 'production' },
  });
}
