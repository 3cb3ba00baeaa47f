import type { Writable } from 'node:stream';

/** An output stream of a command; `isTTY` when it is a terminal (as process.stdout is then). */
export type CliStream = Writable & { isTTY?: boolean };

/**
 * Everything a command takes from the outside world, passed down explicitly: bin/punchlist gives the
 * process's (processIo), a test gives its own environment, directory and collecting streams, so that it can
 * run the commands in its own process. FILE and DIR arguments are resolved against `cwd`; relative paths
 * inside the environment (DATABASE_URL, DATA_DIR, …) are resolved by loadConfig against the process's.
 */
export interface CliIo {
  env: Record<string, string | undefined>;
  cwd: string;
  stdout: CliStream;
  stderr: CliStream;
}

/** The IO of the `punchlist` process: the only place of the CLI that reads process.env and its streams. */
export function processIo(): CliIo {
  return { env: process.env, cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr };
}
