import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrivatePostgres, startPrivatePostgres } from '../helpers/private-postgres.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';

/**
 * A PostgreSQL outage under load, on a private cluster (the machine's shared server is never stopped):
 * while the database is down every request gets 503 service_unavailable in the envelope, with
 * Retry-After, quickly (no hanging, no 500, no crash); when it comes back the same server process
 * serves again by itself.
 */

let pg: PrivatePostgres;
let server: TestServer;
const WORKERS = 8;
/** A 503 must come at once, not after a client gives up. */
const QUICK_MS = 2000;
/** How long the database stays down (`npm run reliability:outage`: a minute, like a restart or a failover). */
const OUTAGE_MS = Number(process.env.OUTAGE_SECONDS ?? 3) * 1000;

beforeAll(async () => {
  // Fails with the reason when a private cluster cannot be had here: never skipped.
  pg = await startPrivatePostgres();
  server = await startTestServer({ env: { DATABASE_URL: pg.url, DATABASE_POOL_SIZE: '5', RATE_LIMIT_PER_MINUTE: '100000' } });
}, 120_000);

afterAll(async () => {
  await server?.close().catch(() => {});
  await pg?.destroy();
});

interface Outcome {
  at: number;
  status: number;
  ms: number;
  code?: string;
  retryAfter?: string | null;
  path: string;
}

const REQUESTS = [
  (t: string) => [`${V1}/projects/list.php`, { headers: { authorization: `Bearer ${t}` } }] as const,
  (t: string) => [`${V1}/projects/tree.php?id=1`, { headers: { authorization: `Bearer ${t}` } }] as const,
  (t: string) => [`${V1}/items/get.php?id=1000`, { headers: { authorization: `Bearer ${t}` } }] as const,
  (t: string) => [`${V1}/projects/search.php?id=1&q=Item`, { headers: { authorization: `Bearer ${t}` } }] as const,
  (t: string, i: number) =>
    [
      `${V1}/comments/create.php`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${t}`, 'content-type': 'application/json' },
        body: JSON.stringify({ item_id: 1000, text: `outage ${i}` }),
      },
    ] as const,
  (t: string, i: number) =>
    [
      `${V1}/items/status.php`,
      {
        method: 'PATCH',
        headers: { authorization: `Bearer ${t}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: 1001, status: i % 2 ? 'done' : 'pending' }),
      },
    ] as const,
];

/** Workers sending mixed requests until `stop()`; every answer is recorded with its latency. */
function load() {
  const outcomes: Outcome[] = [];
  let running = true;
  const t0 = performance.now();
  const workers = Array.from({ length: WORKERS }, async (_, n) => {
    for (let i = 0; running; i++) {
      const token = n % 2 ? server.tokens.admin : server.tokens.manager;
      const [path, init] = REQUESTS[(n + i) % REQUESTS.length]!(token, i);
      const started = performance.now();
      try {
        const res = await fetch(server.url + path, { ...init, signal: AbortSignal.timeout(15_000) });
        const body = (await res.json()) as { ok: boolean; error?: { code: string } };
        outcomes.push({
          at: started - t0,
          status: res.status,
          ms: performance.now() - started,
          code: body.error?.code,
          retryAfter: res.headers.get('retry-after'),
          path,
        });
      } catch (err) {
        outcomes.push({ at: started - t0, status: 0, ms: performance.now() - started, code: String(err), path });
      }
    }
  });
  return {
    outcomes,
    elapsed: () => performance.now() - t0,
    async stop() {
      running = false;
      await Promise.all(workers);
    },
  };
}

