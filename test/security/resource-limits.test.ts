import { connect, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { INVALID_DATA_MESSAGE } from '../../src/errors.js';
import { expectError } from '../helpers/envelope.js';
import { pngBomb, solid, uploadForm } from '../helpers/images.js';
import { parseResponse } from '../helpers/raw-http.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { snapshot } from '../helpers/snapshot.js';

/**
 * Resource limits (OWASP API4): slow clients are cut off while others are served, page sizes and the
 * per-token rate limit hold under concurrency, and decompression bombs are refused from their headers.
 * Body and header size limits are covered in test/api/limits.test.ts.
 */

const HEADERS_TIMEOUT_MS = 1000;
const REQUEST_TIMEOUT_MS = 2500;
const KEEP_ALIVE_TIMEOUT_MS = 1000;

interface Held {
  socket: Socket;
  /** Resolves when the server closes the connection: after how long, and what it said. */
  closed: Promise<{ afterMs: number; status: number; body: string }>;
}

/** A connection that sends `head` at once, then `trickle` one byte every `everyMs` until the server hangs up. */
function hold(port: number, head: string, trickle: string, everyMs: number): Held {
  const started = performance.now();
  const socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  let timer: NodeJS.Timeout | undefined;
  socket.on('connect', () => {
    if (head) socket.write(head);
    let i = 0;
    if (trickle) {
      timer = setInterval(() => {
        if (!socket.destroyed && socket.writable) socket.write(trickle[i++ % trickle.length]!);
      }, everyMs);
    }
  });
  socket.on('data', (chunk) => chunks.push(chunk));
  socket.on('error', () => {});
  const closed = new Promise<{ afterMs: number; status: number; body: string }>((resolve) => {
    socket.on('close', () => {
      clearInterval(timer);
      const res = parseResponse(Buffer.concat(chunks), 'GET');
      resolve({ afterMs: performance.now() - started, status: res.status, body: res.body.toString() });
    });
  });
  return { socket, closed };
}

function split(text: string, parts: number): string[] {
  const size = Math.ceil(text.length / parts);
  return Array.from({ length: parts }, (_, i) => text.slice(i * size, (i + 1) * size)).filter(Boolean);
}

describe('slow clients', () => {
  let server: TestServer;
  let port: number;
  beforeAll(async () => {
    server = await startTestServer({
      env: {
        HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
        REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_TIMEOUT_MS),
        RATE_LIMIT_PER_MINUTE: '0',
      },
    });
    port = Number(new URL(server.url).port);
  });
  afterAll(() => server.close());

  const expectTimeoutEnvelope = (r: { status: number; body: string }) => {
    expect(r.status).toBe(408);
    const body = JSON.parse(r.body);
    expect(body).toMatchObject({ ok: false, error: { code: 'request_timeout' }, meta: { api_version: 'v1' } });
  };

  it('slowloris: 40 clients sending headers a byte at a time are cut off after HEADERS_TIMEOUT_MS; others are served meanwhile', async () => {
    const head = `GET ${V1}/auth/me.php HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.tokens.admin}\r\n`;
    const slow = Array.from({ length: 40 }, () => hold(port, '', `${head}X-Padding: ${'a'.repeat(500)}`, 100));
    // Served while they hang on: a request every 50 ms for 1.5 s, each answered at once.
    const latencies: number[] = [];
    const until = performance.now() + 1500;
    while (performance.now() < until) {
      const started = performance.now();
      const res = await server.call(`${V1}/auth/me.php`, { token: server.tokens.admin });
      expect(res.status).toBe(200);
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const results = await Promise.all(slow.map((s) => s.closed));
    const after = results.map((r) => r.afterMs).sort((a, b) => a - b);
    console.log(
      `slowloris: ${slow.length} slow clients closed after ${Math.round(after[0]!)}–${Math.round(after.at(-1)!)} ms (headers timeout ${HEADERS_TIMEOUT_MS} ms); ` +
        `${latencies.length} other requests served meanwhile, slowest ${Math.round(Math.max(...latencies))} ms`,
    );
    for (const r of results) {
      expectTimeoutEnvelope(r);
      expect(r.afterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
      expect(r.afterMs).toBeLessThan(HEADERS_TIMEOUT_MS + 1500);
    }
    expect(latencies.length).toBeGreaterThanOrEqual(10);
    expect(Math.max(...latencies)).toBeLessThan(500);
  });

  it('a connection that never sends anything is closed', async () => {
    const idle = hold(port, '', '', 0);
    const r = await idle.closed;
    expectTimeoutEnvelope(r);
    expect(r.afterMs).toBeLessThan(HEADERS_TIMEOUT_MS + 1500);
  });

  it('a slow body is cut off after REQUEST_TIMEOUT_MS with 408, and writes nothing', async () => {
    const before = await snapshot(server.ctx.db.kysely, server.ctx.db.dialect);
    const body = JSON.stringify({ item_id: 1000, text: `slow ${'x'.repeat(200)}` });
    const head =
      `POST ${V1}/comments/create.php HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.tokens.admin}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    const r = await hold(port, head, body, 50).closed;
    expectTimeoutEnvelope(r);
    expect(r.afterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    expect(r.afterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 1500);
    expect(await snapshot(server.ctx.db.kysely, server.ctx.db.dialect)).toEqual(before);
  });

  it('a slow but steady client that finishes in time is served', async () => {
    const body = JSON.stringify({ item_id: 1000, text: 'steady' });
    const head =
      `POST ${V1}/comments/create.php HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.tokens.admin}\r\n` +
      `Content-Type: application/json\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    // The headers in 5 pieces over 0.6 s, then the body in 10 pieces over 1.2 s: inside both limits.
    const pieces = [...split(head, 5), ...split(body, 10)];
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    await new Promise((resolve) => socket.on('connect', resolve));
    const started = performance.now();
    for (const piece of pieces) {
      socket.write(piece);
      await new Promise((resolve) => setTimeout(resolve, 120));
    }
    await closed;
    expect(performance.now() - started).toBeGreaterThan(1500);
    expect(parseResponse(Buffer.concat(chunks), 'POST').status).toBe(201);
  });

  it('an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT_MS', async () => {
    const r = await hold(port, `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, '', 0).closed;
    expect(r.status).toBe(200);
    expect(r.afterMs).toBeGreaterThanOrEqual(KEEP_ALIVE_TIMEOUT_MS - 50);
    expect(r.afterMs).toBeLessThan(KEEP_ALIVE_TIMEOUT_MS + 2000);
  });

  it('the timeouts are configured from the environment, and contradictions fail fast', () => {
    expect(loadConfig({ SESSION_SECRET: 'x' }).timeouts).toEqual({ requestMs: 120_000, headersMs: 15_000, keepAliveMs: 72_000, connectionMs: 120_000 });
    expect(() => loadConfig({ SESSION_SECRET: 'x', HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '1000' })).toThrow(ConfigError);
    expect(() => loadConfig({ SESSION_SECRET: 'x', REQUEST_TIMEOUT_MS: 'soon' })).toThrow(/REQUEST_TIMEOUT_MS/);
    expect(server.app.server.headersTimeout).toBe(HEADERS_TIMEOUT_MS);
    expect(server.app.server.requestTimeout).toBe(REQUEST_TIMEOUT_MS);
    expect(server.app.server.keepAliveTimeout).toBe(KEEP_ALIVE_TIMEOUT_MS);
  });
});

describe('page sizes and the per-token rate limit', () => {
  const LIMIT = 20;
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
  });
  afterAll(() => server.close());

  const tokenOf = async (name: string) =>
    (await server.ctx.tokens.createToken({ userId: 1, name, scopes: ['projects:read', 'projects:search', 'items:read', 'comments:write'], expiresAt: null })).token;

  it('limit is 1–200 and offset ≥ 0 on list and search; nothing is clamped', async () => {
    const token = await tokenOf('pages');
    for (const path of [`${V1}/projects/list.php?`, `${V1}/projects/search.php?id=1&q=e&`]) {
      for (const bad of ['limit=0', 'limit=201', 'limit=-1', 'limit=1e2', 'limit=abc', 'limit=999999999999', 'offset=-1', 'offset=1.5', 'offset=99999999999999999999']) {
        expectError(await server.call(path + bad, { token }), 422, 'validation_error');
      }
      const max = await server.call(`${path}limit=200`, { token });
      expect(max.status).toBe(200);
      expect(max.body.data.limit).toBe(200);
    }
  });

  it(`${LIMIT} per minute: a burst of 3 × ${LIMIT} concurrent requests gets exactly ${LIMIT} through; the rest are 429, write nothing; other tokens are unaffected`, async () => {
    const token = await tokenOf('burst');
    const other = await tokenOf('other');
    const before = await snapshot(server.ctx.db.kysely, server.ctx.db.dialect);
    const burst = await Promise.all(
      Array.from({ length: 3 * LIMIT }, (_, i) =>
        i % 2 === 0
          ? server.call(`${V1}/projects/list.php`, { token })
          : server.call(`${V1}/comments/create.php`, { method: 'POST', token, json: { item_id: 1000, text: `burst ${i}` } }),
      ),
    );
    const passed = burst.filter((r) => r.status !== 429);
    const refused = burst.filter((r) => r.status === 429);
    console.log(`rate limit: burst of ${burst.length} concurrent requests at ${LIMIT}/min → ${passed.length} served, ${refused.length} × 429`);
    expect(passed).toHaveLength(LIMIT);
    for (const r of refused) {
      expectError(r, 429, 'rate_limited');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    const comments = passed.filter((r) => r.status === 201).length;
    const after = await snapshot(server.ctx.db.kysely, server.ctx.db.dialect);
    expect(after.comments!.rows - before.comments!.rows).toBe(comments);
    expect((await server.call(`${V1}/projects/list.php`, { token: other })).status).toBe(200);
  });

  it('downloads count against the same quota', async () => {
    const admin = await server.ctx.tokens.createToken({ userId: 1, name: 'uploader', scopes: ['items:materials.write'], expiresAt: null });
    const up = await server.call(`${V1}/items/attachments.php`, { method: 'POST', token: admin.token, body: uploadForm({ item_id: '1000' }, [{ name: 'a.png', bytes: await solid(16, 16, 'png') }]) });
    expect(up.status).toBe(201);
    const token = await tokenOf('downloads');
    const statuses = [];
    for (let i = 0; i < LIMIT + 5; i++) statuses.push((await server.request(`/api/items/file.php?id=${up.body.data.attachments[0].id}`, { token })).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
    expect(statuses.slice(LIMIT)).toEqual([429, 429, 429, 429, 429]);
    expectError(await server.call(`${V1}/projects/list.php`, { token }), 429, 'rate_limited');
  });
});

describe('decompression bombs', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  });
  afterAll(() => server.close());

  /** Small files whose headers declare billions of pixels (patched from real images). */
  async function bombs(): Promise<Record<string, Buffer>> {
    const base = (format: 'jpeg' | 'gif' | 'webp') => sharp({ create: { width: 32, height: 32, channels: 3, background: { r: 9, g: 9, b: 9 } } }).toFormat(format).toBuffer();
    const jpeg = Buffer.from(await base('jpeg'));
    for (let i = 2; i < jpeg.length - 9; ) {
      if (jpeg[i] !== 0xff) {
        i++;
        continue;
      }
      const marker = jpeg[i + 1]!;
      if (marker >= 0xc0 && marker <= 0xc3) {
        jpeg.writeUInt16BE(65000, i + 5);
        jpeg.writeUInt16BE(65000, i + 7);
        break;
      }
      i += 2 + jpeg.readUInt16BE(i + 2);
    }
    const gif = Buffer.from(await base('gif'));
    gif.writeUInt16LE(65535, 6);
    gif.writeUInt16LE(65535, 8);
    const descriptor = gif.indexOf(0x2c, 13);
    gif.writeUInt16LE(65535, descriptor + 5);
    gif.writeUInt16LE(65535, descriptor + 7);
    const webp = Buffer.from(await base('webp'));
    const frame = webp.indexOf('VP8 ') + 8 + 6;
    webp.writeUInt16LE(16383, frame);
    webp.writeUInt16LE(16383, frame + 2);
    return { 'bomb.png': pngBomb(30_000, 30_000), 'bomb.jpg': jpeg, 'bomb.gif': gif, 'bomb.webp': webp };
  }

  it('PNG, JPEG, GIF and WebP bombs are refused from their headers: fast, without the memory a decode would take', async () => {
    for (const [name, bytes] of Object.entries(await bombs())) {
      const meta = await sharp(bytes, { limitInputPixels: false }).metadata();
      expect(meta.width * meta.height, name).toBeGreaterThan(200_000_000);
      const rssBefore = process.memoryUsage().rss;
      const started = performance.now();
      const res = await server.call(`${V1}/items/attachments.php`, {
        method: 'POST',
        token: server.tokens.admin,
        body: uploadForm({ item_id: '1000' }, [{ name, bytes }]),
      });
      const ms = performance.now() - started;
      const grewMb = (process.memoryUsage().rss - rssBefore) / 1e6;
      console.log(`bomb ${name}: ${bytes.length} bytes declaring ${meta.width}×${meta.height} → ${res.status} in ${Math.round(ms)} ms, RSS +${Math.round(grewMb)} MB`);
      expectError(res, 422, 'validation_error');
      expect(res.body.error.message).toBe(INVALID_DATA_MESSAGE);
      expect(res.body.error.details[0].message).toMatch(/pixels/);
      expect(ms).toBeLessThan(2000);
      // Decoding 900 megapixels would take gigabytes.
      expect(grewMb).toBeLessThan(200);
    }
  });

  it('a gzip bomb sent as a compressed JSON body is never inflated', async () => {
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(100_000);
    const rssBefore = process.memoryUsage().rss;
    const res = await server.call(`${V1}/comments/create.php`, {
      method: 'POST',
      token: server.tokens.admin,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: bomb,
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.ok).toBe(false);
    expect((process.memoryUsage().rss - rssBefore) / 1e6).toBeLessThan(40);
  });
});
