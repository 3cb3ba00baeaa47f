import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPunchlistClient, PunchlistApiError, type PunchlistClient } from '../src/client/index.js';
import { solid } from './helpers/images.js';
import { startTestServer, type TestServer, V1 } from './helpers/server.js';
import { USERS } from './helpers/workspace.js';

let server: TestServer;
let client: PunchlistClient;

beforeAll(async () => {
  server = await startTestServer();
  client = createPunchlistClient({ baseUrl: server.url, token: server.tokens.manager });
});
afterAll(() => server.close());

/** A fetch that records what it sends and lets a script answer some attempts itself. */
function scriptedFetch(script: ((url: string, init: RequestInit) => Promise<Response> | Response | undefined)[] = []) {
  const sent: { url: string; method: string; headers: Headers }[] = [];
  const fake: typeof fetch = async (input, init = {}) => {
    const url = String(input);
    sent.push({ url, method: init.method ?? 'GET', headers: new Headers(init.headers) });
    const step = script[sent.length - 1];
    const scripted = step ? await step(url, init) : undefined;
    return scripted ?? fetch(input, init);
  };
  return { fetch: fake, sent };
}

const envelopeError = (status: number, code: string, headers: Record<string, string> = {}) =>
  new Response(
    JSON.stringify({
      ok: false,
      error: { code, message: code },
      meta: { request_id: 'scripted', api_version: 'v1', timestamp: new Date().toISOString() },
    }),
    {
      status,
      headers: { 'content-type': 'application/json', ...headers },
    },
  );

async function rejection(promise: Promise<unknown>): Promise<PunchlistApiError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(PunchlistApiError);
    return err as PunchlistApiError;
  }
  throw new Error('expected a rejection');
}

describe('typed client: one method per endpoint', () => {
  it('reads: me, listProjects, getProject, getProjectTree, getItem', async () => {
    const me = await client.me();
    expect(me.user).toEqual({ id: USERS.manager, name: 'Manager', role: 'member' });
    expect(me.token.scopes).toContain('items:read');

    const list = await client.listProjects({ archived: 'all', limit: 10 });
    expect(list.projects.map((p) => p.id)).toEqual([1, 2]);
    expect(list.limit).toBe(10);
    expect((await client.listProjects({ archived: true })).projects.map((p) => p.id)).toEqual([2]);

    expect((await client.getProject(1)).project.name).toBe('Plant audit');
    const tree = await client.getProjectTree(1);
    expect(tree.sections[0]?.checklists[0]?.items[0]?.id).toBe(1000);
    const { item } = await client.getItem(1000);
    expect(item.text).toBe('Extinguishers checked');
    expect(item.answers.map((a) => a.id)).toEqual([7000, 7001]);
  });

  it('searchProject', async () => {
    const result = await client.searchProject(1, { q: 'extinguishers', entity_type: 'item' });
    expect(result.hits[0]).toMatchObject({ item_id: 1000, entity_type: 'item', entity_id: 1000 });
    const everything = await client.searchProject(1, { item_id: 1000 });
    expect(everything.hits.every((hit) => hit.item_id === 1000)).toBe(true);
  });

  it('writes: status, planning, comment, answer, links', async () => {
    expect(await client.setItemStatus(1001, 'blocked')).toMatchObject({ item: { id: 1001, status: 'blocked' }, changed: true });
    expect((await client.setItemStatus(1001, 'blocked')).changed).toBe(false);
    const planning = await client.setItemPlanning(1001, { deadline: '2026-09-01', priority: 'low' });
    expect(planning.item).toMatchObject({ id: 1001, deadline: '2026-09-01', priority: 'low' });
    expect((await client.setItemPlanning(1001, { deadline: null })).item.deadline).toBeNull();

    const { comment } = await client.addComment(1001, '  From the client  ');
    expect(comment).toMatchObject({ text: 'From the client', author: { id: USERS.manager } });
    const { answer } = await client.addAnswer(1001, {
      text: 'Answered',
      document_links: [{ title: 'Act', url: 'https://example.test/act' }],
    });
    expect(answer).toMatchObject({ status: 'pending', document_links: [{ kind: 'document', title: 'Act' }] });

    const links = await client.replaceItemLinks(1001, [{ kind: 'folder', title: 'Photos', url: 'https://example.test/photos' }]);
    expect(links.document_links).toMatchObject([{ kind: 'folder', title: 'Photos' }]);
    expect((await client.replaceItemLinks(1001, [])).document_links).toEqual([]);
  });

  it('uploads: attachItemImages and attachAnswerImages (Buffer, Uint8Array and Blob bytes)', async () => {
    const png = await solid(24, 16, 'png');
    const { attachments } = await client.attachItemImages(1000, [
      { name: 'a.png', bytes: png },
      { name: 'b.gif', bytes: new Uint8Array(await solid(16, 16, 'gif')) },
    ]);
    expect(attachments.map((a) => [a.original_name, a.mime_type, a.width, a.height])).toEqual([
      ['a.png', 'image/webp', 24, 16],
      ['b.gif', 'image/webp', 16, 16],
    ]);
    const answer = await client.attachAnswerImages(7000, [
      { name: 'c.jpg', bytes: new Blob([new Uint8Array(await solid(20, 20, 'jpeg'))]) },
    ]);
    expect(answer).toMatchObject({ status_reset: true, answer_status: 'pending' });
    expect(answer.attachments[0]?.url).toMatch(/\/api\/answers\/file\.php\?id=\d+$/);
  });

  it('accepts a base URL ending in the v1 prefix or a slash', async () => {
    for (const baseUrl of [`${server.url}/`, `${server.url}${V1}`, `${server.url}${V1}/`]) {
      expect((await createPunchlistClient({ baseUrl, token: server.tokens.manager }).me()).user.id).toBe(USERS.manager);
    }
  });
});

