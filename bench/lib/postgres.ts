/**
 * A fresh PostgreSQL database for one benchmark run on the machine's server, dropped at the end (with
 * `force`: server processes that did not exit cleanly must not keep it alive).
 */
import pg from 'pg';

export interface BenchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** BENCH_PG: a URL of the server's maintenance database, with a role that may create databases. */
export const ADMIN_URL = process.env.BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates `<prefix>_<pid>`, dropping a leftover of that name first. */
export async function createBenchDatabase(prefix: string): Promise<BenchDatabase> {
  const name = `${prefix}_${process.pid}`;
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  await admin(async (c) => {
    await c.query(`drop database if exists ${name} with (force)`);
    await c.query(`create database ${name}`);
  });
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () => admin((c) => c.query(`drop database if exists ${name} with (force)`)).then(() => undefined),
  };
}

/** Runs statements on one database (outside a transaction: `vacuum` refuses to run inside one). */
export async function execute(url: string, statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

/** The server's version line and the settings that bear on throughput. */
export async function serverInfo(url: string): Promise<Record<string, string>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const info: Record<string, string> = {};
    const version = await client.query<{ server_version: string }>('show server_version');
    info.version = version.rows[0]?.server_version ?? 'unknown';
    for (const name of ['max_connections', 'shared_buffers', 'synchronous_commit', 'fsync']) {
      const row = await client.query<Record<string, string>>(`show ${name}`);
      info[name] = row.rows[0]?.[name] ?? 'unknown';
    }
    return info;
  } finally {
    await client.end();
  }
}
