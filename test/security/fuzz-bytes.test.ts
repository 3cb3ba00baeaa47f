import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pngBomb, solid, uploadForm } from '../helpers/images.js';
import { rawRequest } from '../helpers/raw-http.js';
import { V1 } from '../helpers/server.js';
import { changedTables, STORAGE_ENTRY } from '../helpers/snapshot.js';
import { concrete, params, SEED, tokenHeader, useFuzzServer } from './fuzz-harness.js';
import { text } from './fuzz-values.js';

/**
 * Property-based fuzzing of every route of /api/ below JSON: multipart bodies on the upload routes, raw
 * request lines and framing; then the cases fuzzing found, kept as regressions, and the harness's own
 * controls (the checks of every case: fuzz-harness.ts; query strings, JSON bodies, headers: fuzz.test.ts).
 */

const fuzz = useFuzzServer();

// Thousands of requests per case: the time limit is for a hang, not a speed check.
describe(`fuzzing every route of /api/ (seed ${SEED}; FUZZ_SEED=… replays)`, { timeout: 180_000 }, () => {
  it('multipart bodies, on the upload routes', async () => {
    const tiny = await solid(1, 1, 'png');
    const bomb = pngBomb();
    const partName = fc.constantFrom(
      'item_id',
      'answer_id',
      'attachments[]',
      'attachments',
      'x',
      '',
      'item_id"; filename="a.png',
      'attachments[0]',
    );
    const partValue = fc.oneof(
      text.map((t) => Buffer.from(t, 'utf8')),
      fc.constantFrom(fuzz.png16, tiny, bomb, fuzz.png16.subarray(0, 30), Buffer.from('1000'), Buffer.from('7000')),
      fc.uint8Array({ maxLength: 400 }).map((a) => Buffer.from(a)),
    );
    const filename = fc.option(
      fc.oneof(text, fc.constantFrom('a.png', '../../../etc/passwd', 'C:\\\\x\\\\y.png', 'a\u0000.png', '', '.', '..', 'x'.repeat(400))),
    );
    const part = fc.record({
      name: partName,
      value: partValue,
      filename,
      type: fc.option(fc.constantFrom('image/png', 'text/plain', 'application/octet-stream', 'image/svg+xml')),
    });
    const form = fc.record({
      boundary: fc.constantFrom('----fuzzboundary', 'x', 'a'.repeat(70), 'with space', '"quoted"'),
      parts: fc.oneof(
        { weight: 5, arbitrary: fc.array(part, { maxLength: 8 }) },
        { weight: 1, arbitrary: fc.array(part, { minLength: 40, maxLength: 300 }) },
      ),
      header: fc.constantFrom('ok', 'ok', 'ok', 'no-boundary', 'other-boundary', 'form-urlencoded', 'mixed'),
      cut: fc.option(fc.nat(), { freq: 3 }),
      valid: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.nat(), form, fuzz.token(), async (pick, f, auth) => {
        const uploads = fuzz.uploadRoutes();
        const route = uploads[pick % uploads.length]!;
        const idField = route.url.includes('/answers/') ? 'answer_id' : 'item_id';
        const parts = f.valid
          ? [
              { name: idField, value: Buffer.from(route.url.includes('/answers/') ? '7000' : '1000'), filename: null, type: null },
              ...f.parts,
            ]
          : f.parts;
        const b = f.boundary.replace(/^"|"$/g, '');
        const chunks: Buffer[] = [];
        for (const p of parts) {
          const disposition = `form-data; name="${p.name}"${p.filename !== null ? `; filename="${p.filename}"` : ''}`;
          chunks.push(
            Buffer.from(`--${b}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`, 'utf8'),
            p.value,
            Buffer.from('\r\n'),
          );
        }
        chunks.push(Buffer.from(`--${b}--\r\n`));
        let body = Buffer.concat(chunks);
        if (f.cut !== null) body = body.subarray(0, f.cut % (body.length + 1));
        const type = {
          ok: `multipart/form-data; boundary=${f.boundary}`,
          'no-boundary': 'multipart/form-data',
          'other-boundary': 'multipart/form-data; boundary=nope',
          'form-urlencoded': 'application/x-www-form-urlencoded',
          mixed: `multipart/mixed; boundary=${f.boundary}`,
        }[f.header]!;
        await fuzz.run('multipart', { route, method: 'POST', query: '', headers: [...tokenHeader(auth), ['Content-Type', type]], body });
      }),
      params(500),
    );
  });

  it('raw bytes: request lines, framing and smuggling attempts', async () => {
    const line = fc.constantFrom(
      'GET %s HTTP/1.1',
      'GET %s HTTP/1.0',
      'get %s HTTP/1.1',
      'GET %s HTTP/2.0',
      'GET %s HTTP/1.1 extra',
      'FOO %s HTTP/1.1',
      'GET %s',
      'GET  %s  HTTP/1.1',
      'GET %s\u0000 HTTP/1.1',
      'GET %s?a=\u0001\u007f HTTP/1.1',
      'GET %s?q=é HTTP/1.1',
      'CONNECT 127.0.0.1:80 HTTP/1.1',
      'GET http://evil.test%s HTTP/1.1',
      'GET * HTTP/1.1',
    );
    const framing = fc.constantFrom<[string, string][]>(
      [],
      [
        ['Content-Length', '5'],
        ['Content-Length', '6'],
      ],
      [['Content-Length', '-1']],
      [['Content-Length', 'abc']],
      [
        ['Transfer-Encoding', 'chunked'],
        ['Content-Length', '4'],
      ],
      [['Transfer-Encoding', 'chunked, identity']],
      [['Transfer-Encoding', 'xchunked']],
      [
        ['Host', 'a'],
        ['Host', 'b'],
      ],
      [['Bad Header', 'x']],
      [['X-Folded', 'a\r\n b']],
      [['X-Nul', 'a\u0000b']],
    );
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        line,
        framing,
        fc.constantFrom('', '{"id":1}', '0\r\n\r\n', '5\r\nhello\r\n0\r\n\r\nGET / HTTP/1.1\r\n\r\n', 'zz\r\nx\r\n0\r\n\r\n'),
        async (pick, template, extra, tail) => {
          const route = fuzz.routes[pick % fuzz.routes.length]!;
          const res = await rawRequest(fuzz.port, {
            method: template.split(' ')[0]!.toUpperCase(),
            target: concrete(route.url),
            requestLine: template.replace('%s', concrete(route.url)),
            headers: [['Authorization', `Bearer ${fuzz.server.tokens.admin}`], ...extra],
            body: tail || undefined,
            contentLength: false,
            timeoutMs: 10_000,
          });
          fuzz.count('raw', res.status);
          const what = `${template} ${JSON.stringify(extra)} ${JSON.stringify(tail)} → ${res.status} ${res.body.subarray(0, 200).toString()}`;
          // Node may close a connection it cannot frame without a word; whatever answers is never a 5xx
          // other than 505 (an HTTP version it does not speak).
          expect(res.status === 0 || res.status < 500 || res.status === 505, what).toBe(true);
          if (res.status >= 400 && res.status !== 505 && res.headers['content-type']?.startsWith('application/json')) {
            expect(JSON.parse(res.body.toString()).ok, what).toBe(false);
          }
          await fuzz.settle(what, res.status === 0 || res.status >= 400);
        },
      ),
      params(300),
    );
    // The server still serves after all of it.
    expect((await fuzz.server.call(`${V1}/auth/me.php`, { token: fuzz.server.tokens.admin })).status).toBe(200);
  });

  it('the cases fuzzing found, kept as regressions', async () => {
    const admin: [string, string] = ['Authorization', `Bearer ${fuzz.server.tokens.admin}`];
    const route = (method: string, url: string) => fuzz.routes.find((r) => r.method === method && r.url === url)!;
    // 1. Deep nesting with an Idempotency-Key: the fingerprint recursed into a stack overflow (500).
    const deep = await fuzz.run('regression', {
      route: route('PATCH', `${V1}/items/status.php`),
      method: 'PATCH',
      query: '',
      headers: [admin, ['Content-Type', 'application/json'], ['Idempotency-Key', 'deep-1']],
      body: Buffer.from(`{"id":1000,"status":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`),
    });
    expect([deep.status, JSON.parse(deep.body.toString()).error.message]).toEqual([422, 'body: is nested more than 32 levels deep']);
    // 2. An Expect other than 100-continue: Node's own 417 had no body.
    const expectation = await fuzz.run('regression', {
      route: route('GET', `${V1}/auth/me.php`),
      method: 'GET',
      query: '',
      headers: [admin, ['Expect', 'gzip']],
    });
    expect([expectation.status, JSON.parse(expectation.body.toString()).error.code]).toEqual([417, 'expectation_failed']);
    // 3. A file part without a filename (non-text Content-Type): its missing name crashed the upload (500).
    const b = 'regression';
    const nameless = Buffer.concat([
      Buffer.from(
        `--${b}\r\nContent-Disposition: form-data; name="item_id"\r\n\r\n1000\r\n--${b}\r\nContent-Disposition: form-data; name="attachments[]"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      fuzz.png16,
      Buffer.from(`\r\n--${b}--\r\n`),
    ]);
    const upload = await fuzz.run('regression', {
      route: route('POST', `${V1}/items/attachments.php`),
      method: 'POST',
      query: '',
      headers: [admin, ['Content-Type', `multipart/form-data; boundary=${b}`]],
      body: nameless,
    });
    expect(upload.status).toBe(201);
    expect(JSON.parse(upload.body.toString()).data.attachments[0].original_name).toBe('image');
    // 4. The 4xx of the integrator contract: two Authorization headers, an unknown field, raw non-ASCII, a repeated id.
    const twice = await fuzz.run('regression', {
      route: route('GET', `${V1}/auth/me.php`),
      method: 'GET',
      query: '',
      headers: [admin, admin],
    });
    expect([twice.status, JSON.parse(twice.body.toString()).error.code]).toEqual([400, 'bad_request']);
    const typo = await fuzz.run('regression', {
      route: route('PATCH', `${V1}/items/planning.php`),
      method: 'PATCH',
      query: '',
      headers: [admin, ['Content-Type', 'application/json']],
      body: Buffer.from('{"id":1000,"dedline":"2026-12-01"}'),
    });
    expect([typo.status, JSON.parse(typo.body.toString()).error.details]).toEqual([
      422,
      [{ field: 'dedline', message: expect.any(String) }],
    ]);
    const raw = await rawRequest(fuzz.port, {
      method: 'GET',
      target: `${V1}/projects/search.php?id=1&q=\u00e9`,
      headers: [['Host', 'x'], admin],
    });
    expect([raw.status, JSON.parse(raw.body.toString()).error.message]).toEqual([400, expect.stringMatching(/percent-encode/)]);
    const repeated = await fuzz.run('regression', {
      route: route('GET', `${V1}/items/get.php`),
      method: 'GET',
      query: 'id=1000&id=1000',
      headers: [admin],
    });
    expect([repeated.status, JSON.parse(repeated.body.toString()).error.message]).toEqual([422, 'id: is repeated; give it once']);
    // 5. A preflight needs no token and changes nothing.
    const preflight = await fuzz.run('regression', {
      route: route('PATCH', `${V1}/items/status.php`),
      method: 'OPTIONS',
      query: '',
      headers: [
        ['Origin', 'https://x.test'],
        ['Access-Control-Request-Method', 'PATCH'],
      ],
    });
    expect([preflight.status, preflight.headers['access-control-allow-methods']]).toEqual([204, 'PATCH']);
  });

  it('a valid upload through the fuzz path is stored (the harness can see a 2xx)', async () => {
    const form = uploadForm({ item_id: '1000' }, [{ name: 'ok.png', bytes: fuzz.png16 }]);
    const request = new Request('http://x', { method: 'POST', body: form });
    const body = Buffer.from(await request.arrayBuffer());
    const res = await fuzz.run('control', {
      route: fuzz.uploadRoutes().find((r) => r.url.includes('/items/'))!,
      method: 'POST',
      query: '',
      headers: [
        ['Authorization', `Bearer ${fuzz.server.tokens.admin}`],
        ['Content-Type', request.headers.get('content-type')!],
      ],
      body,
    });
    expect(res.status).toBe(201);
  });

  it('the snapshot sees the storage: a blob left behind, or one gone, is a change', async () => {
    const key = 'items/1000/left-behind.webp';
    const before = await fuzz.snapshotData();
    await fuzz.server.ctx.blobs.put(key, Buffer.from('not an image'), 'image/webp');
    const withBlob = await fuzz.snapshotData();
    expect(changedTables(before, withBlob)).toEqual([`${STORAGE_ENTRY} (+${key} 12)`]);
    await fuzz.server.ctx.blobs.delete(key);
    expect(changedTables(withBlob, await fuzz.snapshotData())).toEqual([`${STORAGE_ENTRY} (-${key} 12)`]);
    expect(changedTables(before, await fuzz.snapshotData())).toEqual([]);
  });
});