describe('errors', () => {
  it('turn the envelope into PunchlistApiError with code, status, requestId and details', async () => {
    const notFound = await rejection(client.getItem(4000));
    expect(notFound).toMatchObject({ status: 404, code: 'not_found', name: 'PunchlistApiError' });
    expect(notFound.requestId).toMatch(/^[0-9a-f-]{36}$/);
    const [record] = await server.ctx.audit.list({ limit: 1 });
    expect(record?.request_id).toBe(notFound.requestId);

    const invalid = await rejection(client.setItemStatus(1000, 'finished' as never));
    expect(invalid).toMatchObject({ status: 422, code: 'validation_error' });
    expect(invalid.details?.[0]?.field).toBe('status');

    const observer = createPunchlistClient({ baseUrl: server.url, token: server.tokens.observer });
    expect(await rejection(observer.setItemStatus(1000, 'done'))).toMatchObject({ status: 403, code: 'forbidden' });
    const readOnly = await server.ctx.tokens.createToken({ userId: USERS.manager, name: 'ro', scopes: ['auth:me'], expiresAt: null });
    const limited = createPunchlistClient({ baseUrl: server.url, token: readOnly.token });
    expect(await rejection(limited.listProjects())).toMatchObject({ status: 403, code: 'scope_missing' });
    const bad = createPunchlistClient({ baseUrl: server.url, token: 'plk_nope' });
    expect(await rejection(bad.me())).toMatchObject({ status: 401, code: 'token_invalid' });
  });

  it('never retries 401, 403, 404, 409 or 422', async () => {
    for (const [status, code] of [
      [401, 'token_revoked'],
      [403, 'forbidden'],
      [404, 'not_found'],
      [409, 'idempotency_conflict'],
      [422, 'validation_error'],
      [500, 'internal_error'],
    ] as const) {
      const scripted = scriptedFetch([() => envelopeError(status, code, { 'retry-after': '1' }), () => envelopeError(200, 'unexpected')]);
      const c = createPunchlistClient({ baseUrl: server.url, token: server.tokens.manager, fetch: scripted.fetch, retries: 3 });
      expect(await rejection(c.addComment(1000, 'x'))).toMatchObject({ status, code, requestId: 'scripted' });
      expect(scripted.sent).toHaveLength(1);
    }
  });

  it('a network failure after the retries is a PunchlistApiError network_error', async () => {
    const c = createPunchlistClient({ baseUrl: 'http://127.0.0.1:9', token: server.tokens.manager, retries: 1 });
    const error = await rejection(c.me());
    expect(error).toMatchObject({ status: 0, code: 'network_error', requestId: null });
    expect(error.cause).toBeDefined();
  });

  it('a response that is not the envelope is invalid_response', async () => {
    const scripted = scriptedFetch([() => new Response('<html>bad gateway</html>', { status: 502 })]);
    const c = createPunchlistClient({ baseUrl: server.url, token: server.tokens.manager, fetch: scripted.fetch, retries: 0 });
    expect(await rejection(c.me())).toMatchObject({ status: 502, code: 'invalid_response' });
  });
});

