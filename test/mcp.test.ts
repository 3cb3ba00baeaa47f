import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Operation, OPERATION_IDS, OPERATIONS } from '../src/api/v1/operations.js';
import { READ_ONLY_SCOPES, SCOPES, type Scope } from '../src/domain/scopes.js';
import { inProcessRunner } from './helpers/cli.js';
import { solid } from './helpers/images.js';
import { ALL_TOOLS, call, dataOf, errorOf, READ_TOOLS } from './helpers/mcp-tools.js';
import { startTestServer, type TestServer, V1 } from './helpers/server.js';
import { USERS } from './helpers/workspace.js';

const BIN = join(import.meta.dirname, '..', 'bin', 'punchlist');

let server: TestServer;
const clients: Client[] = [];

beforeAll(async () => {
  server = await startTestServer();
});
// The stdio clients are bin/punchlist processes (Node + tsx): on a busy machine they take a while to end.
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await server.close();
}, 180_000);

async function connect(token: string, options: { path?: string; headers?: Record<string, string> } = {}): Promise<Client> {
  const client = new Client({ name: 'punchlist-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}${options.path ?? '/mcp'}`), {
      requestInit: { headers: { authorization: `Bearer ${token}`, ...options.headers } },
    }),
  );
  clients.push(client);
  return client;
}

async function tokenWith(scopes: readonly Scope[], userId: number = USERS.manager) {
  return server.ctx.tokens.createToken({ userId, name: `mcp ${scopes.join(' ')}`, scopes: [...scopes], expiresAt: null });
}

