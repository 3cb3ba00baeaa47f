import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../helpers/envelope.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { scopesExcept } from '../helpers/workspace.js';
import type { Scope } from '../../src/domain/scopes.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const MiB = 1024 * 1024;

/** The JSON writes of v1, each with a body that succeeds for the manager. */
const JSON_WRITES: { name: string; method: string; path: string; scope: Scope; valid: Record<string, unknown>; status: number }[] = [
  {
    name: 'comments/create',
    method: 'POST',
    path: `${V1}/comments/create.php`,
    scope: 'comments:write',
    valid: { item_id: 1000, text: 'ok' },
    status: 201,
  },
  {
    name: 'answers/create',
    method: 'POST',
    path: `${V1}/answers/create.php`,
    scope: 'answers:write',
    valid: { item_id: 1000, text: 'ok' },
    status: 201,
  },
  {
    name: 'items/status',
    method: 'PATCH',
    path: `${V1}/items/status.php`,
    scope: 'items:status.write',
    valid: { id: 1000, status: 'pending' },
    status: 200,
  },
  {
    name: 'items/planning',
    method: 'PATCH',
    path: `${V1}/items/planning.php`,
    scope: 'items:planning.write',
    valid: { id: 1000, priority: 'medium' },
    status: 200,
  },
  {
    name: 'items/links',
    method: 'PUT',
    path: `${V1}/items/links.php`,
    scope: 'items:materials.write',
    valid: { id: 1000, document_links: [] },
    status: 200,
  },
];

/** `token` null: no Authorization header. */
const send = (w: (typeof JSON_WRITES)[number], body: BodyInit, contentType: string | null, token: string | null = server.tokens.manager) =>
  server.call(w.path, {
    method: w.method,
    token: token ?? undefined,
    headers: contentType === null ? {} : { 'content-type': contentType },
    body,
  });

/** A JSON text of exactly `size` bytes: the valid body followed by whitespace (an unknown field would be refused). */
function paddedBody(valid: Record<string, unknown>, size: number): string {
  const base = JSON.stringify(valid);
  return base + ' '.repeat(size - Buffer.byteLength(base));
}

async function countRows() {
  const db = server.ctx.db.kysely;
  const n = async (table: 'comments' | 'answers' | 'item_history') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { comments: await n('comments'), answers: await n('answers'), history: await n('item_history') };
}

function expectBodyError(res: Awaited<ReturnType<typeof send>>) {
  expectError(res, 422, 'validation_error');
  expect(res.body.error.message).toMatch(/body/);
  expect(res.body.error.details).toEqual([expect.objectContaining({ field: 'body', message: expect.any(String) })]);
}

