import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/shared/clock.js';
import {
  hashJsonRequest,
  hashMultipartRequest,
  IDEMPOTENCY_TTL_MS,
  storedKey,
} from '../../src/features/idempotency/idempotency.service.js';
import { expectError, expectOk, type CallResult } from '../helpers/envelope.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import type { UserKey } from '../helpers/workspace.js';

/** Idempotency-Key on v1 writes (docs/design.md §6), through real HTTP. */

// The server's clock runs `skewMs` ahead of real time: tests move it to expire keys.
let skewMs = 0;
const clock: Clock = { now: () => new Date(Date.now() + skewMs) };

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ clock });
});
afterAll(() => server.close());

const COMMENT = `${V1}/comments/create.php`;
const ANSWER = `${V1}/answers/create.php`;
const STATUS = `${V1}/items/status.php`;
const LINKS = `${V1}/items/links.php`;

let counter = 0;
const newKey = () => `test-key-${Date.now()}-${++counter}`;

function send(method: string, path: string, user: UserKey, json: unknown, key?: string, body?: string): Promise<CallResult> {
  const headers: Record<string, string> = key === undefined ? {} : { 'idempotency-key': key };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return server.call(path, { method, token: server.tokens[user], headers, ...(body !== undefined ? { body } : { json }) });
}

async function comments(itemId: number) {
  return expectOk(await server.call(`${V1}/items/get.php?id=${itemId}`, { token: server.tokens.admin })).item.comments as {
    id: number;
    text: string;
  }[];
}

/** Makes inserting a comment with this text fail inside the database (SQLite or PostgreSQL). */
async function failCommentsWithText(text: string) {
  const db = server.ctx.db.kysely;
  if (server.ctx.db.dialect === 'postgres') {
    await sql`create function fail_comment() returns trigger language plpgsql as $$ begin raise exception 'injected failure'; end $$`.execute(
      db,
    );
    await sql`create trigger fail_comment before insert on comments for each row when (new.text = ${sql.lit(text)}) execute function fail_comment()`.execute(
      db,
    );
  } else {
    await sql`create trigger fail_comment before insert on comments when new.text = ${sql.lit(text)} begin select raise(abort, 'injected failure'); end`.execute(
      db,
    );
  }
}

const keyRows = () => server.ctx.db.kysely.selectFrom('idempotency_keys').selectAll().execute();