describe('MCP over streamable HTTP at /mcp', () => {
  it('lists the tools a token may use: all with every scope, fewer for a read-only token', async () => {
    const full = await connect(server.tokens.manager);
    expect((await full.listTools()).tools.map((t) => t.name)).toEqual(ALL_TOOLS);
    // The names come from the operation definitions, where each tool is declared once.
    const definitions: Operation[] = OPERATION_IDS.map((id) => OPERATIONS[id]);
    expect(definitions.flatMap((op) => (op.mcp ? [op.mcp.tool] : []))).toEqual(ALL_TOOLS);
    expect(full.getServerVersion()?.name).toBe('punchlist');
    expect(full.getInstructions()).toMatch(/whoami first/);

    const readOnly = await connect((await tokenWith(READ_ONLY_SCOPES)).token);
    expect((await readOnly.listTools()).tools.map((t) => t.name)).toEqual([
      'whoami',
      'list_projects',
      'get_project_tree',
      'search_project',
      'get_item',
      'list_plans',
      'get_project_report',
    ]);

    const commentsOnly = await connect((await tokenWith(['comments:write'])).token);
    expect((await commentsOnly.listTools()).tools.map((t) => t.name)).toEqual(['add_comment']);
  });

  it('describes each tool with a JSON Schema and the recommended flow', async () => {
    const { tools } = await (await connect(server.tokens.manager)).listTools();
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(JSON.stringify(tool.inputSchema)).not.toContain('errorMessage');
      expect(tool.description!.length, tool.name).toBeGreaterThan(40);
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.whoami?.description).toMatch(/^Call this first/);
    expect(byName.search_project?.description).toMatch(/search first, then use the exact\s+item_id/);
    expect(byName.set_item_status?.description).toMatch(/report the error .* do not retry/);
    expect(byName.set_item_status?.inputSchema.properties?.status).toMatchObject({ enum: ['pending', 'in_progress', 'done', 'blocked'] });
    expect(byName.attach_item_images?.description).toMatch(/URLs are never fetched/);
    // Derived from the operation's schema: its required fields under the tool's names, ids shown as integers.
    expect(byName.search_project?.inputSchema.required).toEqual(['project_id']);
    expect(byName.search_project?.inputSchema.properties?.item_id).toMatchObject({ type: 'integer', minimum: 1 });
    expect(byName.attach_answer_images?.inputSchema.required).toEqual(['answer_id', 'images']);
    expect(byName.get_project_report?.inputSchema.properties).not.toHaveProperty('format');
  });

  it('gives each tool a title, the annotations of docs/design.md §9 and an outputSchema; results carry valid structuredContent', async () => {
    const { tools } = await (await connect(server.tokens.manager)).listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.annotations?.openWorldHint, tool.name).toBe(false);
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(READ_TOOLS.includes(tool.name));
    }
    const writes = ALL_TOOLS.filter((name) => !READ_TOOLS.includes(name));
    const destructive = writes.filter((name) => byName[name]?.annotations?.destructiveHint === true);
    const idempotent = writes.filter((name) => byName[name]?.annotations?.idempotentHint === true);
    expect(destructive.sort()).toEqual(['replace_item_links', 'set_item_planning']);
    expect(idempotent.sort()).toEqual(['replace_item_links', 'set_item_planning', 'set_item_status']);
    for (const name of writes) expect(byName[name]?.annotations?.destructiveHint, name).toBeTypeOf('boolean');
    expect(byName.get_item?.outputSchema?.properties).toHaveProperty('item');
    // The SDK client validates structuredContent against the listed outputSchema: a mismatch would throw here.
    const mcp = await connect(server.tokens.manager);
    await mcp.listTools();
    expect(dataOf(await call(mcp, 'get_item', { item_id: 1000 })).item.id).toBe(1000);
    expect(dataOf(await call(mcp, 'get_project_tree', { project_id: 1 })).project.id).toBe(1);
  });

  it('read-only mode (X-MCP-Readonly: true or ?read_only=1) lists and accepts only the read tools', async () => {
    for (const options of [{ headers: { 'x-mcp-readonly': 'true' } }, { path: '/mcp?read_only=1' }]) {
      const mcp = await connect(server.tokens.manager, options);
      expect(
        (await mcp.listTools()).tools.map((t) => t.name),
        JSON.stringify(options),
      ).toEqual(READ_TOOLS);
      const before = await server.ctx.audit.list({ limit: 1 });
      await expect(call(mcp, 'set_item_status', { item_id: 1000, status: 'done' })).rejects.toThrow(/Unknown tool "set_item_status"/);
      await server.ctx.audit.flush();
      expect((await server.ctx.audit.list({ limit: 1 }))[0]?.request_id, 'nothing reached v1').toBe(before[0]?.request_id);
      expect(dataOf(await call(mcp, 'whoami')).user.id).toBe(USERS.manager);
    }
  });

  it('refuses a present Origin that is not allowed with 403 (DNS rebinding); its own origin and no Origin pass', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${server.tokens.manager}`,
    };
    const evil = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { ...headers, origin: 'http://evil.example' }, body });
    expect(evil.status).toBe(403);
    expect(JSON.stringify(await evil.json())).toContain('not allowed');
    const own = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { ...headers, origin: server.url }, body });
    expect(own.status).toBe(200);
    const none = await fetch(`${server.url}/mcp`, { method: 'POST', headers, body });
    expect(none.status).toBe(200);
  });

  it('a tool outside the token scopes cannot be called', async () => {
    const readOnly = await connect((await tokenWith(READ_ONLY_SCOPES)).token);
    await expect(call(readOnly, 'add_comment', { item_id: 1000, text: 'x' })).rejects.toThrow(/Unknown tool "add_comment"/);
  });

  it('calls each read tool', async () => {
    const mcp = await connect(server.tokens.manager);
    expect(dataOf(await call(mcp, 'whoami'))).toMatchObject({ user: { id: USERS.manager }, scopes: [...SCOPES] });
    expect(dataOf(await call(mcp, 'list_projects', { archived: 'all' })).projects.map((p: { id: number }) => p.id)).toEqual([1, 2]);
    expect(dataOf(await call(mcp, 'list_projects')).projects.map((p: { id: number }) => p.id)).toEqual([1]);
    const tree = dataOf(await call(mcp, 'get_project_tree', { project_id: 1 }));
    expect(tree.sections.map((s: { id: number }) => s.id)).toEqual([10, 20]);
    expect(dataOf(await call(mcp, 'get_item', { item_id: 1000 })).item).toMatchObject({ id: 1000, text: 'Extinguishers checked' });
  });

  it('calls get_project_report: the CSV as the text, and as structuredContent with its file name', async () => {
    const mcp = await connect(server.tokens.partial);
    const result = await call(mcp, 'get_project_report', { project_id: 1 });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const first = result.content[0];
    const text = first?.type === 'text' ? first.text : '';
    expect(text.split('\r\n')[0]).toBe(
      'item_id,section,checklist,text,status,priority,deadline,participants,answers,last_answer_status,verdict,url,plan,plan_x,plan_y,company,ball_in_court',
    );
    // What the partial member sees: section 10 and checklist 201 only.
    expect(
      text
        .split('\r\n')
        .slice(1, -1)
        .map((line) => line.split(',')[0]),
    ).toEqual(['1000', '1001', '1010', '1011', '2010']);
    expect(result.structuredContent).toMatchObject({ content_type: 'text/csv; charset=utf-8', encoding: 'utf-8', content: text });
    expect(errorOf(await call(mcp, 'get_project_report', { project_id: 3 }))).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('calls search_project', async () => {
    const mcp = await connect(server.tokens.manager);
    const found = dataOf(await call(mcp, 'search_project', { project_id: 1, q: 'extinguishers' }));
    expect(found.hits.some((h: { item_id: number }) => h.item_id === 1000)).toBe(true);
  });

  it('calls each write tool', async () => {
    const mcp = await connect(server.tokens.manager);
    expect(dataOf(await call(mcp, 'set_item_status', { item_id: 1001, status: 'done' }))).toMatchObject({
      item: { status: 'done' },
      changed: true,
    });
    expect(dataOf(await call(mcp, 'set_item_planning', { item_id: 1001, priority: 'low', deadline: null })).item).toMatchObject({
      priority: 'low',
      deadline: null,
    });
    expect(dataOf(await call(mcp, 'add_comment', { item_id: 1000, text: 'Via MCP' })).comment.text).toBe('Via MCP');
    const answer = dataOf(
      await call(mcp, 'add_answer', {
        item_id: 1000,
        text: 'Answer via MCP',
        document_links: [{ title: 'Act', url: 'https://example.test/act' }],
      }),
    ).answer;
    expect(answer).toMatchObject({ status: 'pending', document_links: [{ title: 'Act' }] });
    expect(
      dataOf(
        await call(mcp, 'replace_item_links', {
          item_id: 1000,
          document_links: [{ kind: 'link', title: 'Site', url: 'https://example.test' }],
        }),
      ).document_links,
    ).toMatchObject([{ kind: 'link', title: 'Site' }]);

    const png = (await solid(32, 32, 'png')).toString('base64');
    const images = dataOf(await call(mcp, 'attach_item_images', { item_id: 1000, images: [{ filename: 'tag.png', content_base64: png }] }));
    expect(images.attachments).toMatchObject([{ original_name: 'tag.png', mime_type: 'image/webp', width: 32, height: 32 }]);
    const dataUrl = `data:image/png;base64,${png}`;
    const answerImages = dataOf(
      await call(mcp, 'attach_answer_images', { answer_id: 7000, images: [{ filename: 'act.png', content_base64: dataUrl }] }),
    );
    expect(answerImages).toMatchObject({ status_reset: true, answer_status: 'pending' });
  });

  it('audits a tool call as the v1 operation behind it', async () => {
    const { id, token } = await tokenWith(['comments:write']);
    const mcp = await connect(token);
    dataOf(await call(mcp, 'add_comment', { item_id: 1010, text: 'Audited' }));
    const [record] = await server.ctx.audit.list({ tokenId: id, limit: 1 });
    expect(record).toMatchObject({
      method: 'POST',
      path: `${V1}/comments/create.php`,
      status: 201,
      token_id: id,
      user_id: USERS.manager,
      entity_type: 'item',
      entity_id: 1010,
      error_code: null,
    });
    expect(record?.user_agent).toMatch(/^punchlist-mcp/);
    expect(record?.ip).toBe('127.0.0.1');
  });

  it('reports v1 errors as tool errors that tell the agent to report, not work around', async () => {
    const mcp = await connect(server.tokens.manager);
    const notFound = errorOf(await call(mcp, 'get_item', { item_id: 4000 }));
    expect(notFound).toMatchObject({ status: 404, code: 'not_found' });
    expect(notFound.text).toMatch(/request_id: [0-9a-f-]{36}/);
    expect(notFound.text).toMatch(/do not guess other ids/);

    const invalid = errorOf(await call(mcp, 'set_item_status', { item_id: 1000, status: 'finished' }));
    expect(invalid).toMatchObject({ status: 422, code: 'validation_error' });
    expect(invalid.text).toMatch(/422 validation_error: status: must be one of/);

    const observer = await connect(server.tokens.observer);
    expect(errorOf(await call(observer, 'set_item_status', { item_id: 1000, status: 'done' }))).toMatchObject({
      status: 403,
      code: 'forbidden',
    });

    const [record] = await server.ctx.audit.list({ limit: 1 });
    expect(record).toMatchObject({ path: `${V1}/items/status.php`, status: 403, error_code: 'forbidden', token_id: USERS.observer });
  });

  it('never fetches a URL handed as an image, and sends nothing for malformed base64', async () => {
    const mcp = await connect(server.tokens.manager);
    const before = (await server.ctx.audit.list({ limit: 1 }))[0]?.request_id;
    for (const content of ['https://example.test/tag.png', 'file:///etc/passwd', 'not base64!']) {
      const result = await call(mcp, 'attach_item_images', { item_id: 1000, images: [{ filename: 'x.png', content_base64: content }] });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/Nothing was sent/);
    }
    expect((await server.ctx.audit.list({ limit: 1 }))[0]?.request_id).toBe(before);
  });

  it('answers 401 with WWW-Authenticate: Bearer and a JSON body without a valid token', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const missing = await fetch(`${server.url}/mcp`, { method: 'POST', headers, body });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource", realm="punchlist"`,
    );
    expect(missing.headers.get('content-type')).toMatch(/^application\/json/);
    const missingBody = await missing.json();
    expect(missingBody).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    expect(missingBody.error.message).toMatch(/Connect with OAuth/);

    const { id, token } = await tokenWith(['auth:me']);
    await server.ctx.tokens.revokeToken(id);
    for (const [value, code] of [
      [`Bearer ${token}`, 'token_revoked'],
      ['Bearer plk_wrong', 'token_invalid'],
    ] as const) {
      const res = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { ...headers, authorization: value }, body });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(
        /^Bearer resource_metadata="[^"]+", realm="punchlist", error="invalid_token", error_description="[^"]+"$/,
      );
      expect(await res.json()).toMatchObject({ ok: false, error: { code } });
    }

    // A client without OAuth support and a bad token sees the API's error.
    const client = new Client({ name: 'anonymous', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: 'Bearer plk_wrong' } },
    });
    await expect(client.connect(transport)).rejects.toThrow(/401|token_invalid|not valid/);
  });

  it('is stateless: GET and DELETE answer 405', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${server.url}/mcp`, { method, headers: { authorization: `Bearer ${server.tokens.manager}` } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });
});

describe('MCP over stdio: bin/punchlist mcp', () => {
  it('serves the same tools for the token, calling the service at --url', async () => {
    const { id, token } = await tokenWith(['auth:me', 'items:read', 'comments:write']);
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--token', token, '--url', server.url],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      stderr: 'pipe',
    });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['whoami', 'get_item', 'add_comment']);
      expect(dataOf(await call(client, 'whoami')).token.id).toBe(id);
      dataOf(await call(client, 'add_comment', { item_id: 1000, text: 'Over stdio' }));
      const [record] = await server.ctx.audit.list({ tokenId: id, limit: 1 });
      expect(record).toMatchObject({ path: `${V1}/comments/create.php`, status: 201 });
      expect(record?.user_agent).toMatch(/^punchlist-mcp-stdio\//);
    } finally {
      await client.close();
    }
  });

  it('takes the token from PUNCHLIST_TOKEN when --token is absent, and --read-only offers only read tools', async () => {
    const { token } = await tokenWith(['auth:me', 'items:read', 'comments:write']);
    const client = new Client({ name: 'stdio-env', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--read-only', '--url', server.url],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PUNCHLIST_TOKEN: token },
      stderr: 'pipe',
    });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['whoami', 'get_item']);
      await expect(call(client, 'add_comment', { item_id: 1000, text: 'no' })).rejects.toThrow(/Unknown tool "add_comment"/);
    } finally {
      await client.close();
    }
  });

  // Refusals come before the stdio transport: the command runs in the test process (test/helpers/cli.ts), but the
  // first one through the real binary.
  const inProcess = inProcessRunner(() => ({ cwd: process.cwd(), env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } }));

  it('refuses to start with a refused token: one line on stderr, non-zero exit', async () => {
    const run = promisify(execFile);
    const error = await run(process.execPath, [BIN, 'mcp', '--token', 'plk_wrong', '--url', server.url]).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 1 });
    expect((error as { stderr: string }).stderr).toMatch(/^punchlist: the token was refused by http:\/\/127\.0\.0\.1:\d+: token_invalid/);
    const usage = await inProcess(['mcp']);
    expect(usage).toMatchObject({ code: 2 });
    expect(usage.stderr).toMatch(/missing option --token/);
  });

  it('refuses to start without auth:me (it could not know which tools to list): one line naming the scope, exit 1', async () => {
    const { id, token } = await tokenWith(['items:read', 'comments:write']);
    const error = await inProcess(['mcp', '--token', token, '--url', server.url]);
    expect(error).toMatchObject({ code: 1, stdout: '' });
    const stderr = error.stderr;
    expect(stderr).toMatch(/^punchlist: the token lacks the scope "auth:me", which punchlist mcp needs/);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    // The one v1 call it made is the refused GET /auth/me.php.
    await server.ctx.audit.flush();
    const records = await server.ctx.audit.list({ tokenId: id, limit: 10 });
    expect(records).toMatchObject([{ path: `${V1}/auth/me.php`, status: 403, error_code: 'scope_missing' }]);
  });
});

describe('MCP for a member limited to their company’s items (docs/design.md §20)', () => {
  it('shows through the tools only the items their company holds: tree, item, search, report', async () => {
    const admin = { id: USERS.admin, role: 'admin' as const };
    const sparks = await server.ctx.companies.createCompany(admin, { name: 'Sparks for MCP', trade: 'Electrical' });
    const walls = await server.ctx.companies.createCompany(admin, { name: 'Walls for MCP', trade: 'Drywall' });
    await server.ctx.companies.setUserCompany(admin, USERS.bystander, sparks.id);
    await server.ctx.members.setMember(admin, 1, {
      userId: USERS.bystander,
      role: 'executor',
      limited: false,
      sectionIds: [],
      checklistIds: [],
      companyItemsOnly: true,
    });
    await server.ctx.itemWrites.setCompany(admin, 1001, sparks.id);
    await server.ctx.itemWrites.setCompany(admin, 1000, walls.id);
    const mcp = await connect((await tokenWith(SCOPES, USERS.bystander)).token);

    const tree = dataOf(await call(mcp, 'get_project_tree', { project_id: 1 }));
    const treeItems = tree.sections.flatMap((s: any) => s.checklists.flatMap((c: any) => c.items.map((i: { id: number }) => i.id)));
    expect(treeItems).toEqual([1001]);
    expect(dataOf(await call(mcp, 'get_item', { item_id: 1001 })).item).toMatchObject({ id: 1001 });
    expect(errorOf(await call(mcp, 'get_item', { item_id: 1000 }))).toMatchObject({ status: 404, code: 'not_found' });
    // Item 1000's text, and the other company's name: nothing found.
    for (const q of ['extinguishers', 'Walls for MCP']) {
      expect(dataOf(await call(mcp, 'search_project', { project_id: 1, q })).hits, q).toEqual([]);
    }
    expect(dataOf(await call(mcp, 'search_project', { project_id: 1, q: 'Sparks for MCP' })).hits.map((h: any) => h.item_id)).toEqual([
      1001,
    ]);
    const report = await call(mcp, 'get_project_report', { project_id: 1 });
    const text = report.content[0]?.type === 'text' ? report.content[0].text : '';
    expect(
      text
        .split('\r\n')
        .slice(1, -1)
        .map((line) => line.split(',')[0]),
    ).toEqual(['1001']);
  });
});
