import fc from 'fast-check';
import { describe, it } from 'vitest';
import { METHODS, params, SEED, tokenHeader, useFuzzServer } from './fuzz-harness.js';
import { jsonBody, query, withBadBytes } from './fuzz-values.js';

/**
 * Property-based fuzzing of every route of /api/ with random query strings, JSON bodies and headers (the
 * checks of every case: fuzz-harness.ts; multipart bodies, raw bytes and the regressions: fuzz-bytes.test.ts).
 */

const fuzz = useFuzzServer();

// Thousands of requests per case: the time limit is for a hang, not a speed check.
describe(`fuzzing every route of /api/ (seed ${SEED}; FUZZ_SEED=… replays)`, { timeout: 180_000 }, () => {
  it('query strings, on every route and method', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        fc.boolean(),
        fc.option(fc.constantFrom(...METHODS), { freq: 3 }),
        query,
        fuzz.token(),
        async (pick, anyRoute, method, q, auth) => {
          // Half the cases on the operations themselves, where the query is read.
          const pool = anyRoute ? fuzz.routes : fuzz.routes.filter((r) => r.scope !== null);
          const route = pool[pick % pool.length]!;
          await fuzz.run('query', { route, method: method ?? route.method, query: q, headers: tokenHeader(auth) });
        },
      ),
      params(1200),
    );
  });

  it('JSON bodies, on every write route', async () => {
    const body = fc.oneof(
      { weight: 5, arbitrary: jsonBody.map((b) => Buffer.from(b, 'utf8')) },
      { weight: 1, arbitrary: jsonBody.chain(withBadBytes) },
    );
    // Mostly printable (control characters make Node refuse the header before the application sees it).
    const idempotencyKey = fc.oneof(
      { weight: 8, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 300 }) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 20 }).map((k) => k.replace(/[\r\n]/g, ' ')) },
      {
        weight: 1,
        arbitrary: fc.string({ unit: 'binary', maxLength: 20 }).map((k) =>
          Buffer.from(k, 'utf8')
            .toString('latin1')
            .replace(/[\r\n]/g, ' '),
        ),
      },
    );
    const contentType = fc.constantFrom(
      'application/json',
      'application/json',
      'application/json; charset=utf-8',
      'application/json; charset=latin1',
      'APPLICATION/JSON',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json, text/plain',
      'application/vnd.api+json',
      '',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        body,
        contentType,
        fuzz.token(),
        fc.option(idempotencyKey, { freq: 2 }),
        async (pick, bytes, type, auth, key) => {
          const writes = fuzz.writeRoutes();
          const route = writes[pick % writes.length]!;
          const headers = tokenHeader(auth);
          if (type) headers.push(['Content-Type', type]);
          if (key !== null) headers.push(['Idempotency-Key', key]);
          await fuzz.run('json', { route, method: route.method, query: '', headers, body: bytes });
        },
      ),
      params(1200),
    );
  });

  it('headers, on every route', async () => {
    const headerName = fc.constantFrom(
      'Content-Type',
      'Content-Encoding',
      'Accept',
      'Accept-Encoding',
      'If-None-Match',
      'X-Forwarded-For',
      'X-Request-Id',
      'Idempotency-Key',
      'Range',
      'Expect',
      'Cookie',
      'Origin',
      'X-HTTP-Method-Override',
      'User-Agent',
      'Authorization',
      'X-Custom',
      'Access-Control-Request-Method',
      'Access-Control-Request-Headers',
      'X-MCP-Readonly',
    );
    const headerValue = fc.oneof(
      fc.constantFrom(
        'gzip',
        'br',
        'deflate',
        'identity, gzip',
        'x',
        '*',
        'W/"x"',
        '100-continue',
        'bytes=0-1',
        'bytes=-1',
        '127.0.0.1, ::1, garbage',
        'DELETE',
        'application/json',
        'multipart/form-data',
        'multipart/form-data; boundary=',
        'plk_session=abc; a=b',
      ),
      fc.string({ unit: 'grapheme-ascii', maxLength: 200 }),
      fc.string({ unit: 'binary-ascii', maxLength: 50 }).map((s) => s.replace(/[\r\n\0]/g, '')),
      fc.integer({ min: 1000, max: 8000 }).map((n) => 'v'.repeat(n)),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        fc.array(fc.tuple(headerName, headerValue), { maxLength: 6 }),
        fuzz.token(),
        fc.boolean(),
        async (pick, extra, auth, withBody) => {
          const route = fuzz.routes[pick % fuzz.routes.length]!;
          const headers = [...tokenHeader(auth), ...extra];
          const body =
            withBody && route.method !== 'GET' && route.method !== 'HEAD'
              ? Buffer.from('{"id":1000,"item_id":1000,"text":"h","status":"done"}')
              : undefined;
          if (body && !extra.some(([n]) => n === 'Content-Type')) headers.push(['Content-Type', 'application/json']);
          await fuzz.run('headers', { route, method: route.method, query: 'id=1000', headers, body });
        },
      ),
      params(800),
    );
  });
});
