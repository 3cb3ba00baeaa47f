import { createHash } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { BlobStore } from '../../src/storage/blob-store.js';

/**
 * Row count and checksum of every table, and when given the blob store, every blob's key and size: what
 * "the data did not change" means in the fuzz and BOLA tests (a refused upload that leaves a file behind
 * changes the data as much as one that leaves a row). Bookkeeping that every request may write is left
 * out: the audit log (one record per request), idempotency keys (a 4xx answer is stored for replay,
 * docs/design.md §6) and a token's last use. So is SQLite's text index (FTS5, its queue and rowids: migration 010):
 * the search indexer feeds it in the background from `search_docs`, which is compared like any table.
 */
export type Snapshot = Record<string, { rows: number; checksum: string; blobs?: string[] }>;

/** The snapshot's entry for the blob store; the space keeps it apart from any table name. */
export const STORAGE_ENTRY = 'storage blobs';

const BOOKKEEPING_TABLES = new Set(['audit_log', 'idempotency_keys']);
const BOOKKEEPING_COLUMNS: Record<string, string[]> = { api_tokens: ['last_used_at', 'last_used_ip'] };

export async function tableNames(db: Kysely<any>, dialect: 'sqlite' | 'postgres'): Promise<string[]> {
  if (dialect === 'sqlite') {
    const rows = await sql<{
      name: string;
    }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`.execute(db);
    return rows.rows.map((r) => r.name);
  }
  const rows = await sql<{ name: string }>`select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(db);
  return rows.rows.map((r) => r.name);
}

export async function snapshot(db: Kysely<any>, dialect: 'sqlite' | 'postgres', blobs?: BlobStore): Promise<Snapshot> {
  const out: Snapshot = {};
  if (blobs) {
    const lines = await blobList(blobs);
    out[STORAGE_ENTRY] = {
      rows: lines.length,
      checksum: createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16),
      blobs: lines,
    };
  }
  for (const table of await tableNames(db, dialect)) {
    if (BOOKKEEPING_TABLES.has(table) || table.startsWith('search_fts')) continue;
    const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db)).rows;
    const skip = BOOKKEEPING_COLUMNS[table] ?? [];
    const lines = rows
      .map((row) =>
        JSON.stringify(
          Object.entries(row).filter(([column]) => !skip.includes(column)),
          (_k, v) => (Buffer.isBuffer(v) ? v.toString('base64') : typeof v === 'bigint' ? String(v) : v),
        ),
      )
      .sort();
    out[table] = { rows: rows.length, checksum: createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16) };
  }
  return out;
}

/**
 * `key size` of every blob, in the store's listing order (through the BlobStore interface, so a disk or
 * an S3 store alike; the store's own scratch space is not blobs).
 */
async function blobList(blobs: BlobStore): Promise<string[]> {
  const lines: string[] = [];
  for await (const key of blobs.list('')) {
    const blob = await blobs.get(key);
    if (!blob) continue; // deleted between the listing and the read: not there
    blob.stream.destroy();
    lines.push(`${key} ${blob.size}`);
  }
  return lines;
}

/** The tables (and the storage) whose count or checksum differ, for a readable failure. */
export function changedTables(before: Snapshot, after: Snapshot): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names]
    .filter((t) => JSON.stringify(before[t]) !== JSON.stringify(after[t]))
    .map((t) => {
      if (t !== STORAGE_ENTRY) return t;
      const was = new Set(before[t]?.blobs ?? []);
      const is = new Set(after[t]?.blobs ?? []);
      const added = [...is].filter((b) => !was.has(b)).map((b) => `+${b}`);
      const removed = [...was].filter((b) => !is.has(b)).map((b) => `-${b}`);
      return `${t} (${[...added, ...removed].join(', ')})`;
    });
}
