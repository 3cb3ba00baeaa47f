import { afterAll, beforeAll, expect } from 'vitest';
import type { Scope } from '../../src/domain/scopes.js';
import { type CallResult, expectError, expectOk } from './envelope.js';
import { startTestServer, type TestServer, V1 } from './server.js';
import { type UserKey, USERS } from './workspace.js';

/**
 * The harness of the v1 write tests 7–11 (test/api/writes-*.test.ts, one file per capability): a server with
 * the standard workspace per file, a write() that remembers every successful write, and the checks the files
 * share: a refused write leaves the item card as it was; every successful write has exactly one audit record.
 */
export type Method = 'PATCH' | 'POST' | 'PUT';
export const STATUS = `${V1}/items/status.php`;
export const PLANNING = `${V1}/items/planning.php`;
export const COMMENT = `${V1}/comments/create.php`;
export const ANSWER = `${V1}/answers/create.php`;
export const LINKS = `${V1}/items/links.php`;

export const ENDPOINTS: Record<string, { method: Method; path: string; scope: Scope; ok: (id: number) => Record<string, unknown> }> = {
  status: { method: 'PATCH', path: STATUS, scope: 'items:status.write', ok: (id) => ({ id, status: 'blocked' }) },
  planning: { method: 'PATCH', path: PLANNING, scope: 'items:planning.write', ok: (id) => ({ id, priority: 'low' }) },
  comment: { method: 'POST', path: COMMENT, scope: 'comments:write', ok: (id) => ({ item_id: id, text: 'A comment' }) },
  answer: { method: 'POST', path: ANSWER, scope: 'answers:write', ok: (id) => ({ item_id: id, text: 'An answer' }) },
  links: {
    method: 'PUT',
    path: LINKS,
    scope: 'items:materials.write',
    ok: (id) => ({ id, document_links: [{ title: 'Spec', url: 'https://example.test/spec' }] }),
  },
};

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Registers the file's server (started before its first test, closed after its last) and returns the helpers. */
export function useWritesServer() {
  // Filled in by the first hook: read it inside tests only.
  const server = {} as TestServer;
  beforeAll(async () => {
    Object.assign(server, await startTestServer());
  });
  afterAll(async () => {
    await server.close?.();
  });

  /** Request ids of every successful write, checked against the audit log by expectEveryWriteAudited(). */
  const successfulWrites: { requestId: string; method: Method; path: string; status: number; itemId: number; userId: number }[] = [];

  async function write(method: Method, path: string, user: UserKey | string, json: unknown): Promise<CallResult> {
    const token = user in USERS ? server.tokens[user as UserKey] : user;
    const res = await server.call(path, { method, token, json });
    if (res.status === 200 || res.status === 201) {
      const body = json as { id?: number; item_id?: number };
      const userId = user in USERS ? USERS[user as UserKey] : -1;
      successfulWrites.push({
        requestId: res.body.meta.request_id,
        method,
        path,
        status: res.status,
        itemId: (body.id ?? body.item_id)!,
        userId,
      });
    }
    return res;
  }

  const patchStatus = (user: UserKey | string, json: unknown) => write('PATCH', STATUS, user, json);
  const patchPlanning = (user: UserKey | string, json: unknown) => write('PATCH', PLANNING, user, json);
  const postComment = (user: UserKey | string, json: unknown) => write('POST', COMMENT, user, json);
  const postAnswer = (user: UserKey | string, json: unknown) => write('POST', ANSWER, user, json);
  const putLinks = (user: UserKey | string, json: unknown) => write('PUT', LINKS, user, json);

  /** The item card as the admin sees it. */
  async function card(id: number) {
    return expectOk(await server.call(`${V1}/items/get.php?id=${id}`, { token: server.tokens.admin })).item;
  }

  /** Runs a refused request and checks the item card did not change at all. */
  async function refused(itemId: number, run: () => Promise<CallResult>, status: number, code: string): Promise<CallResult> {
    const before = await card(itemId);
    const res = await run();
    expectError(res, status, code);
    expect(await card(itemId)).toEqual(before);
    return res;
  }

  async function tokenWith(userId: number, scopes: Scope[]) {
    return (await server.ctx.tokens.createToken({ userId, name: 'limited', scopes, expiresAt: null })).token;
  }

  /** Every successful write of the file so far has exactly one audit record, committed before the response. */
  async function expectEveryWriteAudited(atLeast: number) {
    const res = await postComment('manager', { item_id: 1001, text: 'Audited' });
    expectOk(res, 201);
    // No wait: the record is written in the write's own transaction.
    const immediate = await server.ctx.audit.list({ limit: 100_000 });
    expect(immediate.filter((r) => r.request_id === res.body.meta.request_id)).toHaveLength(1);

    await pause(100);
    const records = await server.ctx.audit.list({ limit: 100_000 });
    expect(successfulWrites.length).toBeGreaterThan(atLeast);
    for (const w of successfulWrites) {
      const mine = records.filter((r) => r.request_id === w.requestId);
      expect(mine, `${w.method} ${w.path} ${w.requestId}`).toHaveLength(1);
      expect(mine[0]).toMatchObject({
        method: w.method,
        path: w.path,
        status: w.status,
        error_code: null,
        entity_type: 'item',
        entity_id: w.itemId,
        query: '',
      });
      if (w.userId > 0) expect(mine[0]!.user_id).toBe(w.userId);
      expect(mine[0]!.token_id).toBeTypeOf('number');
    }
  }

  return {
    server,
    successfulWrites,
    write,
    patchStatus,
    patchPlanning,
    postComment,
    postAnswer,
    putLinks,
    card,
    refused,
    tokenWith,
    expectEveryWriteAudited,
  };
}
