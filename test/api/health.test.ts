import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('health and readiness', () => {
  let server: TestServer;
  let broken: TestServer;
  let blockerDir: string;
  beforeAll(async () => {
    server = await startTestServer({ workspace: false });
    // Storage below a plain file can never be written: the node is alive but not ready.
    blockerDir = mkdtempSync(join(tmpdir(), 'punchlist-blocker-'));
    const blocker = join(blockerDir, 'not-a-directory');
    writeFileSync(blocker, 'x');
    broken = await startTestServer({ workspace: false, env: { STORAGE_URL: `file:${blocker}/storage` } });
  });
  afterAll(async () => {
    await server.close();
    await broken.close();
    rmSync(blockerDir, { recursive: true, force: true });
  });

  it('answers /healthz and /readyz without a token', async () => {
    expect(await server.call('/healthz')).toMatchObject({ status: 200, body: { ok: true } });
    expect(await server.call('/readyz')).toMatchObject({ status: 200, body: { ok: true, checks: { database: 'ok', storage: 'ok' } } });
  });

  it('is not ready when the storage is unusable', async () => {
    expect(await broken.call('/healthz')).toMatchObject({ status: 200 });
    expect(await broken.call('/readyz')).toMatchObject({
      status: 503,
      body: { ok: false, checks: { database: 'ok', storage: 'unavailable' } },
    });
  });

  it('keeps health checks out of the audit log', async () => {
    await server.call('/readyz');
    expect(await server.ctx.audit.list()).toEqual([]);
  });
});
