/**
 * The figures behind docs/decisions.md, "Cookies, CSRF, forms and rate limits: Fastify's plugins": what
 * @fastify/rate-limit and @fastify/csrf-protection would cost or change on their hot paths, against the
 * limiter and the CSRF check Punchlist keeps. In-process, no database (the database limiter's cost is its one
 * upsert, the same with a plugin store over rate-limit.repository.ts).
 *
 * - rate limit: one decision, our in-memory limiter against the plugin's `createRateLimit` (its LocalStore),
 *   600 per minute over 1 000 tokens; then what the LocalStore (an LRU, 5 000 keys by default) does to a
 *   token over its quota once 5 000 other tokens have sent a request in the same window;
 * - CSRF: a web page and a form POST through Fastify (inject), with the session's token (ours) against the
 *   plugin's cookie mode bound to the session (`userInfo`), which is the one it offers without
 *   @fastify/session.
 *
 *   npm run bench:plugins     (BENCH_PLUGIN_CALLS: decisions per limiter, default 200 000)
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import csrfProtection from '@fastify/csrf-protection';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { createInMemoryRateLimiter } from '../src/features/rate-limit/rate-limiter.js';
import { sameSecret } from '../src/features/sessions/sessions.service.js';
import { urlEncodedForms } from '../src/http/form-body.js';

const CALLS = Number(process.env.BENCH_PLUGIN_CALLS ?? 200_000);
const PAGES = 20_000;
const log = (line: string) => process.stdout.write(`${line}\n`);

/** Mean µs per call of `run` over `n` calls, after a warm-up of a tenth of them. */
async function timed(n: number, run: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < n / 10; i++) await run(i);
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await run(i);
  return Number(process.hrtime.bigint() - start) / 1000 / n;
}

/** The plugin's per-key decision function, keyed like v1 (the token id), on a bare instance. */
async function pluginLimiter(max: number): Promise<{ app: FastifyInstance; check: (key: string) => Promise<{ allowed: boolean }> }> {
  const app = Fastify();
  await app.register(rateLimit, { global: false });
  const keyed = new WeakMap<object, string>();
  const decide = app.createRateLimit({ max, timeWindow: 60_000, keyGenerator: (request) => keyed.get(request)! });
  const request = { routeOptions: { config: {} } } as unknown as FastifyRequest;
  return {
    app,
    async check(key) {
      keyed.set(request, key);
      const result = await decide(request);
      return { allowed: result.isAllowed || !result.isExceeded };
    },
  };
}

async function rateLimits() {
  const ours = createInMemoryRateLimiter({ limit: 600 });
  const plugin = await pluginLimiter(600);
  const oursUs = await timed(CALLS, (i) => ours.consume(String(i % 1000)));
  const pluginUs = await timed(CALLS, (i) => plugin.check(String(i % 1000)));
  await plugin.app.close();

  // One token over its quota (1 per window), then 5 000 other tokens, then the first one again.
  const allowedAfterCrowd = async (consume: (key: string) => Promise<{ allowed: boolean }>) => {
    await consume('over-quota');
    const refusedBefore = !(await consume('over-quota')).allowed;
    for (let i = 0; i < 5000; i++) await consume(`other-${i}`);
    return { refusedBefore, allowedAfter: (await consume('over-quota')).allowed };
  };
  const oneMemory = createInMemoryRateLimiter({ limit: 1 });
  const onePlugin = await pluginLimiter(1);
  const oursCrowd = await allowedAfterCrowd((key) => oneMemory.consume(key));
  const pluginCrowd = await allowedAfterCrowd((key) => onePlugin.check(key));
  await onePlugin.app.close();
  return { oursUs, pluginUs, oursCrowd, pluginCrowd };
}

