import type { Readable } from 'node:stream';
import { threadId } from 'node:worker_threads';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { testDialect } from '../../../test/helpers/database.js';
import { OFFLOAD_TEST_WORKER } from '../../../test/helpers/offload-test-worker.js';
import { startTestServer, type TestServer, V1 } from '../../../test/helpers/server.js';
import { signedInClients } from '../../../test/web/web-client.js';
import { openDatabase } from '../../db/database.js';
import { ApiError } from '../../shared/errors.js';
import { workerConfig } from '../../shared/config.js';
import { offloadLanes } from './lanes.js';
import { createWorkerPool, type WorkerPool } from './worker-pool.js';

/**
 * The worker pool on real threads, each with its own read-only connection to the test database (both
 * dialects): jobs answered, files streamed, the queues bounded, crashes survived, shutdown. The server's own
 * pool here runs the test worker module (the app's jobs and steerable ones) in the app's lanes: one thread,
 * no queue for reports, none for reads.
 */
let server: TestServer;
let pool: WorkerPool;
const as = signedInClients(() => server.url);

/** One lane, one job per thread at a time (the pool as it was before lanes). */
const oneAtATime = (queueLimit: number) => ({ jobs: { perWorker: 1, queueLimit, retryAfterSeconds: 10, jobsName: 'reports' } });

beforeAll(async () => {
  server = await startTestServer({
    overrides: (config) => ({
      offload: createWorkerPool({
        entry: OFFLOAD_TEST_WORKER,
        size: 1,
        lanes: offloadLanes({ workerQueueLimit: 0, readQueueLimit: 0 }),
        data: workerConfig(config),
      }),
    }),
  });
  pool = createWorkerPool({ entry: OFFLOAD_TEST_WORKER, size: 2, lanes: oneAtATime(1), data: workerConfig(server.ctx.config) });
});
afterAll(async () => {
  await pool.close();
  await server.close();
});

async function text(stream: Readable | null): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream!) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

const idle = (p: WorkerPool) => vi.waitFor(() => expect(p.stats().running).toBe(0), { timeout: 10_000 });

describe('a worker pool', () => {
  it('answers jobs on its own threads, no more at once than it has workers', async () => {
    expect(await pool.run('echo', { a: [1, 'б'] })).toEqual({ value: { a: [1, 'б'] }, stream: null });
    const threads = await Promise.all([1, 2, 3].map(() => pool.run<number>('thread', null)));
    const ids = new Set(threads.map((t) => t.value));
    expect(ids.has(threadId)).toBe(false);
    expect(ids.size).toBeLessThanOrEqual(2);
    expect(pool.stats()).toEqual({ workers: 2, running: 0, queued: 0 });
  });

  it('streams a file while the worker is still writing it', async () => {
    const { value, stream } = await pool.run<number>('chunks', { count: 4, pauseMs: 400 });
    expect(value).toBe(4);
    const iterator = stream![Symbol.asyncIterator]();
    expect(String((await iterator.next()).value)).toBe('chunk 0;');
    expect(pool.stats().running).toBe(1);
    let rest = '';
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest += String(next.value);
    expect(rest).toBe('chunk 1;chunk 2;chunk 3;');
    await idle(pool);
  });

  it("gives a job's error as it would have been thrown inline: an ApiError keeps its status and code", async () => {
    const error = await pool.run('fail', null).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, code: 'conflict', message: 'refused by the job' });
    await expect(pool.run('nothing', null)).rejects.toThrow('this worker has no job "nothing"');
  });

  it('queues beyond its workers, refuses beyond its queue with 503 and Retry-After, and frees a worker whose reader goes away', async () => {
    const held = await Promise.all([pool.run('hold', null), pool.run('hold', null)]);
    const waiting = pool.run('echo', 'after');
    expect(pool.stats()).toEqual({ workers: 2, running: 2, queued: 1 });
    const refused = await pool.run('echo', 'too many').catch((err: unknown) => err);
    expect(refused).toMatchObject({ status: 503, code: 'service_unavailable', headers: { 'retry-after': '10' } });
    held[0]!.stream!.destroy();
    expect((await waiting).value).toBe('after');
    held[1]!.stream!.destroy();
    await idle(pool);
  });

  it('fails the job of a worker that crashes, with a clear error, and replaces the worker', async () => {
    const before = new Set((await Promise.all([pool.run<number>('thread', null), pool.run<number>('thread', null)])).map((t) => t.value));
    const held = await pool.run('hold', null);
    await expect(pool.run('crash', null)).rejects.toThrow(/The worker thread running this crash crashed \(boom\)/);
    // The other worker's job goes on; the crashed one is replaced by a new thread, which takes the next job.
    expect(pool.stats().running).toBe(1);
    const replacement = await pool.run<number>('thread', null);
    expect(before.has(replacement.value)).toBe(false);
    held.stream!.destroy();
    await idle(pool);
    expect(pool.stats().workers).toBe(2);
    // A crash after the first bytes: the reader gets the error, not a short file that looks complete.
    const dying = await pool.run('crashMidStream', null);
    await expect(text(dying.stream)).rejects.toThrow(/crashMidStream crashed \(exit code 3\)/);
    await expect(pool.run('echo', 'still here')).resolves.toMatchObject({ value: 'still here' });
  });
});

