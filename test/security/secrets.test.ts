import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/shared/config.js';
import { type AppContext, createContext } from '../../src/composition/context.js';
import { generateToken, hashToken } from '../../src/domain/token-format.js';
import { importFixture } from '../../src/features/fixtures/import.service.js';
import { createTestDatabase, type TestDatabase, testDialect } from '../helpers/database.js';
import { makeToken } from '../helpers/factories.js';
import { solid } from '../helpers/images.js';
import { operationsOf, type SampleIds, sampleFor, sampleRequest } from '../helpers/operations.js';
import { rawRequest } from '../helpers/raw-http.js';
import { freeLoopbackPort, V1 } from '../helpers/server.js';
import { buildWorkspace, PASSWORD, type UserKey, USERS } from '../helpers/workspace.js';
import { seedWorkspacePlan } from '../helpers/plans.js';
import { decode, WebClient } from '../web/web-client.js';

/**
 * No raw token and no password ever reaches the log (captured at trace level), the audit table or an
 * error message, whatever a client does with them: the right header, the wrong header, the URL, the
 * body, the web sign-in form, token creation in the web interface.
 */

let dir: string;
let database: TestDatabase;
let ctx: AppContext;
let app: Awaited<ReturnType<typeof buildApp>>;
let url: string;
const log: string[] = [];
/** Every secret used: raw tokens and passwords. */
const secrets = new Set<string>();
/** Bodies of every error answer (status ≥ 400). */
const errorBodies: string[] = [];
let requests = 0;
let workspaceTokens: Record<UserKey, string>;

async function send(path: string, init: RequestInit = {}) {
  requests++;
  const response = await fetch(url + path, init);
  const text = await response.text();
  if (response.status >= 400) errorBodies.push(text);
  return { status: response.status, text };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'punchlist-secrets-'));
  database = await createTestDatabase(dir, testDialect(), { migrated: true });
  const port = await freeLoopbackPort();
  url = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    DATABASE_URL: database.url,
    STORAGE_URL: `file:${join(dir, 'storage')}`,
    DATA_DIR: dir,
    PORT: String(port),
    BASE_URL: url,
    SESSION_SECRET: 'secrets-test-session-secret',
    RATE_LIMIT_PER_MINUTE: '0',
  });
  ctx = await createContext(config);
  const workspace = buildWorkspace();
  await importFixture(ctx.db.kysely, ctx.db.dialect, workspace.fixture, ctx.clock);
  await seedWorkspacePlan(ctx);
  workspaceTokens = workspace.tokens;
  for (const raw of Object.values(workspace.tokens)) secrets.add(raw);
  secrets.add(PASSWORD);
  const stream = new Writable({
    write(chunk, _encoding, done) {
      log.push(String(chunk));
      done();
    },
  });
  app = await buildApp(ctx, { logger: { level: 'trace', stream } });
  await app.listen({ host: '127.0.0.1', port });
});

