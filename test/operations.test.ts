import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Type } from 'typebox';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineOperation, readErrors } from '../src/api/v1/define-operation.js';
import { OPERATION_IDS, OPERATIONS } from '../src/api/v1/operations.js';
import { strict } from '../src/api/v1/operations/shared.js';
import { QueryId } from '../src/api/v1/schemas.js';
import { createPunchlistClient, PunchlistApiError } from '../src/client/index.js';
import { definitionSample } from './helpers/operations.js';
import { startTestServer, type TestServer, V1 } from './helpers/server.js';
import { USERS } from './helpers/workspace.js';

/**
 * "Adding an operation touches one file" (STYLE.md 11): a throwaway definition, handed to a test app
 * beside the v1 operations, is served as a route (scope, validation, audit), documented in the OpenAPI
 * document, callable through the typed client and offered as an MCP tool, with nothing else written.
 */
const countComments = defineOperation({
  method: 'GET',
  path: '/items/comment-count.php',
  scope: 'items:read',
  tag: 'items',
  body: 'none',
  status: 200,
  summary: 'How many comments an item has (a test-only operation)',
  description: 'Counts the comments of the item card.',
  query: strict({ id: QueryId('The item id') }),
  data: Type.Object({ item_id: Type.Integer(), comments: Type.Integer() }),
  audit: { entity: 'item', field: 'id' },
  errors: readErrors('not_found', 'validation_error'),
  examples: { query: { id: '1000' }, data: { item_id: 1000, comments: 1 } },
  handler: async ({ user, query }, { items }) => {
    const { item } = await items.getItemCard(user, Number(query.id));
    return { item_id: item.id, comments: item.comments.length };
  },
  client: { positional: ['id'] },
  mcp: {
    tool: 'count_comments',
    title: 'Count comments',
    hints: { readOnlyHint: true },
    description: 'Counts the comments of one item (a test-only tool, to show that tools come from the definitions).',
    rename: { id: { name: 'item_id' } },
  },
});

const WITH_EXTRA = { ...OPERATIONS, countComments };

const ROOT = resolve(import.meta.dirname, '..');

/** The modules `entry` loads at run time (type-only imports and exports left out): files of src/, and package names. */
function runtimeImports(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022);
    for (const statement of source.statements) {
      let specifier: ts.Expression | undefined;
      if (ts.isImportDeclaration(statement)) {
        const clause = statement.importClause;
        const typeOnly =
          clause?.isTypeOnly ||
          (clause &&
            !clause.name &&
            clause.namedBindings &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly));
        if (!typeOnly) specifier = statement.moduleSpecifier;
      } else if (ts.isExportDeclaration(statement) && !statement.isTypeOnly) {
        const named = statement.exportClause && ts.isNamedExports(statement.exportClause) ? statement.exportClause.elements : undefined;
        if (!named?.every((e) => e.isTypeOnly)) specifier = statement.moduleSpecifier;
      }
      if (!specifier || !ts.isStringLiteral(specifier)) continue;
      const name = specifier.text;
      if (name.startsWith('.')) visit(join(dirname(file), name.replace(/\.js$/, '.ts')));
      else packages.add(name.startsWith('@') ? name.split('/').slice(0, 2).join('/') : name.split('/')[0]!);
    }
  };
  visit(join(ROOT, entry));
  return { files: [...files].map((f) => relative(ROOT, f)).sort(), packages: [...packages].sort() };
}

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ operations: WITH_EXTRA });
});
afterAll(() => server.close());

