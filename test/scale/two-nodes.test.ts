import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/shared/config.js';
import { type AppContext, createContext } from '../../src/composition/context.js';
import { SCOPES } from '../../src/domain/scopes.js';
import { importFixture } from '../../src/features/fixtures/import.service.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { solid, uploadForm } from '../helpers/images.js';
import { startS3 } from '../helpers/s3.js';
import { buildWorkspace, USERS } from '../helpers/workspace.js';
import { csrfOf, WebClient } from '../web/web-client.js';

/**
 * Two server processes (`bin/punchlist serve`, as an operator runs them behind a load balancer) on one
 * PostgreSQL database and one S3 bucket, driven alternately: what one node does, the other sees
 * (docs/deployment.md, "What the nodes share").
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(ROOT, 'bin', 'punchlist');
const V1 = '/api/external/v1';
const RATE_LIMIT = 5;

interface Node {
  name: string;
  url: string;
  child: ChildProcess;
  /** Log lines so far (JSON from pino), for waiting on a message and for failure reports. */
  log: string[];
  exited: Promise<number | null>;
  /** The first log line matching `pattern`, among the lines from index `since` on. */
  waitForLog(pattern: RegExp, timeoutMs?: number, since?: number): Promise<string>;
}

let dir: string;
let s3: Awaited<ReturnType<typeof startS3>>;
let database: TestDatabase;
let env: Record<string, string>;
let ctx: AppContext;
let a: Node;
let b: Node;
const started: Node[] = [];

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

function startNode(name: string): Promise<Node> {
  const child = spawn(BIN, ['serve'], { cwd: ROOT, env: { ...env, DATA_DIR: join(dir, name) }, stdio: ['ignore', 'pipe', 'pipe'] });
  const log: string[] = [];
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    log.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    for (const wake of waiters) wake();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  const waitForLog = (pattern: RegExp, timeoutMs = 90_000, since = 0) =>
    new Promise<string>((done, fail) => {
      const check = () => {
        const line = log.slice(since).find((l) => pattern.test(l));
        if (line === undefined) return;
        clearTimeout(timer);
        waiters.delete(check);
        done(line);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        fail(new Error(`node ${name}: no log line matching ${pattern} within ${timeoutMs} ms; log:\n${log.join('\n')}`));
      }, timeoutMs);
      waiters.add(check);
      void exited.then((code) => {
        if (waiters.has(check)) fail(new Error(`node ${name} exited (${code}) before ${pattern}; log:\n${log.join('\n')}`));
      });
      check();
    });
  const node: Omit<Node, 'url'> = { name, child, log, exited, waitForLog };
  started.push(node as Node);
  return waitForLog(/Server listening at http:\/\/127\.0\.0\.1:\d+/).then((line) => ({
    ...node,
    url: /(http:\/\/127\.0\.0\.1:\d+)/.exec(line)![1]!,
  }));
}

async function call(node: Node, path: string, init: RequestInit & { token?: string; json?: unknown } = {}) {
  const { token, json, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (token) headers.set('authorization', `Bearer ${token}`);
  if (json !== undefined) headers.set('content-type', 'application/json');
  const response = await fetch(node.url + path, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
  const text = await response.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body, headers: response.headers };
}

/** A token of the manager with every scope: each check uses its own, to stay under the small rate limit. */
async function freshToken(name: string): Promise<{ id: number; token: string }> {
  return ctx.tokens.createToken({ userId: USERS.manager, name, scopes: [...SCOPES], expiresAt: null });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'punchlist-two-nodes-'));
  s3 = await startS3();
  database = await createTestDatabase(dir, 'postgres');
  env = {
    PATH: [dirname(process.execPath), process.env.PATH ?? ''].join(delimiter),
    HOME: dir,
    DATABASE_URL: database.url,
    DATABASE_POOL_SIZE: '4',
    STORAGE_URL: s3.url,
    AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
    // One public address and one secret for every node, as behind a load balancer.
    BASE_URL: 'http://punchlist.test',
    SESSION_SECRET: 'the-same-secret-on-every-node',
    RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
  };
  // Both start on the empty database at once: both migrate, one waits for the other's lock.
  [a, b] = await Promise.all([startNode('a'), startNode('b')]);
  ctx = await createContext(loadConfig({ ...env, DATA_DIR: dir, LOG_LEVEL: 'silent' }));
  await importFixture(ctx.db.kysely, ctx.db.dialect, buildWorkspace().fixture, ctx.clock);
});

