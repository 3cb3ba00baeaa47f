import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, V1 } from '../../test/helpers/server.js';
import { registerMetrics } from './metrics.routes.js';
import { createMetrics } from './prometheus.js';

/** The value of one sample line of the exposition, or undefined when the series is absent. */
function sample(exposition: string, series: string): number | undefined {
  const line = exposition.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics on the real server', () => {
  let server: TestServer;
  let off: TestServer;
  beforeAll(async () => {
    [server, off] = await Promise.all([
      startTestServer({ env: { TRUST_PROXY: '1' } }),
      startTestServer({ workspace: false, env: { METRICS: 'off' } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([server.close(), off.close()]);
  });

  it('counts requests by route pattern, method and status, times them, and never uses the raw URL', async () => {
    const token = server.tokens.manager;
    for (const id of [1000, 1001, 1010]) expect((await server.request(`${V1}/items/get.php?id=${id}`, { token })).status).toBe(200);
    expect((await server.request(`${V1}/items/get.php?id=999999`, { token })).status).toBe(404);
    expect((await server.request(`${V1}/no-such-operation-4711.php`, { token })).status).toBe(404);
    // The web interface's unknown pages send a visitor who is not signed in to the sign-in page.
    expect((await server.request('/no-such-page-4711', { redirect: 'manual' })).status).toBe(303);

    const response = await server.request('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    const route = `${V1}/items/get.php`;
    expect(sample(text, `punchlist_http_requests_total{route="${route}",method="GET",status="200"}`)).toBe(3);
    expect(sample(text, `punchlist_http_requests_total{route="${route}",method="GET",status="404"}`)).toBe(1);
    expect(sample(text, `punchlist_http_request_duration_seconds_count{route="${route}",method="GET"}`)).toBe(4);
    expect(sample(text, `punchlist_http_request_duration_seconds_bucket{le="10",route="${route}",method="GET"}`)).toBe(4);
    expect(sample(text, `punchlist_http_request_duration_seconds_sum{route="${route}",method="GET"}`)).toBeGreaterThan(0);
    expect(sample(text, 'punchlist_http_requests_total{route="unmatched",method="GET",status="404"}')).toBe(1);
    expect(sample(text, 'punchlist_http_requests_total{route="unmatched",method="GET",status="303"}')).toBe(1);
    // Never the raw URL in a label (a value may hold the digits: 394711040 bytes of memory did once).
    const labels = text.match(/\{[^}]*\}/g) ?? [];
    expect(labels.length).toBeGreaterThan(10);
    expect(labels.filter((l) => /4711|no-such|id=|\?/.test(l))).toEqual([]);
    // The Node process metrics.
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect(text).toContain(`\n${name} `);
    }
    expect(sample(text, 'punchlist_audit_queue_depth')).toEqual(expect.any(Number));
  });

  it('reports the audit records waiting for their batch', async () => {
    const record = { request_id: 'r', at: new Date().toISOString(), method: 'GET', path: '/api/x', query: '', status: 200, duration_ms: 1 };
    const before = server.ctx.audit.pending;
    for (let i = 0; i < 3; i++) server.ctx.audit.recordLater({ ...record, request_id: `metrics-${i}` });
    // Rendered before the batch's timer can fire: the three are still queued.
    expect(sample((await server.ctx.metrics!.render()).body, 'punchlist_audit_queue_depth')).toBe(before + 3);
    await server.ctx.audit.flush();
    expect(sample((await server.ctx.metrics!.render()).body, 'punchlist_audit_queue_depth')).toBe(0);
  });

  it('reports the same readings for every background job', async () => {
    await server.ctx.notificationWorker.drainNow();
    const text = (await server.ctx.metrics!.render()).body;
    const names = server.ctx.jobs.list().map((job) => job.name);
    expect(names).toEqual(
      expect.arrayContaining(['notifications', 'notification-schedule', 'webhook-deliveries', 'search-indexer', 'retention']),
    );
    for (const job of names) {
      for (const series of ['punchlist_job_runs_total', 'punchlist_job_failures_total', 'punchlist_job_lag']) {
        expect(sample(text, `${series}{job="${job}"}`), `${series} of ${job}`).toEqual(expect.any(Number));
      }
    }
    expect(sample(text, 'punchlist_job_runs_total{job="notifications"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'punchlist_job_last_run_timestamp_seconds{job="notifications"}')).toBeGreaterThan(Date.now() / 1000 - 600);
  });

  it('treats a client behind a trusted proxy by its forwarded address', async () => {
    const response = await server.request('/metrics', { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('METRICS_TOKEN');
  });

  it('does not exist with METRICS=off', async () => {
    // Nothing is registered there: the web interface's answer to unknown pages.
    expect((await off.request('/metrics', { redirect: 'manual' })).status).toBe(303);
    expect(off.ctx.metrics).toBeNull();
  });
});

describe('who may read /metrics', () => {
  const remote = { remoteAddress: '203.0.113.9' };

  async function appWith(token: string | undefined) {
    const app = Fastify();
    registerMetrics(app, createMetrics({ auditQueueDepth: () => 7, webhookDeliveriesPending: () => 3 }), { token });
    await app.ready();
    return app;
  }

  it('opens to loopback clients, IPv4 and IPv6, without a token', async () => {
    const app = await appWith('s3cret-metrics-token');
    for (const remoteAddress of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      const response = await app.inject({ url: '/metrics', remoteAddress });
      expect(response.statusCode, remoteAddress).toBe(200);
      expect(response.body).toContain('punchlist_audit_queue_depth 7');
      expect(response.body).toContain('punchlist_webhook_deliveries_pending 3');
    }
    await app.close();
  });

  it('from elsewhere needs METRICS_TOKEN as a bearer token', async () => {
    const app = await appWith('s3cret-metrics-token');
    const status = async (headers: Record<string, string>) => (await app.inject({ url: '/metrics', headers, ...remote })).statusCode;
    expect(await status({})).toBe(403);
    expect(await status({ authorization: 'Bearer wrong' })).toBe(403);
    expect(await status({ authorization: 's3cret-metrics-token' })).toBe(403);
    expect(await status({ authorization: 'Bearer s3cret-metrics-token' })).toBe(200);
    await app.close();
  });

  it('is refused to every client elsewhere when no METRICS_TOKEN is set', async () => {
    const app = await appWith(undefined);
    expect((await app.inject({ url: '/metrics', headers: { authorization: 'Bearer ' }, ...remote })).statusCode).toBe(403);
    expect((await app.inject({ url: '/metrics', remoteAddress: '10.0.0.1' })).statusCode).toBe(403);
    await app.close();
  });
});
