import { dereference, validate } from '@readme/openapi-parser';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_IDS, OPERATIONS, type OperationId } from '../src/api/v1/operations.js';
import { errorCodesOfSources } from './helpers/error-codes.js';
import { solid, uploadForm } from './helpers/images.js';
import { definitionSample } from './helpers/operations.js';
import { startTestServer, type TestServer, V1 } from './helpers/server.js';

type Json = Record<string, any>;

/**
 * A request per operation that succeeds for the manager of the standard workspace: the example request
 * of its definition (or its `examples.sample`), an upload with one image.
 */
async function requestOf(server: TestServer, id: OperationId): Promise<Response> {
  const { method, path } = OPERATIONS[id];
  const sample = definitionSample(OPERATIONS[id]);
  const target = `${V1}${path}${sample.query ? `?${sample.query}` : ''}`;
  if (sample.form)
    return server.request(target, {
      token: server.tokens.manager,
      method,
      body: uploadForm(sample.form, [{ name: 'tag.png', bytes: await solid(32, 24, 'png') }]),
    });
  return server.request(target, { token: server.tokens.manager, method, ...(sample.json ? { json: sample.json } : {}) });
}

function ajv() {
  const instance = new Ajv2020({ strict: false, allErrors: true });
  instance.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/);
  instance.addFormat('date', /^\d{4}-\d{2}-\d{2}$/);
  instance.addFormat('binary', () => true);
  return instance;
}

let server: TestServer;
let document: Json;
let resolved: Json;
const compiled = new Map<unknown, ValidateFunction>();
const validatorFor = (schema: Json) => {
  if (!compiled.has(schema)) compiled.set(schema, ajv().compile(schema));
  return compiled.get(schema)!;
};

function operationOf(doc: Json, id: OperationId): Json | undefined {
  const { method, path } = OPERATIONS[id];
  return doc.paths?.[path]?.[method.toLowerCase()];
}

const documented = () => OPERATION_IDS.filter((id) => operationOf(document, id));

beforeAll(async () => {
  server = await startTestServer();
  const res = await server.request(`${V1}/openapi.json`);
  expect(res.status).toBe(200);
  document = (await res.json()) as Json;
  resolved = (await dereference(structuredClone(document) as never)) as Json;
});
afterAll(() => server.close());

