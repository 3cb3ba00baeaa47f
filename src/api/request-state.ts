import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../features/tokens/tokens.service.js';
import type { Actor } from '../domain/policy.js';
import type { RateLimitDecision } from '../features/rate-limit/rate-limiter.js';
import type { Scope } from '../domain/scopes.js';
import type { IdempotencyState } from '../http/idempotency.js';

/**
 * What the /api/ hooks learn about a request and the audit record reads, in one object (one request
 * decoration, created on first use): who it acts as, the entity, the error code, the idempotency key.
 * Handlers never touch it: they receive the user and the input (v1/operation-route.ts).
 */
interface ApiRequestState {
  /** Who the request acts as, once the bearer token resolved. */
  principal: Principal | null;
  /** A revoked or expired token and its owner, for the audit record (no principal: nothing is allowed). */
  refusedToken: { tokenId: number; userId: number } | null;
  /** The signed-in web user, on the few /api/ routes that also accept the web session (downloads). */
  sessionUser: Actor | null;
  /** The token's quota after this request, when rate limiting is on. */
  rateLimit: RateLimitDecision | null;
  /** The entity the request acts on, for the audit record (from the operation's definition). */
  auditEntity: { type: string; id: number } | null;
  /** The envelope's error code, for the audit record. */
  errorCode: string | null;
  /** Set when a write already recorded its audit entry inside its own transaction. */
  audited: boolean;
  /** The request's Idempotency-Key, once checked; null when the request carries none. */
  idempotency: IdempotencyState | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    api: ApiRequestState;
  }
  interface FastifyContextConfig {
    /** The scope a v1 route requires. */
    scope?: Scope;
    /** Methods allowed on the path, set on the routes that answer 405. */
    allow?: string;
  }
}

// The state's slot on the request, declared with the decoration so every request object has it from its
// constructor (one shape); it was a WeakMap lookup on each of the ~20 reads of a request (profile of auth/me).
const STATE = Symbol('apiRequestState');

const freshState = (): ApiRequestState => ({
  principal: null,
  refusedToken: null,
  sessionUser: null,
  rateLimit: null,
  auditEntity: null,
  errorCode: null,
  audited: false,
  idempotency: null,
});

/** The one request decoration of /api/: a fresh state per request, made when first read. */
export function decorateApiRequests(app: FastifyInstance) {
  app.decorateRequest(STATE, null);
  app.decorateRequest('api', {
    getter() {
      const slots = this as FastifyRequest & { [STATE]: ApiRequestState | null };
      return (slots[STATE] ??= freshState());
    },
  });
}