describe('Idempotency-Key', () => {
  it('replays a completed write: same status and body, original request_id, Idempotent-Replayed', async () => {
    const key = newKey();
    const json = { item_id: 1000, text: 'Once only' };
    const first = await send('POST', COMMENT, 'executor', json, key);
    const data = expectOk(first, 201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const countAfterFirst = (await comments(1000)).length;

    const second = await send('POST', COMMENT, 'executor', json, key);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('x-request-id')).toBe(first.body.meta.request_id);
    expect(second.headers.get('content-type')).toMatch(/^application\/json/);
    // Key order and whitespace do not make another request: the parsed body is compared.
    const third = await send('POST', COMMENT, 'executor', undefined, key, '{ "text" : "Once only",\n "item_id": 1000 }');
    expect(third.status).toBe(201);
    expect(third.body.data).toEqual(data);
    expect(third.headers.get('idempotent-replayed')).toBe('true');
    expect((await comments(1000)).length).toBe(countAfterFirst);
  });

  it('without a key, the same request writes again', async () => {
    const before = (await comments(1001)).length;
    const json = { item_id: 1001, text: 'Twice' };
    expectOk(await send('POST', COMMENT, 'manager', json), 201);
    expectOk(await send('POST', COMMENT, 'manager', json), 201);
    expect((await comments(1001)).length).toBe(before + 2);
  });

  it('the same key with a different request is 409 idempotency_conflict and writes nothing', async () => {
    const key = newKey();
    expectOk(await send('POST', COMMENT, 'manager', { item_id: 1001, text: 'First' }, key), 201);
    const before = (await comments(1001)).length;
    const other = await send('POST', COMMENT, 'manager', { item_id: 1001, text: 'Second' }, key);
    expectError(other, 409, 'idempotency_conflict');
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expectError(await send('POST', COMMENT, 'manager', { item_id: 1000, text: 'First' }, key), 409, 'idempotency_conflict');
    expect((await comments(1001)).length).toBe(before);
  });

  it('is scoped to token + method + path', async () => {
    const key = newKey();
    const before = (await comments(1001)).length;
    expectOk(await send('POST', COMMENT, 'manager', { item_id: 1001, text: 'Scoped' }, key), 201);
    // Another token (another user) with the same key and body: its own write.
    const other = await send('POST', COMMENT, 'admin', { item_id: 1001, text: 'Scoped' }, key);
    expectOk(other, 201);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    // Another path and method with the same key: independent too.
    const answer = await send('POST', ANSWER, 'manager', { item_id: 1001, text: 'Scoped' }, key);
    expectOk(answer, 201);
    const status = await send('PATCH', STATUS, 'manager', { id: 1001, status: 'blocked' }, key);
    expectOk(status);
    expect(status.headers.get('idempotent-replayed')).toBeNull();
    expect((await comments(1001)).length).toBe(before + 2);
  });

  it('works on PATCH and PUT: a replayed status change adds no history entry', async () => {
    const key = newKey();
    const json = { id: 1010, status: 'blocked' };
    const first = expectOk(await send('PATCH', STATUS, 'manager', json, key));
    expect(first.changed).toBe(true);
    const item = async () => expectOk(await server.call(`${V1}/items/get.php?id=1010`, { token: server.tokens.admin })).item;
    const history = (await item()).status_history.length;
    const replay = await send('PATCH', STATUS, 'manager', json, key);
    expect(replay.body.data).toEqual(first);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await item()).status_history.length).toBe(history);

    const linksKey = newKey();
    const links = { id: 1001, document_links: [{ title: 'Plan', url: 'https://example.test/plan' }] };
    const put = expectOk(await send('PUT', LINKS, 'manager', links, linksKey));
    const putReplay = await send('PUT', LINKS, 'manager', links, linksKey);
    expect(putReplay.body.data).toEqual(put);
    expect((await item()).id).toBe(1010);
    const card = expectOk(await server.call(`${V1}/items/get.php?id=1001`, { token: server.tokens.admin })).item;
    expect(card.document_links).toEqual(put.document_links);
  });

  it('stores and replays 4xx answers too', async () => {
    const key = newKey();
    const invalid = { id: 1000, status: 'finished' };
    const first = await send('PATCH', STATUS, 'manager', invalid, key);
    expectError(first, 422, 'validation_error');
    const replay = await send('PATCH', STATUS, 'manager', invalid, key);
    expect(replay.status).toBe(422);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expectError(await send('PATCH', STATUS, 'manager', { id: 1000, status: 'done' }, key), 409, 'idempotency_conflict');

    const forbiddenKey = newKey();
    const refused = await send('PATCH', STATUS, 'observer', { id: 1000, status: 'done' }, forbiddenKey);
    expectError(refused, 403, 'forbidden');
    const again = await send('PATCH', STATUS, 'observer', { id: 1000, status: 'done' }, forbiddenKey);
    expect(again.body).toEqual(refused.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('checks the key: 1–255 printable ASCII characters, else 422; after auth and scope', async () => {
    const json = { item_id: 1000, text: 'Key check' };
    const before = (await comments(1000)).length;
    // Non-ASCII arrives as latin1 characters (UTF-8 bytes of "ключ" here); a tab is not printable.
    for (const key of ['', 'x'.repeat(256), Buffer.from('ключ').toString('latin1'), 'café', 'a\tb']) {
      const res = await send('POST', COMMENT, 'manager', json, key);
      expectError(res, 422, 'validation_error');
      expect(res.body.error.details[0].field).toBe('Idempotency-Key');
    }
    expect((await comments(1000)).length).toBe(before);
    expectOk(await send('POST', COMMENT, 'manager', json, 'k'.repeat(255)), 201);
    expectOk(await send('POST', COMMENT, 'manager', json, 'a key with spaces & symbols ~!@#'), 201);
    // Auth comes first.
    const anonymous = await server.call(COMMENT, { method: 'POST', json, headers: { 'idempotency-key': '' } });
    expectError(anonymous, 401, 'unauthorized');
    // Reads ignore the header.
    const read = await server.call(`${V1}/items/get.php?id=1000`, { token: server.tokens.manager, headers: { 'idempotency-key': '' } });
    expectOk(read);
  });

  it('a retry storm with one key writes exactly once', async () => {
    const key = newKey();
    const before = (await comments(2010)).length;
    const json = { item_id: 2010, text: 'Storm' };
    const results = await Promise.all(Array.from({ length: 25 }, () => send('POST', COMMENT, 'partial', json, key)));
    const created = results.filter((r) => r.status === 201);
    const fresh = created.filter((r) => r.headers.get('idempotent-replayed') !== 'true');
    expect(fresh).toHaveLength(1);
    for (const res of created) expect(res.body).toEqual(fresh[0]!.body);
    for (const res of results.filter((r) => r.status !== 201)) {
      expectError(res, 409, 'idempotency_conflict');
      expect(res.body.error.message).toMatch(/in progress/);
      expect(res.headers.get('retry-after')).toBe('1');
    }
    expect((await comments(2010)).length).toBe(before + 1);
    // Once it completed, every retry is a replay.
    const late = await send('POST', COMMENT, 'partial', json, key);
    expect(late.body).toEqual(fresh[0]!.body);
    expect(late.headers.get('idempotent-replayed')).toBe('true');
  });

  it('a duplicate while the first request is still running gets 409 in progress', async () => {
    const key = newKey();
    const json = { item_id: 1000, text: 'Running' };
    const now = new Date(Date.now() + skewMs);
    const managerToken = expectOk(await server.call(`${V1}/auth/me.php`, { token: server.tokens.manager })).token.id;
    // The reservation a running request holds (status null), as its preValidation hook left it: a raw row,
    // since only a request caught mid-flight leaves one.
    await server.ctx.db.kysely
      .insertInto('idempotency_keys')
      .values({
        token_id: managerToken,
        key: storedKey(key),
        method: 'POST',
        path: COMMENT,
        request_hash: hashJsonRequest(json),
        status: null,
        response_body: null,
        request_id: 'running-request',
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
      })
      .execute();
    const before = (await comments(1000)).length;
    const duplicate = await send('POST', COMMENT, 'manager', json, key);
    expectError(duplicate, 409, 'idempotency_conflict');
    expect(duplicate.body.error.message).toMatch(/in progress/);
    const different = await send('POST', COMMENT, 'manager', { ...json, text: 'Other' }, key);
    expectError(different, 409, 'idempotency_conflict');
    expect(different.body.error.message).toMatch(/different request/);
    expect((await comments(1000)).length).toBe(before);
  });

  it('does not store a 5xx: the reservation is released and the key can be retried', async () => {
    // A real failure of the database during the write: a trigger on this test's own database.
    await failCommentsWithText('Explode');
    const key = newKey();
    const json = { item_id: 1001, text: 'Explode' };
    const before = (await comments(1001)).length;
    try {
      const failed = await send('POST', COMMENT, 'manager', json, key);
      expectError(failed, 500, 'internal_error');
      expect(failed.body.error.message).not.toMatch(/injected|trigger|sqlite/i);
      expect((await keyRows()).filter((r) => r.key === storedKey(key))).toEqual([]);
      // The failed write left no audit record from its transaction; the hook records the 500.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const records = (await server.ctx.audit.list({ limit: 10_000 })).filter((r) => r.request_id === failed.body.meta.request_id);
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({ status: 500, error_code: 'internal_error' });
    } finally {
      const pg = server.ctx.db.dialect === 'postgres';
      await sql`drop trigger fail_comment${pg ? sql` on comments` : sql``}`.execute(server.ctx.db.kysely);
    }
    const retry = await send('POST', COMMENT, 'manager', json, key);
    expectOk(retry, 201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect((await comments(1001)).length).toBe(before + 1);
  });

  it('keeps a key 24 hours: after that the same key writes again', async () => {
    const key = newKey();
    const json = { item_id: 1001, text: 'Daily' };
    const first = expectOk(await send('POST', COMMENT, 'manager', json, key), 201);
    skewMs += IDEMPOTENCY_TTL_MS - 60_000;
    const within = await send('POST', COMMENT, 'manager', json, key);
    expect(within.headers.get('idempotent-replayed')).toBe('true');
    expect(within.body.data).toEqual({ comment: first.comment });

    skewMs += 2 * 60_000;
    const after = await send('POST', COMMENT, 'manager', json, key);
    const second = expectOk(after, 201);
    expect(after.headers.get('idempotent-replayed')).toBeNull();
    expect(second.comment.id).not.toBe(first.comment.id);
    const rows = await keyRows();
    // The expired row was taken over by the new request (other expired rows are deleted by features/retention).
    expect(rows.filter((r) => r.key === storedKey(key))).toHaveLength(1);
    expect(rows.filter((r) => r.key === storedKey(key))[0]!.request_id).toBe(after.body.meta.request_id);
  });
});

describe('request fingerprints', () => {
  it('a JSON body: key order is irrelevant, values and nesting are not', () => {
    expect(hashJsonRequest({ a: 1, b: { c: [1, 2], d: null } })).toBe(hashJsonRequest({ b: { d: null, c: [1, 2] }, a: 1 }));
    expect(hashJsonRequest({ a: 1 })).not.toBe(hashJsonRequest({ a: '1' }));
    expect(hashJsonRequest({ a: [1, 2] })).not.toBe(hashJsonRequest({ a: [2, 1] }));
  });

  it('a multipart request: fields by name, files in order by name and SHA-256', () => {
    const files = [
      { field: 'attachments[]', filename: 'a.png', sha256: 'aa' },
      { field: 'attachments[]', filename: 'b.png', sha256: 'bb' },
    ];
    const base = hashMultipartRequest(
      [
        ['item_id', '1000'],
        ['note', 'x'],
      ],
      files,
    );
    expect(
      hashMultipartRequest(
        [
          ['note', 'x'],
          ['item_id', '1000'],
        ],
        files,
      ),
    ).toBe(base);
    expect(
      hashMultipartRequest(
        [
          ['item_id', '1000'],
          ['note', 'x'],
        ],
        [...files].reverse(),
      ),
    ).not.toBe(base);
    expect(
      hashMultipartRequest(
        [
          ['item_id', '1000'],
          ['note', 'x'],
        ],
        [files[0]!, { ...files[1]!, sha256: 'cc' }],
      ),
    ).not.toBe(base);
    expect(
      hashMultipartRequest(
        [
          ['item_id', '1001'],
          ['note', 'x'],
        ],
        files,
      ),
    ).not.toBe(base);
    expect(base).not.toBe(hashJsonRequest({ item_id: '1000', note: 'x' }));
  });
});
