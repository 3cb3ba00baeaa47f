import { execFile } from 'node:child_process';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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
