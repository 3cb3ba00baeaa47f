import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect } from 'vitest';
import { main } from '../../src/cli/main.js';
import { loadConfig } from '../../src/shared/config.js';
import { type AppContext, createContext } from '../../src/composition/context.js';

/** The real `bin/punchlist`, run as an operator would: a child process, by absolute path. */
export const BIN = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'punchlist');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `bin/punchlist` in `where().cwd` with exactly `where().env` (plus `extraEnv`); never throws. */
export function cliRunner(where: () => { cwd: string; env: Record<string, string> }) {
  return (args: string[], extraEnv: Record<string, string> = {}): Promise<Run> =>
    new Promise((done) => {
      const { cwd, env } = where();
      execFile(BIN, args, { cwd, env: { ...env, ...extraEnv }, timeout: 90_000 }, (err, stdout, stderr) => {
        done({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
      });
    });
}

/** A stream that keeps what is written to it (a command's stdout or stderr), as text at the end. */
function collector() {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/**
 * Runs the commands in this process, on the same main() as bin/punchlist, with `where().cwd` and exactly
 * `where().env` (plus `extraEnv`) as their io; never throws. Relative paths in the environment would be
 * resolved against the test process's directory: give those to cliRunner. One command at a time: two
 * commands opening their own contexts on one SQLite file in one thread can deadlock (better-sqlite3's busy
 * wait blocks the event loop while the other context's transaction awaits).
 */
export function inProcessRunner(where: () => { cwd: string; env: Record<string, string> }) {
  let queue: Promise<unknown> = Promise.resolve();
  return (args: string[], extraEnv: Record<string, string> = {}): Promise<Run> => {
    const result = queue.then(async () => {
      const { cwd, env } = where();
      const [stdout, stderr] = [collector(), collector()];
      const code = await main(args, { env: { ...env, ...extraEnv }, cwd, stdout: stdout.stream, stderr: stderr.stream });
      return { code, stdout: stdout.text(), stderr: stderr.text() };
    });
    queue = result.catch(() => {});
    return result;
  };
}

/** The environment of a CLI test: only what an operator sets, on a SQLite file and disk storage in `dir`. */
export function cliEnv(dir: string): Record<string, string> {
  return {
    // `#!/usr/bin/env node` must find this very Node first.
    PATH: [dirname(process.execPath), process.env.PATH ?? ''].join(delimiter),
    HOME: dir,
    DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`,
    STORAGE_URL: `file:${join(dir, 'storage')}`,
    DATA_DIR: dir,
    LOG_LEVEL: 'warn',
  };
}

/** The setup of a test/cli/*.test.ts file; its fields are filled in before the file's first test. */
export interface CliFile {
  /** The temp directory: the working directory of every command, holding its SQLite file and storage. */
  dir: string;
  env: Record<string, string>;
  /** A context of the test process on the same database, to look at the rows directly (with `context: true`). */
  ctx: AppContext;
}

/**
 * The checks of the operator contract on a runner: success is status 0 and nothing on stderr; failure is a
 * non-zero status and exactly one line `punchlist: <reason>`, never a stack trace.
 */
function contract(run: (args: string[], extraEnv?: Record<string, string>) => Promise<Run>) {
  async function ok(args: string[]): Promise<string> {
    const result = await run(args);
    expect(result.stderr, `stderr of punchlist ${args.join(' ')}`).toBe('');
    expect(result.code, `exit status of punchlist ${args.join(' ')}`).toBe(0);
    return result.stdout;
  }

  async function fails(args: string[]): Promise<string> {
    const result = await run(args);
    expect(result.code, `exit status of punchlist ${args.join(' ')}`).not.toBe(0);
    expect(result.stderr).toMatch(/^punchlist: \S[^\n]*\n$/);
    expect(result.stderr).not.toMatch(/\bat .*\.ts:\d+/);
    return result.stderr;
  }

  async function json<T = any>(args: string[]): Promise<T> {
    return JSON.parse(await ok(args)) as T;
  }

  return { run, ok, fails, json };
}

/**
 * A CLI test file's own data location (cliEnv in a temp directory, removed after the file) and the contract's
 * checks (see contract) with two runners on it: `run`, `ok`, `fails` and `json` run the commands in the test
 * process (inProcessRunner: a command costs milliseconds instead of a second of CPU for Node, tsx and the app);
 * `spawned` runs the real bin/punchlist as a child process, for the few cases per file that prove the binary
 * (its exit status, its stderr, relative paths in its environment).
 */
export function useCliFile(options: { context?: boolean } = {}) {
  const cli = {} as CliFile;
  beforeAll(async () => {
    cli.dir = await mkdtemp(join(tmpdir(), 'punchlist-cli-'));
    cli.env = cliEnv(cli.dir);
    if (options.context) cli.ctx = await createContext(loadConfig(cli.env));
  });
  afterAll(async () => {
    await cli.ctx?.close();
    if (cli.dir) await rm(cli.dir, { recursive: true, force: true });
  });
  const where = () => ({ cwd: cli.dir, env: cli.env });
  const { run, ok, fails, json } = contract(inProcessRunner(where));
  const spawned = contract(cliRunner(where));

  /** Rows of the tables the commands write. */
  async function counts() {
    const db = cli.ctx.db.kysely;
    const count = async (table: 'users' | 'projects' | 'items' | 'comments' | 'answers' | 'document_links' | 'api_tokens') =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return {
      users: await count('users'),
      projects: await count('projects'),
      items: await count('items'),
      comments: await count('comments'),
      answers: await count('answers'),
      links: await count('document_links'),
      tokens: await count('api_tokens'),
    };
  }

  return { cli, run, ok, fails, json, counts, spawned };
}
