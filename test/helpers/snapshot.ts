import { createHash } from 'node:crypto';
import { type Kysely, sql } from 'kysely';

/**
 * Row count and checksum of every table: what "the data did not change" means in the fuzz and BOLA
 * tests. Bookkeeping that every request may write is left out: the audit log (one record per request),
 * idempotency keys (a 4xx answer is stored for replay, DESIGN.md §6) and a token's last use.
 */
export type Snapshot = Record<string, { rows: number; checksum: string }>;

const BOOKKEEPING_TABLES = new Set(['audit_log', 'idempotency_keys']);
const BOOKKEEPING_COLUMNS: Record<string, string[]> = { api_tokens: ['last_used_at', 'last_used_ip'] };

async function tableNames(db: Kysely<any>, dialect: 'sqlite' | 'postgres'): Promise<string[]> {
  if (dialect === 'sqlite') {
    const rows = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`.execute(db);
    return rows.rows.map((r) => r.name);
  }
  const rows = await sql<{ name: string }>`select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(db);
  return rows.rows.map((r) => r.name);
}

export async function snapshot(db: Kysely<any>, dialect: 'sqlite' | 'postgres'): Promise<Snapshot> {
  const out: Snapshot = {};
  for (const table of await tableNames(db, dialect)) {
    if (BOOKKEEPING_TABLES.has(table)) continue;
    const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db)).rows;
    const skip = BOOKKEEPING_COLUMNS[table] ?? [];
    const lines = rows
      .map((row) => JSON.stringify(Object.entries(row).filter(([column]) => !skip.includes(column)), (_k, v) => (Buffer.isBuffer(v) ? v.toString('base64') : typeof v === 'bigint' ? String(v) : v)))
      .sort();
    out[table] = { rows: rows.length, checksum: createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16) };
  }
  return out;
}

/** The tables whose count or checksum differ, for a readable failure. */
export function changedTables(before: Snapshot, after: Snapshot): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((t) => JSON.stringify(before[t]) !== JSON.stringify(after[t]));
}