afterAll(async () => {
  await app?.close();
  await ctx?.close();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('secrets', () => {
  it('never appear in the log, the audit table or an error message', async () => {
    const tokens = workspaceTokens;
    const admin = tokens.admin;
    const png = await solid(16, 16, 'png');

    // Every operation with a valid token, so the log and the audit see real work.
    const upload = await send(
      `${V1}/items/attachments.php`,
      sampleRequest({ method: 'POST', url: `${V1}/items/attachments.php` }, { form: { item_id: '1000' } }, png, admin).init,
    );
    const answerUpload = await send(
      `${V1}/answers/attachments.php`,
      sampleRequest({ method: 'POST', url: `${V1}/answers/attachments.php` }, { form: { answer_id: '7000' } }, png, admin).init,
    );
    const ids: SampleIds = {
      itemAttachmentId: JSON.parse(upload.text).data.attachments[0].id,
      answerAttachmentId: JSON.parse(answerUpload.text).data.attachments[0].id,
    };
    for (const op of operationsOf(app)) {
      const { path, init } = sampleRequest(op, sampleFor(op, ids), png, admin);
      expect((await send(path, init)).status, `${op.method} ${op.url}`).toBeLessThan(300);
    }

    // Tokens in every wrong state and every wrong place.
    const created = await makeToken({ ctx }, { id: USERS.manager }, ['auth:me'], { name: 'to revoke' });
    secrets.add(created.token);
    await ctx.tokens.revokeToken(created.id);
    const expired = generateToken();
    secrets.add(expired);
    // A raw row: the tokens service refuses an expiry in the past.
    await ctx.db.kysely
      .insertInto('api_tokens')
      .values({
        user_id: USERS.manager,
        name: 'expired',
        token_hash: hashToken(expired),
        scopes: '["auth:me"]',
        created_at: '2020-01-01T00:00:00.000Z',
        expires_at: '2020-02-01T00:00:00.000Z',
        revoked_at: null,
      })
      .execute();
    const unknown = generateToken();
    secrets.add(unknown);
    const all = [admin, tokens.partial, tokens.inactive, created.token, expired, unknown];
    for (const raw of all) {
      const auth = { authorization: `Bearer ${raw}` };
      await send(`${V1}/auth/me.php`, { headers: auth });
      await send(`${V1}/auth/me.php`, { headers: { authorization: `Bearer ${raw}x` } });
      await send(`${V1}/auth/me.php`, { headers: { authorization: `Bearer ${raw.slice(0, -3)}` } });
      await send(`${V1}/auth/me.php`, {
        headers: { authorization: `Basic ${Buffer.from(`admin@punchlist.test:${PASSWORD}`).toString('base64')}` },
      });
      await send(`${V1}/auth/me.php`, { headers: { authorization: raw } });
      await send(`${V1}/projects/list.php?access_token=${raw}&token=${raw}&password=${encodeURIComponent(PASSWORD)}`);
      await send(`${V1}/projects/list.php?limit=${raw}`, { headers: auth });
      await send(`${V1}/items/get.php?id=${raw}`, { headers: auth });
      await send(`${V1}/${raw}`, { headers: auth });
      await send(`/api/items/file.php?id=${raw}`, { headers: auth });
      await send(`${V1}/auth/me.php`, { headers: { ...auth, 'x-request-id': raw, 'user-agent': `bot ${raw}`, 'x-api-key': raw } });
      await send(`${V1}/comments/create.php`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': raw },
        body: JSON.stringify({ item_id: raw, token: raw }),
      });
      await send(`${V1}/items/status.php`, {
        method: 'PATCH',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ id: 1000, status: raw }),
      });
      await send(`${V1}/items/links.php`, {
        method: 'PUT',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ id: 1000, document_links: [{ title: 't', url: raw, kind: raw }] }),
      });
      await send(`${V1}/items/planning.php`, {
        method: 'PATCH',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ id: 1000, deadline: raw, priority: raw }),
      });
      await send(`${V1}/comments/create.php`, { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: raw });
      await send(`${V1}/comments/create.php`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: `{"text": "${raw}`,
      });
      await send('/mcp', {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      await send(`/login?next=/items/1000&token=${raw}`);
      // Headers over the limit and a malformed request line, with the token in them.
      requests += 2;
      await rawRequest(Number(new URL(url).port), {
        method: 'GET',
        target: `${V1}/auth/me.php?token=${raw}`,
        headers: [
          ['Authorization', `Bearer ${raw}`],
          ['X-Pad', 'p'.repeat(17_000)],
        ],
      });
      await rawRequest(Number(new URL(url).port), {
        method: 'GET',
        target: `${V1}/auth/me.php`,
        requestLine: `GET /api/${raw} HTTP/1.1 ${raw}`,
        headers: [['Authorization', `Bearer ${raw}`]],
      });
    }

    // The web interface: failed and successful sign-in, a token created and revoked, a user created.
    const wrongPassword = 'Tr0ub4dor&3-not-the-password';
    const newPassword = 'a brand new password 42';
    secrets.add(wrongPassword);
    secrets.add(newPassword);
    const web = new WebClient(url);
    const record = (res: { status: number; text: string }) => {
      requests++;
      if (res.status >= 400) errorBodies.push(res.text);
      return res;
    };
    const loginPage = record(await web.get('/login'));
    record(await web.post('/login', { email: 'admin@punchlist.test', password: wrongPassword }, loginPage.text));
    record(await web.post('/login', { email: 'nobody@punchlist.test', password: PASSWORD }, loginPage.text));
    record(await web.post('/login', { email: 'admin@punchlist.test', password: PASSWORD, _csrf: 'forged' }));
    record(
      await web.post(
        `/login?password=${encodeURIComponent(PASSWORD)}`,
        { email: 'admin@punchlist.test', password: PASSWORD },
        (await web.get('/login')).text,
      ),
    );
    expect(web.cookies.size).toBeGreaterThan(0);
    const createdPage = record(
      await web.post(
        '/profile/tokens',
        { name: 'from the web', expiry: '30d', scopes: ['auth:me', 'items:read'] },
        (await web.get('/profile')).text,
      ),
    );
    expect(createdPage.status).toBe(201);
    const webToken = decode(/data-testid="new-token"[^>]*>([^<]+)</.exec(createdPage.text)?.[1] ?? '').trim();
    expect(webToken).toMatch(/^plk_[0-9A-Za-z]{36}$/);
    secrets.add(webToken);
    await send(`${V1}/auth/me.php`, { headers: { authorization: `Bearer ${webToken}` } });
    const [row] = (await ctx.tokens.listTokens(USERS.admin)).filter((t) => t.name === 'from the web');
    const profile = await web.get('/profile');
    record(await web.post(`/profile/tokens/${row!.id}/revoke`, { confirmed: '1' }, profile.text));
    await send(`${V1}/auth/me.php`, { headers: { authorization: `Bearer ${webToken}` } });
    const users = await web.get('/admin/users');
    record(await web.post('/admin/users', { email: 'new@punchlist.test', name: 'New', role: 'member', password: newPassword }, users.text));
    record(await web.post('/admin/users', { email: 'short@punchlist.test', name: 'Short', role: 'member', password: 'short' }, users.text));
    const newcomer = new WebClient(url);
    expect((await newcomer.signIn('new@punchlist.test', newPassword)).status).toBe(303);
    record(await new WebClient(url).signIn('new@punchlist.test', `${newPassword}!`));

    // What was written: the log, the audit table, every error answer.
    await ctx.audit.list({ limit: 1 }); // flushes batched records
    const audit = JSON.stringify(await ctx.db.kysely.selectFrom('audit_log').selectAll().execute());
    const logText = log.join('');
    const errors = errorBodies.join('\n');
    console.log(
      `secrets: ${secrets.size} secrets, ${requests} requests; ${log.length} log lines, ${audit.length} bytes of audit, ${errorBodies.length} error answers scanned`,
    );
    // The scans see what they should: the requests, and the redaction at work.
    expect(logText).toContain('/api/external/v1/auth/me.php');
    expect(logText).toContain('/login');
    expect(logText).toContain('[REDACTED]');
    expect(audit).toContain('[REDACTED]');
    expect(errorBodies.length).toBeGreaterThan(100);
    for (const secret of secrets) {
      const parts = [secret, ...(secret.startsWith('plk_') ? [secret.slice(4, 34), secret.slice(10)] : [])];
      for (const part of parts) {
        expect(logText.includes(part), `the log holds ${part.slice(0, 8)}…`).toBe(false);
        expect(audit.includes(part), `the audit table holds ${part.slice(0, 8)}…`).toBe(false);
        expect(
          errors.includes(part),
          `an error answer holds ${part.slice(0, 8)}…: ${errorBodies.find((e) => e.includes(part))?.slice(0, 300)}`,
        ).toBe(false);
      }
      if (!secret.startsWith('plk_')) {
        expect(logText.includes(encodeURIComponent(secret)), 'URL-encoded password in the log').toBe(false);
        expect(audit.includes(encodeURIComponent(secret)), 'URL-encoded password in the audit').toBe(false);
      }
    }
  });
});