describe.each(JSON_WRITES)('JSON body of $name', (w) => {
  it('accepts application/json, with or without charset', async () => {
    expect((await send(w, JSON.stringify(w.valid), 'application/json')).status).toBe(w.status);
    expect((await send(w, JSON.stringify(w.valid), 'application/json; charset=utf-8')).status).toBe(w.status);
  });

  it.each([
    'text/plain',
    'text/plain; charset=utf-8',
    'application/x-www-form-urlencoded',
    'application/xml',
    'text/json',
    'multipart/form-data; boundary=x',
  ])('Content-Type %s → 415 unsupported_media_type', async (type) => {
    expectError(await send(w, JSON.stringify(w.valid), type), 415, 'unsupported_media_type');
  });

  it('a body without Content-Type → 415 unsupported_media_type', async () => {
    expectError(await send(w, new TextEncoder().encode(JSON.stringify(w.valid)), null), 415, 'unsupported_media_type');
  });

  it('over 1 MiB → 413 payload_too_large; exactly 1 MiB is read', async () => {
    const exact = paddedBody(w.valid, MiB);
    expect(Buffer.byteLength(exact)).toBe(MiB);
    expect((await send(w, exact, 'application/json')).status).toBe(w.status);
    const over = await send(w, paddedBody(w.valid, MiB + 1), 'application/json');
    expectError(over, 413, 'payload_too_large');
    expect(over.body.error.message, 'the 413 states the limit').toContain(`${MiB} bytes`);
    expectError(await send(w, paddedBody(w.valid, 3 * MiB), 'application/json'), 413, 'payload_too_large');
  });

  it('bytes that are not UTF-8 → 422 validation_error', async () => {
    const json = Buffer.from(JSON.stringify({ ...w.valid, text: 'AB', note: 'AB' }));
    const broken = Buffer.from(json.toString('latin1').replaceAll('AB', '\u00ff\u00fe'), 'latin1'); // lone 0xFF 0xFE bytes
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(broken)).toThrow();
    expectBodyError(await send(w, broken, 'application/json'));
    // An overlong encoding of "/" (0xC0 0xAF) is not UTF-8 either.
    expectBodyError(
      await send(w, Buffer.concat([Buffer.from('{"x":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]), 'application/json'),
    );
  });

  it.each([
    ['malformed JSON', '{"item_id": 1000, '],
    ['trailing garbage', `${JSON.stringify({ id: 1 })} x`],
    ['single quotes', "{'id': 1000}"],
    ['a JSON array', JSON.stringify([{ id: 1000, item_id: 1000 }])],
    ['an empty array', '[]'],
    ['JSON null', 'null'],
    ['a JSON string', '"hello"'],
    ['a JSON number', '1000'],
    ['JSON true', 'true'],
    ['an empty body', ''],
  ])('%s → 422 validation_error', async (_what, body) => {
    expectBodyError(await send(w, body, 'application/json'));
  });

  it('writes nothing when the body is refused', async () => {
    const before = await countRows();
    await send(w, JSON.stringify(w.valid), 'text/plain');
    await send(w, '[]', 'application/json');
    await send(w, paddedBody(w.valid, 2 * MiB), 'application/json');
    expect(await countRows()).toEqual(before);
  });

  it('checks the token and the scope before reading the body', async () => {
    expectError(await send(w, 'not json', 'text/plain', null), 401, 'unauthorized');
    expectError(await send(w, paddedBody(w.valid, 2 * MiB), 'application/json', null), 401, 'unauthorized');
    const { token } = await server.ctx.tokens.createToken({ userId: 2, name: 'no scope', scopes: scopesExcept(w.scope), expiresAt: null });
    expectError(await send(w, 'not json', 'text/plain', token), 403, 'scope_missing');
    expectError(await send(w, '[', 'application/json', token), 403, 'scope_missing');
    expectError(await send(w, paddedBody(w.valid, 2 * MiB), 'application/json', token), 403, 'scope_missing');
  });
});

/** One raw HTTP/1.1 exchange: what a client sees when the server answers from the socket. */
function rawExchange(head: string): Promise<{ status: number; headers: string; body: string }> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(head));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [headers = '', body = ''] = text.split(/\r\n\r\n(.*)/s);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1]), headers, body });
    });
  });
}

describe('request line and headers over 16 KiB', () => {
  const LIMIT = 16 * 1024;

  it('a large header → 431 with the error envelope', async () => {
    const res = await rawExchange(`GET ${V1}/auth/me.php HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${'a'.repeat(LIMIT + 100)}\r\n\r\n`);
    expect(res.status).toBe(431);
    expect(res.headers).toMatch(/content-type: application\/json/i);
    const body = JSON.parse(res.body);
    expect(body.ok).toBe(false);
    expect(body.error.code).toBe('headers_too_large');
    expect(body.error.message).toBeTypeOf('string');
    expect(body.meta.api_version).toBe('v1');
    expect(body.meta.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.toLowerCase()).toContain(`x-request-id: ${body.meta.request_id}`);
    expect(new Date(body.meta.timestamp).toISOString()).toBe(body.meta.timestamp);
  });

  it('a long request line → 431', async () => {
    const res = await rawExchange(`GET ${V1}/projects/list.php?pad=${'b'.repeat(LIMIT + 100)} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    expect(res.status).toBe(431);
    expect(JSON.parse(res.body).ok).toBe(false);
  });

  it('many headers adding up over the limit → 431', async () => {
    const headers = Array.from({ length: 40 }, (_, i) => `X-H${i}: ${'c'.repeat(500)}\r\n`).join('');
    const res = await rawExchange(`GET ${V1}/auth/me.php HTTP/1.1\r\nHost: localhost\r\n${headers}\r\n`);
    expect(res.status).toBe(431);
  });

  it('headers under the limit reach the application', async () => {
    const res = await rawExchange(
      `GET ${V1}/auth/me.php HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nX-Padding: ${'a'.repeat(LIMIT - 1024)}\r\n\r\n`,
    );
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body).error.code).toBe('unauthorized');
  });

  it('the server keeps serving afterwards', async () => {
    await rawExchange(`GET ${V1}/auth/me.php HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${'a'.repeat(LIMIT * 2)}\r\n\r\n`);
    expect((await server.call(`${V1}/auth/me.php`, { token: server.tokens.manager })).status).toBe(200);
  });
});