describe('retries and Idempotency-Key', () => {
  it('sends a fresh UUID Idempotency-Key per write and none on reads; an explicit key is used as given', async () => {
    const scripted = scriptedFetch();
    const c = createPunchlistClient({ baseUrl: server.url, token: server.tokens.manager, fetch: scripted.fetch });
    await c.addComment(1000, 'one');
    await c.addComment(1000, 'two');
    await c.getItem(1000);
    await c.addComment(1000, 'three', { idempotencyKey: 'my-own-key-1' });
    const keys = scripted.sent.map((s) => s.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(keys[1]).not.toBe(keys[0]);
    expect(keys[2]).toBeNull();
    expect(keys[3]).toBe('my-own-key-1');
  });

  it('retries a write whose response was lost with the same key: the server replays, nothing is written twice', async () => {
    const countComments = async () => (await client.getItem(1010)).item.comments.length;
    const before = await countComments();
    const scripted = scriptedFetch([
      async (url, init) => {
        await fetch(url, init); // reaches the server...
        throw new TypeError('fetch failed'); // ...but the answer is lost
      },
    ]);
    const c = createPunchlistClient({ baseUrl: server.url, token: server.tokens.manager, fetch: scripted.fetch });
    const { comment } = await c.addComment(1010, 'exactly once');
    expect(scripted.sent).toHaveLength(2);
    expect(scripted.sent[1]?.headers.get('idempotency-key')).toBe(scripted.sent[0]?.headers.get('idempotency-key'));
    expect(await countComments()).toBe(before + 1);
    expect(comment.text).toBe('exactly once');
  });

  it('retries 502, 503 and 504 with backoff, and multipart bodies are sent again whole', async () => {
    const scripted = scriptedFetch([
      () => envelopeError(503, 'service_unavailable'),
      () => envelopeError(502, 'bad_gateway'),
      () => envelopeError(504, 'timeout'),
    ]);
    const c = createPunchlistClient({ baseUrl: server.url, token: server.tokens.manager, fetch: scripted.fetch, retries: 3 });
    const { attachments } = await c.attachItemImages(1011, [{ name: 'x.webp', bytes: await solid(16, 20, 'webp') }]);
    expect(attachments).toHaveLength(1);
    expect(scripted.sent).toHaveLength(4);
    expect(new Set(scripted.sent.map((s) => s.headers.get('idempotency-key'))).size).toBe(1);
  });

  it('gives up after `retries` and reports the last answer', async () => {
    const scripted = scriptedFetch([1, 2, 3].map(() => () => envelopeError(503, 'service_unavailable')));
    const c = createPunchlistClient({ baseUrl: server.url, token: server.tokens.manager, fetch: scripted.fetch, retries: 2 });
    expect(await rejection(c.me())).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(scripted.sent).toHaveLength(3);
  });

  it('waits Retry-After on 429, and fails at once when Retry-After exceeds maxRetryDelayMs', async () => {
    const scripted = scriptedFetch([() => envelopeError(429, 'rate_limited', { 'retry-after': '1' })]);
    const c = createPunchlistClient({ baseUrl: server.url, token: server.tokens.manager, fetch: scripted.fetch });
    const started = Date.now();
    expect((await c.me()).user.id).toBe(USERS.manager);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(scripted.sent).toHaveLength(2);

    const tooLong = scriptedFetch([() => envelopeError(429, 'rate_limited', { 'retry-after': '30' })]);
    const impatient = createPunchlistClient({
      baseUrl: server.url,
      token: server.tokens.manager,
      fetch: tooLong.fetch,
      maxRetryDelayMs: 5_000,
    });
    const error = await rejection(impatient.me());
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', retryAfterSeconds: 30 });
    expect(tooLong.sent).toHaveLength(1);
  });

  it('a real 429 of the server becomes rate_limited with retryAfterSeconds', async () => {
    const limited = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '1' } });
    try {
      const c = createPunchlistClient({ baseUrl: limited.url, token: limited.tokens.manager, retries: 0 });
      await c.me();
      const error = await rejection(c.me());
      expect(error).toMatchObject({ status: 429, code: 'rate_limited' });
      expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    } finally {
      await limited.close();
    }
  });
});