/** A page that shows a form and the form's POST, with a session known by its cookie (a Map stands for the table). */
async function csrfApp(kind: 'session' | 'plugin') {
  const app = Fastify();
  const sessions = new Map<string, { csrfToken: string }>();
  await app.register(fastifyCookie);
  await urlEncodedForms(app, 64 * 1024);
  const sessionOf = (request: FastifyRequest) => sessions.get(request.cookies.session ?? '')!;
  const tokenOf = (request: FastifyRequest) => (request.body instanceof URLSearchParams ? request.body.get('_csrf') : null) ?? '';
  if (kind === 'plugin') {
    await app.register(csrfProtection, {
      sessionPlugin: '@fastify/cookie',
      cookieOpts: { path: '/', httpOnly: true, sameSite: 'lax' },
      csrfOpts: { hmacKey: randomBytes(32).toString('base64url'), userInfo: true },
      getUserInfo: (request) => request.cookies.session ?? '',
      getToken: tokenOf,
    });
    app.get(
      '/page',
      async (request, reply) => `<input name="_csrf" value="${reply.generateCsrf({ userInfo: request.cookies.session ?? '' })}">`,
    );
    app.post('/form', { preHandler: app.csrfProtection }, async () => 'ok');
  } else {
    app.get('/page', async (request) => `<input name="_csrf" value="${sessionOf(request).csrfToken}">`);
    app.post('/form', async (request, reply) =>
      sameSecret(tokenOf(request), sessionOf(request).csrfToken) ? 'ok' : reply.code(403).send(),
    );
  }
  await app.ready();
  const session = randomBytes(32).toString('base64url');
  sessions.set(session, { csrfToken: randomBytes(32).toString('base64url') });
  const first = await app.inject({ method: 'GET', url: '/page', cookies: { session } });
  const cookies = { session, ...Object.fromEntries(first.cookies.map((c) => [c.name, c.value])) };
  const token = /value="([^"]+)"/.exec(first.body)?.[1] ?? assert.fail(`${kind}: ${first.statusCode} ${first.body}`);
  const payload = `title=Crack+in+the+slab&_csrf=${encodeURIComponent(token)}`;
  const post = () =>
    app.inject({ method: 'POST', url: '/form', cookies, payload, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  const accepted = (await post()).statusCode === 200;
  const pageUs = await timed(PAGES, () => app.inject({ method: 'GET', url: '/page', cookies }));
  const postUs = await timed(PAGES, post);
  await app.close();
  return { cookiesSet: first.cookies.map((c) => c.name), accepted, pageUs, postUs };
}

const limits = await rateLimits();
log('## Rate limit: one decision (in memory, 600/min over 1 000 tokens)');
log(`| limiter | µs per decision |\n|---|---:|`);
log(`| ours (createInMemoryRateLimiter) | ${limits.oursUs.toFixed(2)} |`);
log(`| @fastify/rate-limit createRateLimit (LocalStore) | ${limits.pluginUs.toFixed(2)} |`);
log('');
log('## Rate limit: a token over its quota (1/min) after 5 000 other tokens in the same window');
log(`| limiter | refused before | allowed again after the 5 000 |\n|---|---|---|`);
log(`| ours | ${limits.oursCrowd.refusedBefore} | ${limits.oursCrowd.allowedAfter} |`);
log(`| @fastify/rate-limit (LocalStore, default cache) | ${limits.pluginCrowd.refusedBefore} | ${limits.pluginCrowd.allowedAfter} |`);
log('');
const ours = await csrfApp('session');
const plugin = await csrfApp('plugin');
log('## CSRF: a page with a form and its POST (inject, in-process)');
log(`| check | cookies the page sets | POST accepted | µs per page | µs per POST |\n|---|---|---|---:|---:|`);
for (const [name, r] of [
  ['ours (the session token)', ours],
  ['@fastify/csrf-protection (cookie mode, userInfo)', plugin],
] as const) {
  log(`| ${name} | ${r.cookiesSet.join(', ') || 'none'} | ${r.accepted} | ${r.pageUs.toFixed(1)} | ${r.postUs.toFixed(1)} |`);
}