describe('the OpenAPI document', () => {
  it('is public (no token; a bad token is ignored), JSON, and a valid OpenAPI 3.1 document', async () => {
    const withBadToken = await server.request(`${V1}/openapi.json`, { token: 'nonsense' });
    expect(withBadToken.status).toBe(200);
    expect(withBadToken.headers.get('content-type')).toMatch(/^application\/json/);
    expect(document.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(document) as never);
    expect(result.valid ? [] : result.errors, JSON.stringify(result)).toEqual([]);
    expect(result.warnings).toEqual([]);
  });

  it('documents all the v1 operations, the two downloads, and nothing else (no web, /mcp, 405 or documentation routes)', () => {
    const operations = Object.entries(document.paths as Json).flatMap(([path, item]) =>
      Object.keys(item as Json)
        .filter((key) => key !== 'servers')
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    const expected = OPERATION_IDS.map((id) => `${OPERATIONS[id].method} ${OPERATIONS[id].path}`);
    expect(operations.sort()).toEqual([...expected, 'GET /items/file.php', 'GET /answers/file.php', 'GET /plans/file.php'].sort());
    expect(document.servers).toEqual([{ url: V1, description: 'This server' }]);
    for (const path of ['/items/file.php', '/answers/file.php']) {
      const item = document.paths[path];
      expect(item.servers, path).toEqual([expect.objectContaining({ url: '/api' })]);
      expect(item.get.security).toEqual([{ bearer: ['items:read'] }, { oauth2: ['items:read'] }]);
      expect(item.get.parameters).toEqual([
        expect.objectContaining({ name: 'id', in: 'query', required: true, schema: { type: 'integer', minimum: 1 } }),
      ]);
      expect(Object.keys(item.get.responses['200'].content)).toEqual(['image/webp']);
    }
    const sheet = document.paths['/plans/file.php'];
    expect(sheet.get.security).toEqual([{ bearer: ['projects:read'] }, { oauth2: ['projects:read'] }]);
    expect(sheet.get.parameters.map((p: Json) => [p.name, p.required])).toEqual([
      ['id', true],
      ['version', false],
    ]);
  });

  it('names its shapes under components.schemas, refers to them, and gives enumerations as enums', () => {
    const schemas = document.components.schemas as Json;
    for (const name of ['Item', 'ProjectCard', 'ProjectTree', 'SearchHit', 'Identity', 'ErrorEnvelope'])
      expect(schemas[name], name).toBeDefined();
    const text = JSON.stringify({ paths: document.paths, responses: document.components.responses });
    for (const name of ['Item', 'ProjectCard', 'ProjectTree', 'SearchHit', 'Identity', 'ErrorEnvelope']) {
      expect(text, `${name} is referred to`).toContain(`"#/components/schemas/${name}"`);
    }
    expect(JSON.stringify(schemas.ProjectTree)).toContain('#/components/schemas/ProjectCard');
    expect(schemas.Item.properties.status).toEqual({ enum: ['pending', 'in_progress', 'done', 'blocked'] });
    expect(schemas.Item.properties.priority).toEqual({ enum: ['low', 'medium', 'high'] });
    expect(schemas.DocumentLink.properties.kind.enum).toEqual([
      'document',
      'spreadsheet',
      'presentation',
      'folder',
      'image',
      'video',
      'link',
    ]);
    expect(schemas.SearchHit.properties.entity_type.enum).toContain('comment');
    expect(schemas.Answer.properties.status.enum).toEqual(['pending', 'approved', 'rejected']);
    expect(schemas.ErrorEnvelope.properties.error.properties.code.enum).toEqual(
      expect.arrayContaining(['validation_error', 'scope_missing', 'rate_limited']),
    );
    // Nullable scalars as type arrays, not anyOf unions.
    expect(schemas.Item.properties.deadline).toEqual({ type: ['string', 'null'], format: 'date' });
    expect(schemas.SearchHit.properties.item_id).toEqual({ type: ['integer', 'null'] });
  });

  it('types id, limit and offset query parameters as integers and describes every parameter', () => {
    let seen = 0;
    for (const item of Object.values(resolved.paths as Json)) {
      for (const [method, operation] of Object.entries(item as Json)) {
        if (method === 'servers') continue;
        for (const parameter of ((operation as Json).parameters ?? []) as Json[]) {
          expect(parameter.description, `${method} ${parameter.name}`).toBeTruthy();
          if (['id', 'item_id', 'limit', 'offset'].includes(parameter.name)) {
            expect(parameter.schema.type, parameter.name).toBe('integer');
            expect(parameter.schema.pattern).toBeUndefined();
            seen++;
          }
        }
      }
    }
    expect(seen).toBeGreaterThan(8);
  });

  it('names each operation, its tag and its scope as a bearer security requirement, matching the routes', () => {
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const id of documented()) {
      const operation = operationOf(document, id)!;
      expect(operation.operationId).toBe(id);
      expect(operation.security, id).toEqual([{ bearer: [OPERATIONS[id].scope] }, { oauth2: [OPERATIONS[id].scope] }]);
      expect(operation.tags).toEqual([OPERATIONS[id].tag]);
      expect(operation.summary, id).toBeTruthy();
      expect(operation.description, id).toContain(`**Scope:** \`${OPERATIONS[id].scope}\``);
      expect(operation.description, id).not.toMatch(/errorMessage/);
    }
  });

  it('lists the error responses of each operation, all in the error envelope', () => {
    for (const id of documented()) {
      const op = OPERATIONS[id];
      const responses = operationOf(resolved, id)!.responses as Json;
      const expected = ['400', '401', '403', '405', '408', '417', '429', '431', '500', '503'];
      if (id !== 'me' && id !== 'listProjects') expected.push('404');
      // Every operation refuses an unknown query parameter or field with 422, `me` included.
      expected.push('422');
      if (op.body !== 'none') expected.push('409', '415');
      if (op.body === 'json') expected.push('413');
      // A file operation answers the file itself: no ETag, so no 304.
      if (op.body === 'none' && !op.file) expected.push('304');
      expect(Object.keys(responses).sort(), id).toEqual([String(op.status), ...expected].sort());
      for (const status of expected.filter((s) => s !== '304')) {
        const schema = responses[status].content['application/json'].schema;
        expect(schema.properties.ok, `${id} ${status}`).toMatchObject({ const: false });
        expect(schema.required).toEqual(['ok', 'error', 'meta']);
      }
      expect(responses['429'].headers['Retry-After']).toBeDefined();
      expect(responses['503'].headers['Retry-After']).toBeDefined();
      expect(responses['405'].headers.Allow).toBeDefined();
    }
  });

  it('lists every error code the API can answer, with an example under its status on the operations', () => {
    const codes = errorCodesOfSources();
    // The scan must keep finding the codes of src/shared/errors.ts (and the other files): a regex that rots finds nothing.
    expect(
      codes
        .get('src/shared/errors.ts')
        ?.map((c) => c.code)
        .sort(),
    ).toEqual([
      'forbidden',
      'not_found',
      'rate_limited',
      'scope_missing',
      'token_expired',
      'token_invalid',
      'token_revoked',
      'unauthorized',
      'validation_error',
    ]);
    const all = [...codes.values()].flat();
    for (const code of [
      'bad_request',
      'request_timeout',
      'headers_too_large',
      'expectation_failed',
      'method_not_allowed',
      'service_unavailable',
    ]) {
      expect(
        all.map((c) => c.code),
        code,
      ).toContain(code);
    }

    // status → codes with an example in a response of that status, on at least one operation.
    const documentedCodes = new Map<string, Set<string>>();
    for (const id of documented()) {
      for (const [status, response] of Object.entries(operationOf(resolved, id)!.responses as Json)) {
        for (const example of Object.values((response.content?.['application/json']?.examples ?? {}) as Json)) {
          const set = documentedCodes.get(status) ?? new Set<string>();
          set.add(example.value.error.code);
          documentedCodes.set(status, set);
        }
      }
    }
    for (const { file, status, code } of all) {
      expect(documentedCodes.get(String(status))?.has(code), `${status} ${code} (${file}) has no example in the document`).toBe(true);
    }
    // Nothing is defined and left unreferenced.
    const referenced = new Set(
      documented().flatMap((id) =>
        Object.values(operationOf(document, id)!.responses as Json)
          .map((r) => (r as Json).$ref)
          .filter(Boolean),
      ),
    );
    for (const name of Object.keys(document.components.responses as Json)) {
      expect(referenced.has(`#/components/responses/${name}`), `${name} is referenced by no operation`).toBe(true);
    }
  });

  it('has an example for every operation that validates against its declared schemas', () => {
    for (const id of documented()) {
      const operation = operationOf(resolved, id)!;
      const file = OPERATIONS[id].file;
      if (file) {
        // A file operation documents its media types as binary; its `data` example is what the typed client hands over.
        const content = operation.responses[String(OPERATIONS[id].status)].content;
        expect(Object.keys(content), id).toEqual([...file.mediaTypes]);
        for (const type of file.mediaTypes) expect(content[type].schema).toMatchObject({ type: 'string', format: 'binary' });
        expect(operation.responses[String(OPERATIONS[id].status)].headers['Content-Disposition'], id).toBeDefined();
        expect(validatorFor(OPERATIONS[id].data as Json)(OPERATIONS[id].examples.data), id).toBe(true);
        continue;
      }
      const media = operation.responses[String(OPERATIONS[id].status)].content['application/json'];
      expect(media.example, id).toBeDefined();
      const validateResponse = validatorFor(media.schema);
      expect(validateResponse(media.example), `${id}: ${JSON.stringify(validateResponse.errors)}`).toBe(true);
      expect(media.example.data).toEqual(OPERATIONS[id].examples.data);

      const json = operation.requestBody?.content?.['application/json'];
      if (OPERATIONS[id].body === 'json') {
        expect(json.example, id).toBeDefined();
        const validateBody = validatorFor(json.schema);
        expect(validateBody(json.example), `${id}: ${JSON.stringify(validateBody.errors)}`).toBe(true);
      }
      for (const parameter of (operation.parameters ?? []) as Json[]) {
        if (parameter.in !== 'query' || parameter.example === undefined) continue;
        expect(validatorFor(parameter.schema)(parameter.example), `${id} ${parameter.name}`).toBe(true);
      }
      for (const response of Object.values(operation.responses as Json)) {
        for (const example of Object.values((response.content?.['application/json']?.examples ?? {}) as Json)) {
          expect(validatorFor(response.content['application/json'].schema)(example.value), `${id} error example`).toBe(true);
        }
      }
    }
  });

  it('describes uploads as multipart/form-data with the id field and binary attachments[]', () => {
    for (const [id, field] of [
      ['attachItemImages', 'item_id'],
      ['attachAnswerImages', 'answer_id'],
    ] as const) {
      const operation = operationOf(resolved, id);
      if (!operation) continue;
      const media = operation.requestBody.content['multipart/form-data'];
      expect(Object.keys(operation.requestBody.content)).toEqual(['multipart/form-data']);
      expect(media.schema.required).toEqual([field, 'attachments[]']);
      expect(media.schema.properties['attachments[]']).toMatchObject({
        type: 'array',
        items: { type: 'string', format: 'binary' },
        maxItems: 10,
      });
      expect(media.encoding['attachments[]'].contentType).toContain('image/png');
    }
  });

  it('offers Idempotency-Key on writes and If-None-Match on reads', () => {
    for (const id of documented()) {
      const names = (operationOf(resolved, id)!.parameters as Json[]).map((p) => `${p.in}:${p.name}`);
      // A file is streamed without an ETag: nothing to send in If-None-Match.
      if (OPERATIONS[id].file) expect(names, id).not.toContain('header:If-None-Match');
      else expect(names, id).toContain(OPERATIONS[id].body === 'none' ? 'header:If-None-Match' : 'header:Idempotency-Key');
    }
  });
});