describe('lanes', () => {
  it('one thread runs the jobs of several lanes side by side, each lane with its own limits, queue and Retry-After', async () => {
    const shared = createWorkerPool({
      entry: OFFLOAD_TEST_WORKER,
      size: 1,
      lanes: {
        long: { perWorker: 1, queueLimit: 0, retryAfterSeconds: 10, jobsName: 'long jobs' },
        quick: { perWorker: 2, queueLimit: 1, retryAfterSeconds: 1, jobsName: 'quick jobs' },
      },
      data: workerConfig(server.ctx.config),
    });
    try {
      const long = await shared.run('hold', null);
      expect(await shared.run('echo', 'refused').catch((err: unknown) => err)).toMatchObject({
        status: 503,
        headers: { 'retry-after': '10' },
      });
      // The long job holds the only thread's long lane; quick jobs still run on that thread, beside it.
      const { value: thread } = await shared.run<number>('thread', null, { lane: 'quick' });
      expect(thread).not.toBe(threadId);
      const quick = await Promise.all([shared.run('hold', null, { lane: 'quick' }), shared.run('hold', null, { lane: 'quick' })]);
      const waiting = shared.run('echo', 'after', { lane: 'quick' });
      expect(shared.stats('quick')).toEqual({ workers: 1, running: 2, queued: 1 });
      expect(shared.stats('long')).toEqual({ workers: 1, running: 1, queued: 0 });
      const refused = await shared.run('echo', 'too many', { lane: 'quick' }).catch((err: unknown) => err);
      expect(refused).toMatchObject({ status: 503, code: 'service_unavailable', headers: { 'retry-after': '1' } });
      expect((refused as Error).message).toMatch(/busy with other long requests \(quick jobs\); retry in 1 s/);
      quick[0]!.stream!.destroy();
      expect((await waiting).value).toBe('after');
      quick[1]!.stream!.destroy();
      await vi.waitFor(() => expect(shared.stats('quick').running).toBe(0), { timeout: 10_000 });
      await expect(shared.run('nothing', null, { lane: 'none' })).rejects.toThrow('This worker pool has no lane "none"');
      // A crash takes every job of the thread with it, each with the reason; the thread is replaced.
      await expect(shared.run('crash', null, { lane: 'quick' })).rejects.toThrow(/running this crash crashed \(boom\)/);
      await expect(text(long.stream)).rejects.toThrow(/running this hold crashed \(boom\)/);
      await expect(shared.run('echo', 'again')).resolves.toMatchObject({ value: 'again' });
      expect(shared.stats()).toEqual({ workers: 1, running: 0, queued: 0 });
    } finally {
      await shared.close();
    }
  });
});

describe("a worker's connection", () => {
  it('reads what the main connection committed, and writes nothing', async () => {
    const reader = openDatabase(server.ctx.config.databaseUrl, { readOnly: true, poolSize: 1 });
    try {
      await server.ctx.db.kysely.updateTable('projects').set({ description: 'seen by the reader' }).where('id', '=', 1).execute();
      const row = await reader.kysely.selectFrom('projects').select('description').where('id', '=', 1).executeTakeFirst();
      expect(row?.description).toBe('seen by the reader');
      await expect(reader.kysely.updateTable('projects').set({ description: 'written by the reader' }).execute()).rejects.toThrow(
        /readonly|read-only/,
      );
    } finally {
      await reader.close();
    }
  });
});

describe('a report through the pool', () => {
  it("is made in the worker, its pages' progress reported back, its file streamed", async () => {
    const progress: [number, number][] = [];
    const filter = { status: null, mine: false, overdue: false, q: null, participant: null, sort: 'tree' as const };
    const report = await server.ctx.reports.openReport({ id: 0, role: 'admin' }, 1, {
      format: 'csv',
      filter,
      madeBy: 'test',
      onProgress: (done, total) => progress.push([done, total]),
    });
    expect(report).toMatchObject({ contentType: 'text/csv; charset=utf-8', items: 7 });
    expect((await text(report.stream)).split('\r\n').filter(Boolean)).toHaveLength(8);
    expect(progress).toEqual([[7, 7]]);
  });
});