describe('an operation added by its definition alone', () => {
  it('is a route: its scope, its validation, its audit record', async () => {
    const ok = await server.call(`${V1}/items/comment-count.php?id=1000`, { token: server.tokens.manager });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data).toEqual({ item_id: 1000, comments: 1 });
    const limited = await server.ctx.tokens.createToken({ userId: USERS.manager, name: 'me only', scopes: ['auth:me'], expiresAt: null });
    expect((await server.call(`${V1}/items/comment-count.php?id=1000`, { token: limited.token })).body.error.code).toBe('scope_missing');
    const invalid = await server.call(`${V1}/items/comment-count.php?id=1000&verbose=1`, { token: server.tokens.manager });
    expect(invalid.status).toBe(422);
    expect((await server.call(`${V1}/items/comment-count.php`, { method: 'POST', token: server.tokens.manager })).status).toBe(405);
    await server.ctx.audit.flush();
    const records = await server.ctx.audit.list({ limit: 10 });
    expect(records.find((r) => r.path === `${V1}/items/comment-count.php` && r.status === 200)).toMatchObject({
      entity_type: 'item',
      entity_id: 1000,
    });
  });

  it('is in the OpenAPI document, with its scope, prose and example', async () => {
    const document = await (await server.request(`${V1}/openapi.json`)).json();
    const operation = document.paths['/items/comment-count.php']?.get;
    expect(operation).toMatchObject({
      operationId: 'countComments',
      tags: ['items'],
      security: [{ bearer: ['items:read'] }, { oauth2: ['items:read'] }],
    });
    expect(operation.description).toContain('Counts the comments of the item card.');
    expect(operation.responses['200'].content['application/json'].example.data).toEqual({ item_id: 1000, comments: 1 });
    expect(operation.parameters[0]).toMatchObject({ name: 'id', in: 'query', example: 1000 });
  });

  it('is a method of the typed client, and reachable through call()', async () => {
    const client = createPunchlistClient({ baseUrl: server.url, token: server.tokens.manager, operations: WITH_EXTRA });
    const counted = await client.countComments(1000);
    expect(counted.comments).toBe(1);
    expect(await client.call('countComments', { query: { id: 1000 } })).toEqual(counted);
    // The v1 methods are still there, named as before.
    expect((await client.me()).user.id).toBe(USERS.manager);
    await expect(client.countComments(4000)).rejects.toBeInstanceOf(PunchlistApiError);
    // Typed from the definitions (never run: the compiler checks these lines).
    void (() => {
      // @ts-expect-error: the item id is a number
      void client.countComments('1000');
      // @ts-expect-error: not an operation
      void client.call('deleteEverything', {});
      // @ts-expect-error: setItemStatus takes a status of the enum
      void client.setItemStatus(1000, 'finished');
      // @ts-expect-error: a read takes no Idempotency-Key
      void client.getItem(1000, { idempotencyKey: 'k' });
      const typed: Promise<{ item_id: number; comments: number }> = client.countComments(1000);
      void typed;
    });
  });

  it('is an MCP tool for the tokens with its scope', async () => {
    const mcp = new Client({ name: 'operations-test', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${server.tokens.manager}` } },
      }),
    );
    try {
      const { tools } = await mcp.listTools();
      expect(tools.map((t) => t.name)).toContain('count_comments');
      expect(tools.find((t) => t.name === 'count_comments')).toMatchObject({
        title: 'Count comments',
        annotations: { readOnlyHint: true, openWorldHint: false },
      });
      const result = (await mcp.callTool({ name: 'count_comments', arguments: { item_id: 1000 } })) as CallToolResult;
      expect(result.structuredContent).toEqual({ item_id: 1000, comments: 1 });
    } finally {
      await mcp.close();
    }
  });

  it('gets a sample request for the route-table tests from its example', () => {
    expect(definitionSample(countComments)).toEqual({ query: 'id=1000' });
  });
});

describe('the definitions', () => {
  it('each has prose, an example and a sample request; the MCP tools are the ones docs/design.md §9 names', () => {
    for (const id of OPERATION_IDS) {
      const op = OPERATIONS[id];
      expect(op.description.length, id).toBeGreaterThan(20);
      expect(op.examples.data, id).toBeDefined();
      const sample = definitionSample(op);
      if (op.body === 'json') expect(sample.json, id).toBeDefined();
      if (op.body === 'multipart') expect(sample.form, id).toBeDefined();
      expect(typeof op.handler, id).toBe('function');
    }
  });

  it('the client loads the definitions without server code (no Fastify, Kysely, services)', () => {
    const { files, packages } = runtimeImports('src/client/index.ts');
    expect(files).toContain('src/api/v1/operations/get-item.ts');
    expect(packages.filter((p) => !p.startsWith('node:'))).toEqual(['typebox']);
    expect(files.filter((f) => /^src\/(features|db|web|storage|imaging|cli|context|app|config)\b/.test(f))).toEqual([]);
  });
});
