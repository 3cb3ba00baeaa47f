import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/shared/config.js';
import { createContext } from '../../src/composition/context.js';
import type { NewAuditRecord } from '../../src/db/tables.js';
import { expectOk } from '../helpers/envelope.js';
import { createTestDatabase, testDialect } from '../helpers/database.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';

/**
 * Records of requests that wrote nothing are written in batches (features/audit/audit-batcher.ts);
 * successful writes keep writing theirs inside their own transaction (test/api/writes-*.test.ts).
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const rowsOf = (requestIds: string[]) =>
  server.ctx.db.kysely.selectFrom('audit_log').select(['id', 'request_id']).where('request_id', 'in', requestIds).orderBy('id').execute();

function record(requestId: string): NewAuditRecord {
  return {
    request_id: requestId,
    at: new Date().toISOString(),
    token_id: null,
    user_id: null,
    method: 'GET',
    path: `${V1}/auth/me.php`,
    query: '',
    status: 401,
    error_code: 'unauthorized',
    ip: '127.0.0.1',
    user_agent: null,
    duration_ms: 0.5,
    entity_type: null,
    entity_id: null,
    client_request_id: null,
  };
}

describe('batched audit records', () => {
  it('a queued record is in the table after flush(), and the audit readers see it without waiting', async () => {
    server.ctx.audit.recordLater(record('batch-a'));
    await server.ctx.audit.flush();
    expect((await rowsOf(['batch-a'])).map((r) => r.request_id)).toEqual(['batch-a']);

    server.ctx.audit.recordLater(record('batch-b'));
    const listed = await server.ctx.audit.list({ limit: 5 });
    expect(listed.map((r) => r.request_id)).toContain('batch-b');
  });

  it('keeps the order in which records were queued', async () => {
    const ids = Array.from({ length: 700 }, (_, i) => `order-${i}`);
    for (const id of ids) server.ctx.audit.recordLater(record(id));
    await server.ctx.audit.flush();
    expect((await rowsOf(ids)).map((r) => r.request_id)).toEqual(ids);
  });

  it('a write after reads is the newest record: queued records are written before the write records its own', async () => {
    const read = await server.call(`${V1}/auth/me.php`, { token: server.tokens.manager });
    expectOk(read);
    const write = await server.call(`${V1}/comments/create.php`, {
      method: 'POST',
      token: server.tokens.manager,
      json: { item_id: 1000, text: 'after a read' },
    });
    expect(write.status).toBe(201);
    const rows = await rowsOf([read.headers.get('x-request-id')!, write.headers.get('x-request-id')!]);
    expect(rows.map((r) => r.request_id)).toEqual([read.headers.get('x-request-id'), write.headers.get('x-request-id')]);
  });

  it('a read is recorded within the batch window, without anyone flushing', async () => {
    const res = await server.call(`${V1}/auth/me.php`, { token: server.tokens.manager });
    expectOk(res);
    const requestId = res.headers.get('x-request-id')!;
    let rows: Awaited<ReturnType<typeof rowsOf>> = [];
    for (let i = 0; i < 50 && rows.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      rows = await rowsOf([requestId]);
    }
    expect(rows).toHaveLength(1);
  });
});

describe('nothing is lost on a clean shutdown', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'punchlist-audit-close-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('app.close() writes the records of the requests it finished; ctx.close() writes what is still queued', async () => {
    const database = await createTestDatabase(dir, testDialect(), { migrated: true });
    const config = loadConfig({
      DATABASE_URL: database.url,
      STORAGE_URL: `file:${join(dir, 'storage')}`,
      DATA_DIR: dir,
      PORT: '0',
      LOG_LEVEL: 'silent',
      SESSION_SECRET: 'test-secret',
    });
    try {
      const ctx = await createContext(config);
      const app = await buildApp(ctx, { logger: false });
      await app.listen({ host: '127.0.0.1', port: 0 });
      const address = app.server.address();
      const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      const requestIds: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${url}${V1}/auth/me.php`); // 401, recorded by the onResponse hook
        await res.arrayBuffer();
        requestIds.push(res.headers.get('x-request-id')!);
      }
      await app.close();
      const afterAppClose = await ctx.db.kysely.selectFrom('audit_log').select('request_id').orderBy('id').execute();
      expect(afterAppClose.map((r) => r.request_id)).toEqual(requestIds);

      ctx.audit.recordLater(record('queued-at-shutdown'));
      await ctx.close();

      const reopened = await createContext(config);
      try {
        const rows = await reopened.db.kysely.selectFrom('audit_log').select('request_id').orderBy('id').execute();
        expect(rows.map((r) => r.request_id)).toEqual([...requestIds, 'queued-at-shutdown']);
      } finally {
        await reopened.close();
      }
    } finally {
      await database.drop();
    }
  });
});