describe('a report when the pool is full, through the real routes', () => {
  it('v1 answers 503 service_unavailable with Retry-After in the envelope; the access check still answers 404 first', async () => {
    const held = await server.ctx.offload.run('hold', null);
    try {
      const busy = await server.call(`${V1}/projects/report.php?id=1&format=pdf`, { token: server.tokens.manager });
      expect([busy.status, busy.body.ok, busy.body.error.code]).toEqual([503, false, 'service_unavailable']);
      expect(busy.headers.get('retry-after')).toBe('10');
      expect(busy.body.error.message).toMatch(/busy .* retry in 10 s/);
      const hidden = await server.call(`${V1}/projects/report.php?id=3`, { token: server.tokens.manager });
      expect([hidden.status, hidden.body.error.code]).toEqual([404, 'not_found']);
      // Trees and searches run in their own lane of the same thread, beside the report.
      const found = await server.call(`${V1}/projects/search.php?id=1&q=Extinguishers`, { token: server.tokens.manager });
      expect([found.status, found.body.ok]).toEqual([200, true]);

      const web = await as('manager');
      const page = await web.get('/projects/1/report.csv');
      expect([page.status, page.headers.get('retry-after')]).toEqual([503, '10']);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.text).toContain('Busy right now');
      expect(page.text).toMatch(/busy with other long requests \(reports\); retry in 10 s/);
    } finally {
      held.stream!.destroy();
    }
    await idle(server.ctx.offload);
    const report = await server.request(`${V1}/projects/report.php?id=1`, { token: server.tokens.manager });
    expect(report.status).toBe(200);
    expect(await report.text()).toContain('Extinguishers checked');
  });
});

describe('trees and searches when their lane is full', () => {
  it('v1 answers 503 with Retry-After: 1, whatever the reports lane does', async () => {
    const held = await Promise.all([1, 2, 3, 4].map(() => server.ctx.offload.run('hold', null, { lane: 'reads' })));
    try {
      const busy = await server.call(`${V1}/projects/search.php?id=1&q=Extinguishers`, { token: server.tokens.manager });
      expect([busy.status, busy.body.error.code, busy.headers.get('retry-after')]).toEqual([503, 'service_unavailable', '1']);
      expect(busy.body.error.message).toMatch(/busy with other long requests \(project trees and searches\); retry in 1 s/);
    } finally {
      for (const h of held) h.stream!.destroy();
    }
    await idle(server.ctx.offload);
    const found = await server.call(`${V1}/projects/search.php?id=1&q=Extinguishers`, { token: server.tokens.manager });
    expect(found.status).toBe(200);
  });
});

describe('closing the pool', () => {
  it('cuts the running job short with an error, refuses the waiting and later ones, and ends the threads and their connections', async () => {
    // On PostgreSQL the worker's connections are told apart by their application name.
    const postgres = testDialect() === 'postgres';
    const config = workerConfig(server.ctx.config);
    if (postgres) config.databaseUrl += '?application_name=closing_test';
    const connections = async () =>
      (
        await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where application_name = 'closing_test'`.execute(
          server.ctx.db.kysely,
        )
      ).rows[0]!.n;
    const closing = createWorkerPool({ entry: OFFLOAD_TEST_WORKER, size: 1, lanes: oneAtATime(1), data: config });
    const held = await closing.run('hold', null);
    const waiting = closing.run('echo', 'never').catch((err: unknown) => err);
    if (postgres) expect(await connections()).toBeGreaterThan(0);
    const reading = text(held.stream).catch((err: unknown) => err);
    await closing.close();
    expect(await waiting).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(await reading).toMatchObject({ message: 'The server is shutting down' });
    expect(closing.stats()).toEqual({ workers: 0, running: 0, queued: 0 });
    await expect(closing.run('echo', 'late')).rejects.toThrow('The worker pool is closed');
    if (postgres) await vi.waitFor(async () => expect(await connections()).toBe(0), { timeout: 5000 });
  });

  it('does not wait for a worker that is still starting', async () => {
    const starting = createWorkerPool({ entry: OFFLOAD_TEST_WORKER, size: 1, lanes: oneAtATime(0), data: workerConfig(server.ctx.config) });
    starting.start();
    expect(starting.stats().workers).toBe(1);
    const began = performance.now();
    await starting.close();
    expect(starting.stats().workers).toBe(0);
    expect(performance.now() - began).toBeLessThan(2000);
  });
});
