import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/domain/scopes.js';
import { expectError } from '../helpers/envelope.js';
import { solid, uploadForm } from '../helpers/images.js';
import { type Operation, operationsOf, type Sample, type SampleIds, sampleFor, sampleRequest } from '../helpers/operations.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { snapshot } from '../helpers/snapshot.js';
import { USERS } from '../helpers/workspace.js';

/**
 * Tokens limited to projects (docs/design.md §18), through the same route table as the scope matrix and the BOLA
 * probes: every operation and every MCP tool, with a token limited to project A, on objects of project B that
 * its user can see, answers exactly like a missing id (404, same body and length) and writes nothing; lists
 * hold only A; and a token limited to B still does everything there. The samples (test/helpers/operations.ts)
 * all act on project 1.
 */

const MISSING = 999_999;
let server: TestServer;
let png: Buffer;
let ids: SampleIds;
let operations: Operation[];
/** Tokens with every scope: the admin's and the manager's limited to project 1 (the samples' project) or elsewhere. */
const tokens = { adminIn1: '', adminIn3: '', managerIn1: '', managerIn2: '' };
let requests = 0;

const call = async (path: string, init: RequestInit) => {
  requests++;
  const response = await fetch(server.url + path, init);
  const text = await response.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON (HEAD, downloads)
  }
  return { status: response.status, body, headers: response.headers };
};

const label = (op: { method: string; url: string }) => `${op.method} ${op.url}`;
const isId = (name: string) => /^(?:id|[a-z]+_id)$/.test(name);

/** The sample with every id field (query, JSON, form) set to `id`. */
function withIds(sample: Sample, id: number): Sample {
  const query = sample.query ? new URLSearchParams(sample.query) : null;
  for (const [name] of [...(query ?? [])]) if (isId(name)) query!.set(name, String(id));
  const swap = (o?: Record<string, any>) =>
    o && Object.fromEntries(Object.entries(o).map(([k, v]) => [k, isId(k) ? (o === sample.form ? String(id) : id) : v]));
  return {
    ...sample,
    ...(query ? { query: query.toString() } : {}),
    ...(sample.json ? { json: swap(sample.json) } : {}),
    ...(sample.form ? { form: swap(sample.form) } : {}),
  };
}

const hasIds = (sample: Sample) =>
  [...new URLSearchParams(sample.query ?? '').keys(), ...Object.keys(sample.json ?? {}), ...Object.keys(sample.form ?? {})].some(isId);

const send = (op: Operation, sample: Sample, token: string) => {
  const request = sampleRequest(op, sample, png, token);
  return call(request.path, request.init);
};

/** The parts of a 404 that must not tell an object outside the token's projects from a missing one. */
const shape = (res: { status: number; body: any; headers: Headers }) => ({
  status: res.status,
  error: res.body?.error,
  length: res.headers.get('content-length'),
  type: res.headers.get('content-type'),
});

beforeAll(async () => {
  server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  png = await solid(16, 16, 'png');
  const make = async (userId: number, projectIds: number[]) =>
    (await server.ctx.tokens.createToken({ userId, name: `limited ${projectIds}`, scopes: [...SCOPES], expiresAt: null, projectIds }))
      .token;
  tokens.adminIn1 = await make(USERS.admin, [1]);
  tokens.adminIn3 = await make(USERS.admin, [3]);
  tokens.managerIn1 = await make(USERS.manager, [1]);
  tokens.managerIn2 = await make(USERS.manager, [2]);
  const upload = (path: string, field: string, id: string) =>
    server.call(`${V1}/${path}`, {
      method: 'POST',
      token: tokens.adminIn1,
      body: uploadForm({ [field]: id }, [{ name: 'a.png', bytes: png }]),
    });
  const [item, answer] = [
    await upload('items/attachments.php', 'item_id', '1000'),
    await upload('answers/attachments.php', 'answer_id', '7000'),
  ];
  expect([item.status, answer.status]).toEqual([201, 201]);
  ids = { itemAttachmentId: item.body.data.attachments[0].id, answerAttachmentId: answer.body.data.attachments[0].id };
  operations = operationsOf(server.app);
});

afterAll(async () => {
  console.log(`project limits: ${operations.length} operations, ${requests} requests`);
  await server.close();
});

