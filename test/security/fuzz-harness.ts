import fc from 'fast-check';
import { afterAll, beforeAll, expect } from 'vitest';
import type { RegisteredRoute } from '../../src/api/route-registry.js';
import { testDialect } from '../helpers/database.js';
import { solid } from '../helpers/images.js';
import { PUBLIC_PATHS, routesOf } from '../helpers/operations.js';
import { rawRequest, type RawResponse } from '../helpers/raw-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { changedTables, type Snapshot, snapshot } from '../helpers/snapshot.js';

/**
 * The harness of the property-based fuzzing of every route of /api/ (fuzz*.test.ts; the values are in
 * fuzz-values.ts): a server with its registered route table, and `run`, which sends one case and checks it.
 * For each case: an answer arrives, never a 5xx; it is the envelope (with X-Request-Id = meta.request_id)
 * unless it is a successful download, a HEAD, a 304 or a public page; and a 4xx changes no data (row counts
 * and a checksum of every table, and every blob's key and size in the storage, before and after).
 */

export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
// FUZZ_CASES (default 2 000) sets the total, shared out among the kinds as below (`npm run
// reliability:fuzz` runs 100 000). On PostgreSQL every case costs a round trip per table for the
// snapshots: half the cases, same kinds. The default still gives each of the ~140 routes a few cases of every
// kind that reaches it (600 query strings, 600 JSON bodies over the write routes, …), from a new seed at each
// run: `npm test` samples (~30 ms a case here), the reliability run searches.
const FUZZ_CASES = Number(process.env.FUZZ_CASES ?? 2000);
const SCALE = (FUZZ_CASES / 4000) * (testDialect() === 'postgres' ? 0.5 : 1);
export const params = (numRuns: number) => ({ numRuns: Math.round(numRuns * SCALE), seed: SEED, endOnFailure: false });

export interface Case {
  route: RegisteredRoute;
  method: string;
  query: string;
  headers: [string, string][];
  body?: Buffer;
}

export function tokenHeader(token: string | null): [string, string][] {
  return token === null ? [] : [['Authorization', token]];
}

export const concrete = (url: string) => url.replace(/\*$/, 'index.html');

function isPublic(route: RegisteredRoute) {
  return PUBLIC_PATHS.some((p) => p.test(route.url));
}

/** Registers the file's fuzzing server (started before its first test, closed after its last). */
export function useFuzzServer() {
  let server: TestServer;
  let port: number;
  let routes: RegisteredRoute[];
  let png16: Buffer;
  let baseline: Snapshot;
  const counts: Record<string, number> = {};
  const statuses: Record<string, number> = {};
  let total = 0;

  /** Every table and every blob of the server's storage. */
  const snapshotData = () => snapshot(server.ctx.db.kysely, server.ctx.db.dialect, server.ctx.blobs);

  const count = (kind: string, status: number) => {
    counts[kind] = (counts[kind] ?? 0) + 1;
    total++;
    statuses[status] = (statuses[status] ?? 0) + 1;
  };

  /** Takes a new snapshot; when the case must have changed nothing, it must equal the last one. */
  const settle = async (what: string, unchanged: boolean) => {
    const after = await snapshotData();
    if (unchanged) expect(changedTables(baseline, after), what).toEqual([]);
    baseline = after;
  };

  /** Sends one case; checks the answer; a 4xx must leave every table and the storage as it was. */
  async function run(kind: string, c: Case): Promise<RawResponse> {
    const target = `${concrete(c.route.url)}${c.query ? `?${c.query}` : ''}`;
    const res = await rawRequest(port, { method: c.method, target, headers: c.headers, body: c.body, timeoutMs: 20_000 });
    count(kind, res.status);
    const what = `${c.method} ${target.slice(0, 300)} [${c.headers.map(([n, v]) => `${n}: ${v.slice(0, 60)}`).join('; ')}] body ${c.body?.subarray(0, 200).toString('latin1')}`;
    expect(res.status, `no answer to ${what}`).toBeGreaterThan(0);
    expect(res.status, `${what} → ${res.body.subarray(0, 500).toString()}`).toBeLessThan(500);
    const exempt =
      c.method === 'HEAD' ||
      res.status === 304 ||
      // A CORS preflight answers 204 without a body.
      (res.status === 204 && c.method === 'OPTIONS') ||
      (res.status < 400 && (isPublic(c.route) || c.route.url.endsWith('/file.php')));
    if (!exempt) {
      let body: any;
      try {
        body = JSON.parse(res.body.toString('utf8'));
      } catch {
        throw new Error(`not JSON: ${what} → ${res.status} ${res.body.subarray(0, 300).toString()}`);
      }
      expect(typeof body.ok, what).toBe('boolean');
      expect(body.meta?.api_version, what).toBe('v1');
      expect(body.meta?.request_id, what).toBe(res.headers['x-request-id']);
      if (body.ok) expect(body).toHaveProperty('data');
      else {
        expect(typeof body.error?.code, what).toBe('string');
        expect(typeof body.error?.message, what).toBe('string');
        expect(res.status, what).toBeGreaterThanOrEqual(400);
      }
    }
    await settle(`${what} → ${res.status} changed data`, res.status >= 400);
    return res;
  }

  const token = () =>
    fc.constantFrom<string | null>(
      `Bearer ${server.tokens.admin}`,
      `Bearer ${server.tokens.admin}`,
      `Bearer ${server.tokens.admin}`,
      `Bearer ${server.tokens.admin}`,
      `Bearer ${server.tokens.admin}`,
      `Bearer ${server.tokens.partial}`,
      `Bearer ${server.tokens.partial}`,
      `Bearer ${server.tokens.observer}`,
      `bearer   ${server.tokens.manager}  `,
      null,
      'Bearer',
      'Bearer ',
      'Basic YWRtaW46YWRtaW4=',
      `Bearer ${server.tokens.admin.slice(0, -1)}x`,
      `Bearer ${server.tokens.admin}${server.tokens.admin}`,
      `Bearer plk_${'A'.repeat(36)}`,
      `Token ${server.tokens.admin}`,
    );

  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
    port = Number(new URL(server.url).port);
    routes = [...routesOf(server.app)];
    png16 = await solid(16, 16, 'png');
    baseline = await snapshotData();
  });

  afterAll(async () => {
    const histogram = Object.entries(statuses)
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([s, n]) => `${s}:${n}`)
      .join(' ');
    console.log(
      `fuzz: ${total} cases over ${routes?.length ?? 0} routes (${Object.entries(counts)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ')}); statuses ${histogram}`,
    );
    await server?.close();
  });

  // Read inside tests only: the hooks above fill them in.
  return {
    get server() {
      return server;
    },
    get port() {
      return port;
    },
    get routes() {
      return routes;
    },
    get png16() {
      return png16;
    },
    writeRoutes: () => routes.filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method) && r.scope !== null),
    uploadRoutes: () => routes.filter((r) => r.url.endsWith('attachments.php') && r.method === 'POST'),
    snapshotData,
    count,
    settle,
    run,
    token,
  };
}
