import type { FastifyInstance } from 'fastify';

/**
 * CORS for browser-based integration panels (docs/design.md §6). Bearer tokens are not ambient credentials,
 * so `*` is safe by default and credentials are never allowed. `origins`: ['*'] any, a list only those,
 * [] disabled. A preflight (OPTIONS with Access-Control-Request-Method) on a known path answers 204
 * without a token; any other OPTIONS stays the 405 of the path. @fastify/cors was not used: it answers
 * every OPTIONS itself (no 405) and cannot list each path's own methods.
 */
const CORS_EXPOSED_HEADERS = [
  'X-Request-Id',
  'ETag',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Punchlist-Token-Expiration',
  'Idempotent-Replayed',
].join(', ');
// If-None-Match: the conditional GETs of the ETags v1 sends (304). If-Match is not listed: v1 never reads it.
const CORS_ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, If-None-Match, X-Request-Id';
const CORS_MAX_AGE_SECONDS = 600;

export function corsHooks(app: FastifyInstance, origins: readonly string[]) {
  if (origins.length === 0) return;
  const any = origins.includes('*');
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    if (!any) {
      reply.header('vary', 'Origin');
      if (!origin || !origins.includes(origin)) return;
    }
    reply.header('access-control-allow-origin', any ? '*' : origin);
    reply.header('access-control-expose-headers', CORS_EXPOSED_HEADERS);
    const allow = request.routeOptions.config.allow;
    if (request.method !== 'OPTIONS' || !request.headers['access-control-request-method'] || allow === undefined) return;
    return reply
      .code(204)
      .headers({
        'access-control-allow-methods': allow,
        'access-control-allow-headers': CORS_ALLOWED_HEADERS,
        'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
      })
      .send();
  });
}