describe('every operation with a token limited to other projects', () => {
  it('an object of another project answers like a missing id (404, same body), and nothing is written', async () => {
    const before = await snapshot(server.ctx.db.kysely, server.ctx.db.dialect, server.ctx.blobs);
    let compared = 0;
    // The admin sees every project; the manager sees projects 1 and 2: both limited away from project 1.
    for (const token of [tokens.adminIn3, tokens.managerIn2]) {
      for (const op of operations) {
        const sample = sampleFor(op, ids);
        if (!hasIds(sample)) continue;
        const [outside, missing] = [await send(op, sample, token), await send(op, withIds(sample, MISSING), token)];
        expect(shape(outside), `${label(op)}: ${JSON.stringify(outside.body).slice(0, 200)}`).toEqual(shape(missing));
        expect(outside.status, label(op)).toBe(404);
        if (op.method !== 'HEAD') expectError(outside, 404, 'not_found');
        compared++;
      }
    }
    expect(compared).toBeGreaterThanOrEqual(2 * 13);
    expect(await snapshot(server.ctx.db.kysely, server.ctx.db.dialect, server.ctx.blobs)).toEqual(before);
  });

  it('lists hold only the token’s projects: projects/list (and its total), the event feed, auth/me names the limit', async () => {
    const list = await call(`${V1}/projects/list.php?archived=all`, { headers: { authorization: `Bearer ${tokens.managerIn2}` } });
    expect(list.body.data.projects.map((p: { id: number }) => p.id)).toEqual([2]);
    expect(list.body.data.total).toBe(1);
    const adminList = await call(`${V1}/projects/list.php?archived=all`, { headers: { authorization: `Bearer ${tokens.adminIn3}` } });
    expect([adminList.body.data.projects.map((p: { id: number }) => p.id), adminList.body.data.total]).toEqual([[3], 1]);
    // Events of project 1 exist (the uploads above): the unlimited token sees them, the limited ones none.
    const feed = async (token: string) =>
      (await call(`${V1}/events/list.php?after=0&limit=500`, { headers: { authorization: `Bearer ${token}` } })).body.data.events as {
        project_id: number;
      }[];
    expect((await feed(server.tokens.manager)).some((e) => e.project_id === 1)).toBe(true);
    for (const token of [tokens.managerIn2, tokens.adminIn3]) expect((await feed(token)).filter((e) => e.project_id === 1)).toEqual([]);
    const me = await call(`${V1}/auth/me.php`, { headers: { authorization: `Bearer ${tokens.managerIn2}` } });
    expect(me.body.data.token.project_ids).toEqual([2]);
    const unlimited = await call(`${V1}/auth/me.php`, { headers: { authorization: `Bearer ${server.tokens.manager}` } });
    expect(unlimited.body.data.token.project_ids).toBeNull();
  });

  it('a token limited to the samples’ project does everything there as before', async () => {
    for (const token of [tokens.adminIn1, tokens.managerIn1]) {
      for (const op of operations) {
        const res = await send(op, sampleFor(op, ids), token);
        expect(res.status, `${label(op)}: ${JSON.stringify(res.body).slice(0, 300)}`).toBeGreaterThanOrEqual(200);
        expect(res.status, label(op)).toBeLessThan(300);
      }
    }
  });
});

/** Arguments of each MCP tool on project 1's objects; a tool without a line here fails the test. */
const TOOL_ARGS: Record<string, (png: string) => Record<string, unknown>> = {
  whoami: () => ({}),
  list_projects: () => ({ archived: 'all' }),
  list_events: () => ({ project_id: 1 }),
  get_project_report: () => ({ project_id: 1 }),
  get_project_tree: () => ({ project_id: 1 }),
  search_project: () => ({ project_id: 1, q: 'Item' }),
  get_item: () => ({ item_id: 1000 }),
  list_plans: () => ({ project_id: 1 }),
  set_item_status: () => ({ item_id: 1001, status: 'blocked' }),
  set_item_planning: () => ({ item_id: 1001, priority: 'low' }),
  add_comment: () => ({ item_id: 1000, text: 'limited' }),
  add_answer: () => ({ item_id: 1000, text: 'limited' }),
  replace_item_links: () => ({ item_id: 1000, document_links: [] }),
  attach_item_images: (png) => ({ item_id: 1000, images: [{ filename: 'a.png', content_base64: png }] }),
  attach_answer_images: (png) => ({ answer_id: 7000, images: [{ filename: 'a.png', content_base64: png }] }),
};

describe('every MCP tool with a token limited to other projects', () => {
  const clients: Client[] = [];
  afterAll(() => Promise.all(clients.map((c) => c.close())));
  async function connect(token: string) {
    const client = new Client({ name: 'project-limit-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    clients.push(client);
    return client;
  }
  const run = async (client: Client, name: string) =>
    (await client.callTool({ name, arguments: TOOL_ARGS[name]!(png.toString('base64')) })) as CallToolResult;
  const text = (result: CallToolResult) => (result.content[0]?.type === 'text' ? result.content[0].text : '');

  it('project 1 does not exist for it; its lists hold only its project; limited to project 1, every tool works', async () => {
    const outside = await connect(tokens.managerIn2);
    const tools = (await outside.listTools()).tools.map((t) => t.name);
    expect(
      tools.filter((name) => !TOOL_ARGS[name]),
      'tools without arguments in TOOL_ARGS',
    ).toEqual([]);
    const before = await snapshot(server.ctx.db.kysely, server.ctx.db.dialect, server.ctx.blobs);
    for (const name of tools.filter((n) => !['whoami', 'list_projects'].includes(n))) {
      const result = await run(outside, name);
      expect(result.isError, `${name}: ${text(result)}`).toBe(true);
      expect(text(result), name).toContain('404 not_found');
    }
    expect(await snapshot(server.ctx.db.kysely, server.ctx.db.dialect, server.ctx.blobs)).toEqual(before);
    const listed = JSON.parse(text(await run(outside, 'list_projects')));
    expect(listed.projects.map((p: { id: number }) => p.id)).toEqual([2]);
    expect(JSON.parse(text(await run(outside, 'whoami'))).token.project_ids).toEqual([2]);

    const inside = await connect(tokens.managerIn1);
    for (const name of tools) {
      const result = await run(inside, name);
      expect(result.isError, `${name}: ${text(result)}`).toBeFalsy();
    }
  });
});
