import type { FastifyRequest } from 'fastify';
import { ApiError, rateLimited, scopeMissing, TokenRefused, unauthorized } from '../../shared/errors.js';
import type { RateLimiter } from '../../features/rate-limit/rate-limiter.js';
import type { TokensService } from '../../features/tokens/tokens.service.js';

function authorizationHeaderCount(rawHeaders: string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]?.toLowerCase() === 'authorization') count++;
  return count;
}

/**
 * onRequest hook of v1: runs after routing (so unknown paths and wrong methods answer first),
 * then the check order of docs/design.md §4: header, token (invalid, revoked, expired), the token's rate
 * limit (so a token over its quota gets 429 whatever it asks), scope.
 */
export function bearerAuth(tokens: TokensService, limiter: RateLimiter | null = null) {
  return async (request: FastifyRequest) => {
    const { scope, allow } = request.routeOptions.config;
    // A wrong method answers 405 here, before the body is read: a body on a GET-only path must not
    // turn the 405 into 413, 415 or 422.
    if (allow !== undefined) {
      throw new ApiError(405, 'method_not_allowed', `Method not allowed; this path accepts ${allow}`, undefined, { allow });
    }
    if (!scope) return;
    // Node keeps the first of two Authorization headers and drops the other: refuse rather than guess.
    if (authorizationHeaderCount(request.raw.rawHeaders) > 1) {
      throw new ApiError(400, 'bad_request', 'Send one Authorization header: two make the credentials ambiguous');
    }
    const header = request.headers.authorization ?? '';
    if (!/^bearer(?:\s|$)/i.test(header)) throw unauthorized();
    const raw = header.slice('bearer'.length).trim();
    if (!raw) throw unauthorized();
    try {
      request.api.principal = await tokens.authenticate(raw, request.ip);
    } catch (err) {
      // A revoked or expired token is still the owner's: their audit page shows what broke.
      if (err instanceof TokenRefused) request.api.refusedToken = err.owner;
      throw err;
    }
    if (limiter) {
      request.api.rateLimit = await limiter.consume(String(request.api.principal.token.id));
      if (!request.api.rateLimit.allowed) throw rateLimited(request.api.rateLimit);
    }
    if (!request.api.principal.token.scopes.includes(scope)) throw scopeMissing(scope);
  };
}