describe('real responses match the declared schemas', () => {
  for (const id of OPERATION_IDS) {
    it(`${OPERATIONS[id].method} ${OPERATIONS[id].path}`, async () => {
      const operation = operationOf(resolved, id);
      expect(operation, `${id} is not in the document`).toBeDefined();
      const res = await requestOf(server, id);
      const file = OPERATIONS[id].file;
      if (file) {
        // The file itself, of a documented media type.
        expect(res.status).toBe(OPERATIONS[id].status);
        const type = res.headers.get('content-type')?.split(';')[0] ?? '';
        expect(Object.keys(operation!.responses[String(res.status)].content)).toContain(type);
        expect(file.mediaTypes).toContain(type);
        expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
        return;
      }
      const body = (await res.json()) as Json;
      expect(res.status, JSON.stringify(body)).toBe(OPERATIONS[id].status);
      const schema = operation!.responses[String(res.status)].content['application/json'].schema;
      const check = validatorFor(schema);
      expect(check(body), JSON.stringify(check.errors)).toBe(true);
    });
  }

  it('error responses match the error envelope', async () => {
    const errorSchema = resolved.components.schemas.ErrorEnvelope as Json;
    const check = validatorFor(errorSchema);
    const responses = [
      await server.request(`${V1}/items/get.php?id=1000`),
      await server.request(`${V1}/items/get.php?id=4000`, { token: server.tokens.manager }),
      await server.request(`${V1}/items/status.php`, { token: server.tokens.manager, method: 'PATCH', json: { id: 1000, status: 'nope' } }),
      await server.request(`${V1}/items/status.php`, { token: server.tokens.manager, method: 'GET' }),
    ];
    expect(responses.map((r) => r.status)).toEqual([401, 404, 422, 405]);
    for (const res of responses) {
      const body = await res.json();
      expect(check(body), JSON.stringify(check.errors)).toBe(true);
    }
  });
});

describe('the interactive documentation', () => {
  it('serves Swagger UI from bundled assets (no CDN) without a token', async () => {
    for (const path of ['/docs', '/docs/']) {
      const page = await server.request(`${V1}${path}`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await page.text();
      const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      expect(assets.length).toBeGreaterThan(3);
      for (const asset of assets) {
        expect(asset, 'no external asset').not.toMatch(/^(?:https?:)?\/\//);
        const url = new URL(asset, `${server.url}${V1}${path}`);
        const res = await fetch(url);
        expect(res.status, url.pathname).toBe(200);
        await res.arrayBuffer();
      }
    }
    const csp = (await server.request(`${V1}/docs/`)).headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toMatch(/https?:\/\/|validator/);
    const spec = await server.request(`${V1}/docs/json`);
    expect(await spec.json()).toEqual(document);
  });

  it('leaves the pages out of the 405 machinery of v1 while the document path answers 405 to other methods', async () => {
    const post = await server.call(`${V1}/openapi.json`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const docs = await server.call(`${V1}/docs`, { method: 'DELETE' });
    expect(docs.status).toBe(404);
    expect(docs.body.error.code).toBe('not_found');
  });
});
