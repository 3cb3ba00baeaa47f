import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './child-server.js';

const run = promisify(execFile);

/**
 * A PostgreSQL cluster of the test's own (initdb + pg_ctl on a temp directory and a free loopback
 * port), for tests that stop the database: the machine's shared server is never touched. As root,
 * the cluster runs as the `postgres` user (initdb refuses root).
 */
export interface PrivatePostgres {
  url: string;
  port: number;
  /** `pg_ctl stop` with the given mode (immediate: like a crash). */
  stop(mode?: 'smart' | 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  /** Stops the cluster if it runs and removes its directory. */
  destroy(): Promise<void>;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (!versions[0]) throw new Error(`no PostgreSQL server binaries (initdb, pg_ctl) under ${root}: install the postgresql package`);
  return join(root, versions[0], 'bin');
}

async function asOwner(command: string, args: string[]): Promise<string> {
  const asRoot = process.getuid?.() === 0;
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  try {
    const { stdout, stderr } = await run(file, argv, { timeout: 60_000 });
    return stdout + stderr;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'punchlist-pg-'));
  const data = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  if (process.getuid?.() === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']).catch(() => {
      throw new Error('running as root, and there is no "postgres" user to run the private PostgreSQL cluster as');
    });
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  await asOwner(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  let running = false;
  const cluster: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async start() {
      try {
        await asOwner(join(bin, 'pg_ctl'), ['-D', data, '-o', options, '-l', logFile, '-w', '-t', '60', 'start']);
      } catch (err) {
        const log = existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-2000) : '';
        throw new Error(`${(err as Error).message}\n${log}`);
      }
      running = true;
    },
    async stop(mode = 'fast') {
      await asOwner(join(bin, 'pg_ctl'), ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
      running = false;
    },
    async destroy() {
      if (running) await cluster.stop('immediate').catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await cluster.start();
  return cluster;
}
