import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase, testDialect } from '../../../test/helpers/database.js';
import { type Db, openDatabase } from '../../db/database.js';
import { migrateToLatest } from '../../db/migrate.js';
import { createAuditRepository } from './audit.repository.js';
import { type AuditFilter, type AuditRecord, type AuditService, createAuditService } from './audit.service.js';

const TOTAL = 2345;
const START = Date.parse('2026-05-01T00:00:00.000Z');

let dir: string;
let database: TestDatabase;
let db: Db;
let audit: AuditService;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'punchlist-audit-stream-'));
  database = await createTestDatabase(dir, testDialect(), { migrated: true });
  db = openDatabase(database.url);
  await migrateToLatest(db.kysely);
  audit = createAuditService(createAuditRepository(db.kysely));
  const rows = Array.from({ length: TOTAL }, (_, i) => ({
    request_id: `r${i}`,
    at: new Date(START + i * 1000).toISOString(),
    token_id: (i % 3) + 1,
    user_id: 1,
    method: 'GET',
    path: '/api/external/v1/auth/me.php',
    query: '',
    status: i % 10 === 0 ? 401 : 200,
    duration_ms: 1,
  }));
  for (let i = 0; i < rows.length; i += 100)
    await db.kysely
      .insertInto('audit_log')
      .values(rows.slice(i, i + 100))
      .execute();
});

afterAll(async () => {
  await db.close();
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function pages(filter: AuditFilter): Promise<AuditRecord[][]> {
  const out: AuditRecord[][] = [];
  for await (const page of audit.stream(filter, 1000)) out.push(page);
  return out;
}

describe('audit stream', () => {
  it('reads every record, newest first, one page at a time', async () => {
    const all = await pages({});
    expect(all.map((p) => p.length)).toEqual([1000, 1000, 345]);
    const records = all.flat();
    expect(records.map((r) => r.request_id)).toEqual(Array.from({ length: TOTAL }, (_, i) => `r${TOTAL - 1 - i}`));
    expect(records).toEqual(await audit.list({ limit: TOTAL }));
  });

  it('honours the filters and the limit across pages', async () => {
    const since = new Date(START + 1000 * 1000).toISOString();
    const filter = { tokenId: 2, since };
    expect((await pages(filter)).flat()).toEqual(await audit.list({ ...filter, limit: TOTAL }));
    expect((await pages(filter)).flat().every((r) => r.token_id === 2 && r.at >= since)).toBe(true);
    const limited = await pages({ limit: 1500 });
    expect(limited.map((p) => p.length)).toEqual([1000, 500]);
    expect(limited.flat()).toEqual(await audit.list({ limit: 1500 }));
    expect((await pages({ tokenId: 99 })).flat()).toEqual([]);
  });
});
