import type { Principal } from '../features/tokens/tokens.service.js';
import type { Actor } from '../domain/policy.js';
import type { RateLimitDecision } from '../features/rate-limit/rate-limiter.js';
import type { Scope } from '../domain/scopes.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the request acts as, once the bearer token (or web session) resolved. */
    principal: Principal | null;
    /** A revoked or expired token and its owner, for the audit record (no principal: nothing is allowed). */
    refusedToken: { tokenId: number; userId: number } | null;
    /** The signed-in web user, on the few /api/ routes that also accept the web session (downloads). */
    sessionUser: Actor | null;
    /** The token's quota after this request, when rate limiting is on. */
    rateLimit: RateLimitDecision | null;
    /** The entity the request acts on, for the audit record. */
    auditEntity: { type: string; id: number } | null;
    /** The envelope's error code, for the audit record. */
    errorCode: string | null;
    /** Set when a write already recorded its audit entry inside its own transaction. */
    audited: boolean;
  }
  interface FastifyContextConfig {
    /** The scope a v1 route requires. */
    scope?: Scope;
    /** Methods allowed on the path, set on the routes that answer 405. */
    allow?: string;
  }
}
