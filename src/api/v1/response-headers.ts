import type { FastifyInstance } from 'fastify';
import type { RateLimiter } from '../../features/rate-limit/rate-limiter.js';
import { apiNotFoundHandler, dataText, etagOf } from '../envelope.js';

/**
 * Response headers of v1 (docs/integrators.md, "Headers"):
 *
 * - `RateLimit-Policy: "per-token";q=600;w=60` and `RateLimit: "per-token";r=599;t=42`, in the syntax of
 *   draft-ietf-httpapi-ratelimit-headers (-09/-10): a quoted policy name with q (quota), w (window, s),
 *   r (remaining) and t (seconds until the quota resets). The policy is on every response under
 *   /api/external/v1/ while limiting is on (operations, 405 answers, unknown paths, the public document
 *   and docs pages); RateLimit only where a token's counter is known, i.e. once the token is
 *   authenticated (a 401, a 404 of an unknown path or a 405 counts nothing, so it has no counter to show).
 *   The answers the HTTP server writes on the socket before Fastify (400, 408, 417, 431: http-guards.ts)
 *   carry neither: no route, hence no v1, was reached.
 * - `Punchlist-Token-Expiration`: the token's expires_at (RFC 3339), when it has one.
 * - `ETag` on successful GETs, a weak validator over `data` only (meta changes on every response);
 *   `If-None-Match` with a matching tag answers 304 without a body.
 *
 * The quota is consumed right after authentication and before the scope check (docs/design.md §4 order:
 * routing, token, rate limit, scope, input, visibility, right), so a token over its quota gets 429
 * whatever it asks: bearerAuth consumes it and keeps the decision on the request for these headers.
 */

const RATE_LIMIT_POLICY = 'per-token';

function parseEntityTags(header: string): string[] {
  return header.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
}

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const tags = parseEntityTags(ifNoneMatch);
  return tags.includes('*') || tags.includes(etag.replace(/^W\//, ''));
}

/**
 * Registers the header hooks on the v1 instance. Rate-limit headers go on every response it sends;
 * the token expiry and ETag only on its operations (routes with a scope).
 */
export function responseHeaders(app: FastifyInstance, limiter: RateLimiter | null) {
  // Unknown paths under the v1 prefix are answered by v1 itself rather than by /api/'s handler, so
  // that its hooks (these headers, the request id) run on them too.
  app.setNotFoundHandler(apiNotFoundHandler);
  // Built once: the quota and window are fixed for the life of the limiter.
  const policy = limiter ? `"${RATE_LIMIT_POLICY}";q=${limiter.limit};w=${limiter.windowSeconds}` : null;
  const remainingPrefix = `"${RATE_LIMIT_POLICY}";r=`;

  app.addHook('onSend', async (request, reply, payload) => {
    if (policy) {
      reply.header('ratelimit-policy', policy);
      const decision = request.api.rateLimit;
      if (decision) reply.header('ratelimit', `${remainingPrefix}${decision.remaining};t=${decision.resetSeconds}`);
    }
    if (!request.routeOptions.config.scope) return payload;
    const expiresAt = request.api.principal?.token.expires_at;
    if (expiresAt) reply.header('punchlist-token-expiration', new Date(expiresAt).toISOString());

    if ((request.method !== 'GET' && request.method !== 'HEAD') || reply.statusCode !== 200) return payload;
    // A cached or pre-serialized answer (operation-route.ts, bytes) comes with its ETag; others are strings.
    const data = reply.hasHeader('etag') || typeof payload !== 'string' ? null : dataText(payload);
    if (data !== null) reply.header('etag', etagOf(data));
    const etag = reply.getHeader('etag');
    if (typeof etag !== 'string') return payload;
    if (!matches(request.headers['if-none-match'], etag)) return payload;
    reply.code(304);
    reply.removeHeader('content-type');
    reply.removeHeader('content-length');
    reply.removeHeader('content-encoding');
    // null, not '': Fastify then sends a 304 without Content-Length (RFC 9110 §8.6). Fastify's own
    // onSend of HEAD routes cannot take null.
    return request.method === 'HEAD' ? '' : null;
  });
}