describe('PostgreSQL stopped under load', () => {
  it(
    'answers 503 service_unavailable quickly while it is down, and recovers by itself when it returns',
    async () => {
      const traffic = load();
      // Healthy traffic first: at least 20 answers (the first ones are cold; a busy machine is slow, so no clock).
      while (traffic.outcomes.length < 20 && traffic.elapsed() < 20_000) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(traffic.outcomes.length).toBeGreaterThanOrEqual(20);
      expect(
        traffic.outcomes.every((o) => o.status >= 200 && o.status < 300),
        JSON.stringify(traffic.outcomes.find((o) => o.status >= 300)),
      ).toBe(true);

      const stoppedAt = traffic.elapsed();
      await pg.stop('immediate');
      const downAt = traffic.elapsed();
      await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
      const readyDuringOutage = await fetch(`${server.url}/readyz`);
      expect(readyDuringOutage.status).toBe(503);

      const restartAt = traffic.elapsed();
      await pg.start();
      const upAt = traffic.elapsed();
      // Recovery: the same process serves again once the database answers.
      let recoveredAt: number | null = null;
      while (traffic.elapsed() - upAt < 20_000) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        const recent = traffic.outcomes.filter((o) => o.at > traffic.elapsed() - 1000);
        if (recent.length >= 5 && recent.every((o) => o.status >= 200 && o.status < 300)) {
          recoveredAt = traffic.elapsed();
          break;
        }
      }
      // Traffic after recovery: at least 20 answers (a busy machine is slow, so no clock).
      const answeredSince = (at: number) => traffic.outcomes.filter((o) => o.at > at).length;
      while (recoveredAt !== null && answeredSince(recoveredAt) < 20 && traffic.elapsed() - recoveredAt < 20_000) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await traffic.stop();

      const during = traffic.outcomes.filter((o) => o.at >= downAt && o.at + o.ms <= restartAt);
      const unavailable = during.filter((o) => o.status === 503);
      const failures = traffic.outcomes.filter((o) => !(o.status >= 200 && o.status < 300) && o.status !== 503);
      const slowest503 = Math.max(...unavailable.map((o) => o.ms));
      const afterRecovery = traffic.outcomes.filter((o) => recoveredAt !== null && o.at > recoveredAt);
      console.log(
        `outage: ${traffic.outcomes.length} requests by ${WORKERS} workers; database stopped at ${Math.round(stoppedAt)} ms (down at ${Math.round(downAt)}), ` +
          `restarted at ${Math.round(restartAt)}–${Math.round(upAt)} ms; ${unavailable.length} × 503 while down (slowest ${Math.round(slowest503)} ms, ` +
          `median ${Math.round(unavailable.map((o) => o.ms).sort((a, b) => a - b)[Math.floor(unavailable.length / 2)] ?? 0)} ms); ` +
          `other failures ${failures.length}; serving again ${recoveredAt === null ? 'never' : `${Math.round(recoveredAt - upAt)} ms after the database was back`}; ` +
          `${afterRecovery.length} requests after recovery, ${afterRecovery.filter((o) => o.status < 300).length} OK`,
      );
      expect(failures, JSON.stringify(failures.slice(0, 5))).toEqual([]);
      expect(during.length).toBeGreaterThan(20);
      expect(unavailable.length).toBe(during.length);
      for (const o of unavailable) {
        expect(o.code).toBe('service_unavailable');
        expect(Number(o.retryAfter)).toBeGreaterThan(0);
      }
      expect(slowest503).toBeLessThan(QUICK_MS);
      expect(recoveredAt, 'the server never served again after the database returned').not.toBeNull();
      expect(afterRecovery.length).toBeGreaterThan(10);
      expect(afterRecovery.every((o) => o.status >= 200 && o.status < 300)).toBe(true);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      // A write acknowledged after recovery is there.
      const write = await server.call(`${V1}/comments/create.php`, {
        method: 'POST',
        token: server.tokens.manager,
        json: { item_id: 1000, text: 'after the outage' },
      });
      expect(write.status).toBe(201);
      const card = await server.call(`${V1}/items/get.php?id=1000`, { token: server.tokens.manager });
      expect(card.body.data.item.comments.map((c: { text: string }) => c.text)).toContain('after the outage');
    },
    90_000 + OUTAGE_MS,
  );
});
