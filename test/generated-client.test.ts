import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, V1 } from './helpers/server.js';
import { USERS } from './helpers/workspace.js';

/**
 * What a new integrator does with the contract: generate types with openapi-typescript from the live
 * document, call the API with openapi-fetch, and compile without casts. The program below is
 * type-checked strictly (its @ts-expect-error lines must be errors: unknown parameters and enum values),
 * then run against the server. Files go under node_modules/.cache, where `openapi-fetch` resolves and
 * neither the linter nor the project's typecheck looks.
 */

const PROGRAM = `
import createClient from 'openapi-fetch';
import type { components, paths } from './punchlist-api.js';

type ItemStatus = components['schemas']['Item']['status'];

export async function run(baseUrl: string, token: string): Promise<string[]> {
  const client = createClient<paths>({ baseUrl: baseUrl + '${V1}', headers: { Authorization: 'Bearer ' + token } });
  const me = await client.GET('/auth/me.php');
  if (!me.data) throw new Error(me.error?.error.code ?? 'no answer');
  const item = await client.GET('/items/get.php', { params: { query: { id: 1000 } } });
  if (!item.data) throw new Error(item.error?.error.message ?? 'no item');
  const current: ItemStatus = item.data.data.item.status;
  const next: ItemStatus = current === 'done' ? 'pending' : 'done';
  const changed = await client.PATCH('/items/status.php', { body: { id: 1000, status: next } });
  const planned = await client.PATCH('/items/planning.php', { body: { id: 1000, deadline: null, priority: 'high' } });
  const hits = await client.GET('/projects/search.php', { params: { query: { id: 1, q: 'Item', limit: 5, offset: 0 } } });
  const types = hits.data?.data.hits.map((hit) => hit.entity_type) ?? [];
  const refused = await client.GET('/items/get.php', { params: { query: { id: 999999 } } });
  const code = refused.error?.error.code ?? 'none';
  // A file operation: the CSV as text (openapi-fetch's parseAs), its errors still typed as the envelope.
  const report = await client.GET('/projects/report.php', { params: { query: { id: 1, format: 'csv' } }, parseAs: 'text' });
  const header = (report.data ?? '').replace(/^\\uFEFF/, '').split('\\r\\n')[0] ?? '';
  const hidden = await client.GET('/projects/report.php', { params: { query: { id: 3 } }, parseAs: 'text' });
  const hiddenCode = hidden.error?.error.code ?? 'none';

  // @ts-expect-error: not a status
  await client.PATCH('/items/status.php', { body: { id: 1000, status: 'finished' } });
  // @ts-expect-error: not a parameter of items/get
  const unknownParameter: paths['/items/get.php']['get']['parameters']['query'] = { id: 1000, verbose: 1 };
  // @ts-expect-error: ids are integers, not strings
  const stringId: paths['/items/get.php']['get']['parameters']['query'] = { id: '1000' };
  // @ts-expect-error: not a report format
  const badFormat: paths['/projects/report.php']['get']['parameters']['query'] = { id: 1, format: 'xlsx' };
  void [unknownParameter, stringId, badFormat];

  return [String(me.data.data.user.id), next, String(changed.data?.data.changed), planned.data?.data.item.priority ?? '', String(types.length > 0), code, header, hiddenCode];
}
`;

let server: TestServer;
const dir = join(import.meta.dirname, '..', 'node_modules', '.cache', `punchlist-generated-client-${process.pid}`);

beforeAll(async () => {
  server = await startTestServer();
  mkdirSync(dir, { recursive: true });
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await server.close();
});

describe('a client generated with openapi-typescript + openapi-fetch', () => {
  it('type-checks a program using it without casts, and the program works against the server', async () => {
    const document = await (await server.request(`${V1}/openapi.json`)).json();
    writeFileSync(join(dir, 'punchlist-api.ts'), astToString(await openapiTS(document)));
    writeFileSync(join(dir, 'program.ts'), PROGRAM);

    const options: ts.CompilerOptions = {
      strict: true,
      noUncheckedIndexedAccess: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: true,
      noEmit: true,
      types: [],
    };
    const program = ts.createProgram([join(dir, 'program.ts')], options);
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => {
      const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
      return `${d.file ? d.file.fileName.split('/').pop() : ''}:${line} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
    expect(diagnostics).toEqual([]);
    expect(PROGRAM).not.toMatch(/\bas\s+(?:any|unknown|[A-Z])/);

    for (const name of ['punchlist-api', 'program']) {
      const source = ts.sys.readFile(join(dir, `${name}.ts`)) ?? '';
      const output = ts.transpileModule(source.replaceAll("'./punchlist-api.js'", "'./punchlist-api.mjs'"), {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      });
      writeFileSync(join(dir, `${name}.mjs`), output.outputText);
    }
    const { run } = (await import(pathToFileURL(join(dir, 'program.mjs')).href)) as {
      run: (url: string, token: string) => Promise<string[]>;
    };
    const [userId, status, changed, priority, found, code, header, hiddenCode] = await run(server.url, server.tokens.manager);
    expect(userId).toBe(String(USERS.manager));
    expect(['pending', 'done']).toContain(status);
    expect(changed).toBe('true');
    expect(priority).toBe('high');
    expect(found).toBe('true');
    expect(code).toBe('not_found');
    expect(header).toBe(
      'item_id,section,checklist,text,status,priority,deadline,participants,answers,last_answer_status,verdict,url,plan,plan_x,plan_y,company,ball_in_court',
    );
    expect(hiddenCode).toBe('not_found');
  });
});