afterAll(async () => {
  for (const node of started) {
    if (node.child.exitCode === null && node.child.signalCode === null) {
      node.child.kill('SIGTERM');
      await Promise.race([node.exited, pause(5000)]);
      if (node.child.exitCode === null) node.child.kill('SIGKILL');
    }
  }
  await ctx?.close();
  await database?.drop();
  await s3?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('two nodes on one PostgreSQL database and one S3 bucket', () => {
  it('both migrated the same empty database at once and are ready', async () => {
    const migrations = await ctx.db.kysely
      .selectFrom('kysely_migration' as never)
      .select('name' as never)
      .execute();
    expect(migrations.length).toBeGreaterThanOrEqual(4);
    for (const node of [a, b]) {
      const ready = await call(node, '/readyz');
      expect(ready, node.name).toMatchObject({ status: 200, body: { ok: true, checks: { database: 'ok', storage: 'ok' } } });
    }
  });

  it('a write through A is read through B', async () => {
    const { token } = await freshToken('write-read');
    const created = await call(a, `${V1}/comments/create.php`, { method: 'POST', token, json: { item_id: 1000, text: 'Written on A' } });
    expect(created.status).toBe(201);
    const card = await call(b, `${V1}/items/get.php?id=1000`, { token });
    expect(card.status).toBe(200);
    expect(card.body.data.item.comments.map((c: { id: number }) => c.id)).toContain(created.body.data.comment.id);
  });

  it('an upload through A downloads through B', async () => {
    const { token } = await freshToken('upload');
    const form = uploadForm({ item_id: '1001' }, [{ name: 'photo.png', bytes: await solid(48, 32, 'png') }]);
    const upload = await call(a, `${V1}/items/attachments.php`, { method: 'POST', token, body: form });
    expect(upload.status).toBe(201);
    const attachment = upload.body.data.attachments[0];
    expect(attachment.url).toBe(`http://punchlist.test/api/items/file.php?id=${attachment.id}`);
    const download = await fetch(`${b.url}/api/items/file.php?id=${attachment.id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('image/webp');
    expect((await download.arrayBuffer()).byteLength).toBe(attachment.size);
  });

  it('an idempotency key used on A replays on B; two racing requests with one key, one per node, write once', async () => {
    const { token } = await freshToken('idempotency');
    const json = { item_id: 1001, text: 'Once only' };
    const headers = { 'idempotency-key': 'two-nodes-1' };
    const first = await call(a, `${V1}/comments/create.php`, { method: 'POST', token, json, headers });
    expect(first.status).toBe(201);
    const replay = await call(b, `${V1}/comments/create.php`, { method: 'POST', token, json, headers });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    const other = await call(b, `${V1}/comments/create.php`, { method: 'POST', token, json: { ...json, text: 'Something else' }, headers });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_conflict');

    const { token: racer } = await freshToken('idempotency race');
    const race = { item_id: 1001, text: 'Raced on two nodes' };
    const raceHeaders = { 'idempotency-key': 'two-nodes-race' };
    const results = await Promise.all(
      [a, b].map((node) => call(node, `${V1}/comments/create.php`, { method: 'POST', token: racer, json: race, headers: raceHeaders })),
    );
    const statuses = results.map((r) => r.status).sort();
    // The loser either waited for nothing (409, "still running") or came after and got the replay.
    expect([
      [201, 201],
      [201, 409],
    ]).toContainEqual(statuses);
    const rows = await ctx.db.kysely.selectFrom('comments').select('id').where('text', '=', race.text).execute();
    expect(rows).toHaveLength(1);
  });

  it('a web session made on A works on B, with the sign-in form fetched from B; signing out on B ends it on A', async () => {
    const onB = new WebClient(b.url);
    const onA = new WebClient(a.url);
    const login = await onB.get('/login');
    for (const [name, value] of onB.cookies) onA.cookies.set(name, value);
    // The form's CSRF value comes from B and is checked by A: both must share SESSION_SECRET.
    const signedIn = await onA.post('/login', { email: 'manager@punchlist.test', password: 'correct horse battery staple' }, login.text);
    expect(signedIn.status).toBe(303);
    for (const [name, value] of onA.cookies) onB.cookies.set(name, value);
    const projects = await onB.get('/projects');
    expect(projects.status).toBe(200);
    expect(projects.text).toContain('Plant audit');

    const out = await onB.post('/logout', {}, projects.text);
    expect(out.status).toBe(303);
    const after = await onA.get('/projects');
    expect(after.status).toBeGreaterThanOrEqual(300);
    expect(after.location).toMatch(/^\/login/);
  });

  it('shares the rate limit: the 6th request of a token across both nodes is refused', async () => {
    // The windows are aligned to the clock minute: start at the beginning of one, not at its very end.
    const leftInWindow = 60_000 - (Date.now() % 60_000);
    if (leftInWindow < 5000) await pause(leftInWindow + 200);
    const { token } = await freshToken('rate limit');
    const results = [];
    for (let i = 0; i <= RATE_LIMIT; i++) results.push(await call(i % 2 === 0 ? a : b, `${V1}/auth/me.php`, { token }));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(results[RATE_LIMIT]!.body.error.code).toBe('rate_limited');
    expect(Number(results[RATE_LIMIT]!.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('a token revoked in the web interface of A is refused by A at once and by B within 1 s', async () => {
    const { id, token } = await freshToken('to revoke');
    const web = new WebClient(a.url);
    expect((await web.signIn('manager')).status).toBe(303);
    const profile = await web.get('/profile');
    // Both nodes have just resolved the token: B may now serve it from its cache for up to 1 s.
    expect((await call(a, `${V1}/auth/me.php`, { token })).status).toBe(200);
    expect((await call(b, `${V1}/auth/me.php`, { token })).status).toBe(200);

    const revoked = await web.post(`/profile/tokens/${id}/revoke`, { confirmed: '1', _csrf: csrfOf(profile.text) });
    expect(revoked.status).toBe(303);
    const revokedAt = Date.now();
    const onA = await call(a, `${V1}/auth/me.php`, { token });
    expect(onA.status).toBe(401);
    expect(onA.body.error.code).toBe('token_revoked');

    // B may still serve it (200, or 429 once the small quota is used) until its cached state expires. What
    // counts is when a request was sent: every request sent 1.2 s after the revocation must be refused.
    const polls: { sentAfterMs: number; status: number; code?: string }[] = [];
    for (;;) {
      const sentAfterMs = Date.now() - revokedAt;
      const res = await call(b, `${V1}/auth/me.php`, { token });
      polls.push({ sentAfterMs, status: res.status, code: res.body?.error?.code });
      if (res.status === 401 || sentAfterMs > 1500) break;
      await pause(50);
    }
    const firstRefusal = polls.find((p) => p.status === 401);
    expect(firstRefusal, JSON.stringify(polls)).toMatchObject({ code: 'token_revoked' });
    expect(firstRefusal!.sentAfterMs, JSON.stringify(polls)).toBeLessThanOrEqual(1200);
    for (const p of polls.filter((p) => p.status !== 401)) expect([200, 429]).toContain(p.status);
    // And it stays refused (B now holds the revoked state).
    expect((await call(b, `${V1}/auth/me.php`, { token })).body.error.code).toBe('token_revoked');
  });

  it('SIGTERM lets a node finish an upload in flight, refuse new connections, and exit 0', async () => {
    const { token } = await freshToken('slow upload');
    const png = await solid(64, 64, 'png');
    const boundary = '----punchlist-slow-upload';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="item_id"\r\n\r\n1010\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="attachments[]"; filename="slow.png"\r\nContent-Type: image/png\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const body = Buffer.concat([head, png, tail]);
    const half = head.length + Math.floor(png.length / 2);

    const port = Number(new URL(b.url).port);
    const mark = b.log.length;
    let sendRest = () => {};
    const response = new Promise<{ status: number; body: any }>((done, fail) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: `${V1}/items/attachments.php`,
          agent: false,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': `multipart/form-data; boundary=${boundary}`,
            'content-length': String(body.length),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => done({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
        },
      );
      req.on('error', fail);
      req.write(body.subarray(0, half));
      // The rest is sent by the test once the node is shutting down.
      sendRest = () => req.end(body.subarray(half));
    });
    // The request is in the handler, reading the file, when the signal arrives.
    await b.waitForLog(/"url":"\/api\/external\/v1\/items\/attachments\.php"/, 10_000, mark);
    await pause(200);
    b.child.kill('SIGTERM');
    await b.waitForLog(/shutting down/, 10_000, mark);

    // No new connections while it finishes.
    let refused = false;
    for (const started = Date.now(); !refused && Date.now() - started < 3000;) {
      refused = await new Promise<boolean>((done) => {
        const socket = connect(port, '127.0.0.1');
        socket.on('connect', () => {
          socket.destroy();
          done(false);
        });
        socket.on('error', () => done(true));
      });
      if (!refused) await pause(50);
    }
    expect(refused).toBe(true);
    expect(b.child.exitCode).toBeNull();

    sendRest();
    const result = await response;
    expect(result.status, JSON.stringify(result.body)).toBe(201);
    expect(await b.exited).toBe(0);
    expect(b.log.join('\n')).not.toMatch(/"level":(50|60)/);

    // Committed and stored: A serves it, and the audit record is there.
    const attachment = result.body.data.attachments[0];
    const download = await fetch(`${a.url}/api/items/file.php?id=${attachment.id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(download.status).toBe(200);
    const audit = await ctx.db.kysely
      .selectFrom('audit_log')
      .select(['status'])
      .where('request_id', '=', result.body.meta.request_id)
      .execute();
    expect(audit).toEqual([{ status: 201 }]);
    expect((await call(a, '/readyz')).status).toBe(200);
  });
});
