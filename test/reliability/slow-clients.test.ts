import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/shared/config.js';
import { parseResponse } from '../helpers/raw-http.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { snapshot } from '../helpers/snapshot.js';

/**
 * Slow clients (OWASP API4, slowloris): a client that sends its headers or its body too slowly, or nothing
 * at all, is cut off at its timeout with 408 in the envelope, while other clients are served meanwhile; a
 * slow client that finishes in time is served; idle keep-alive connections are closed.
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
    expect(loadConfig({ SESSION_SECRET: 'x' }).timeouts).toEqual({
      requestMs: 120_000,
      headersMs: 15_000,
      keepAliveMs: 72_000,
      connectionMs: 120_000,
    });
    expect(() => loadConfig({ SESSION_SECRET: 'x', HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '1000' })).toThrow(ConfigError);
    expect(() => loadConfig({ SESSION_SECRET: 'x', REQUEST_TIMEOUT_MS: 'soon' })).toThrow(/REQUEST_TIMEOUT_MS/);
    expect(server.app.server.headersTimeout).toBe(HEADERS_TIMEOUT_MS);
    expect(server.app.server.requestTimeout).toBe(REQUEST_TIMEOUT_MS);
    expect(server.app.server.keepAliveTimeout).toBe(KEEP_ALIVE_TIMEOUT_MS);
  });
});
