import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, validationError } from '../shared/errors.js';
import { hashJsonRequest, type IdempotencyScope, type IdempotencyService } from '../features/idempotency/idempotency.service.js';

/**
 * Idempotency keys of requests, the one module where v1 and the web reserve, complete and release them
 * (features/idempotency/ stores them). A request's key is reserved by `reserveKey` and ended, once, by `finishKey`
 * (stored with the response, or released); `request.api.idempotency` holds where it stands.
 *
 * The web's forms (web/web-write.ts) carry their key in `_key` (webKeyScope); v1 in the `Idempotency-Key` header
 * (docs/design.md §6), as one mechanism:
 *
 * - preValidation (after routing, bearer auth and scope; the JSON body is parsed, not yet validated):
 *   checks the key (1–255 printable ASCII, else 422), then reserves it for token + method + path
 *   before the handler runs. A duplicate arriving meanwhile gets 409 `idempotency_conflict`; a
 *   completed one is replayed (same status and body, the original request_id in the body and in
 *   X-Request-Id, header `Idempotent-Replayed: true`); another body with the same key → 409.
 * - onSend: stores the status and body of a 2xx or 4xx response (408/429 excepted: they say
 *   "try again"), or releases the reservation on anything else (5xx), so the key may be retried.
 *
 * Multipart routes cannot be fingerprinted before their handler streams the files: for them the
 * hook only checks the key, and the route must call `beginIdempotentRequest(request, reply,
 * hashMultipartRequest(fields, files))` once it has read the parts and before it writes anything;
 * when that returns false the reply (a replay) has been sent and the handler returns `reply`.
 */

export interface IdempotencyState {
  scope: IdempotencyScope;
  /** awaiting_hash: key checked, not reserved yet (multipart until the route calls the gate). */
  phase: 'awaiting_hash' | 'reserved' | 'replayed' | 'done';
  /** v1: reserves the key with the request's fingerprint once it is known (the gate below, for this request). */
  reserve(reply: FastifyReply, requestHash: string): Promise<boolean>;
}

type Reservation = Awaited<ReturnType<IdempotencyService['reserve']>>;

/**
 * Reserves the request's key for this request (`requestHash`: what "the same request" means, JSON or multipart):
 * the reservation, as the service answers it; the request holds the key when it is `reserved`.
 */
export async function reserveKey(
  service: IdempotencyService,
  request: FastifyRequest,
  scope: IdempotencyScope,
  requestHash: string,
): Promise<Reservation> {
  const state = (request.api.idempotency ??= { scope, phase: 'awaiting_hash', reserve: async () => true });
  const result = await service.reserve(scope, requestHash, request.id);
  if (result.kind === 'reserved') state.phase = 'reserved';
  else if (result.kind === 'replay') state.phase = 'replayed';
  return result;
}

/**
 * Ends the key the request holds, once: stores `response` for the replays of a later request with the key, or, when
 * there is none (a failure, a refusal the caller may correct), releases the key so that it may be sent again.
 */
export async function finishKey(service: IdempotencyService, request: FastifyRequest, response: { status: number; body: string } | null) {
  const state = request.api.idempotency;
  if (!state || state.phase !== 'reserved') return;
  state.phase = 'done';
  if (response) await service.complete(state.scope, request.id, response.status, response.body);
  else await service.release(state.scope, request.id);
}

/** A web form's key: the UUID the page wrote in `_key`. */
const WEB_KEY = /^[0-9a-f-]{36}$/;

/**
 * Where a web form's key is valid: the signed-in user (beside the tokens' keys, scoped by the negated user id: token
 * ids are positive), the form's path. Null without a user or a well-formed key (then the form is not idempotent).
 */
export function webKeyScope(userId: number | null, key: string | null | undefined, request: FastifyRequest): IdempotencyScope | null {
  if (userId === null || !key || !WEB_KEY.test(key)) return null;
  return { tokenId: -userId, key, method: 'POST', path: request.url.split('?')[0]! };
}

const IDEMPOTENT_METHODS = new Set(['POST', 'PATCH', 'PUT']);
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;
const REPLAYED_HEADER = 'idempotent-replayed';

const isMultipart = (request: FastifyRequest) => /^multipart\//i.test(request.headers['content-type'] ?? '');

function storable(status: number): boolean {
  if (status >= 200 && status < 300) return true;
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

function errorCodeOf(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown } };
    return typeof parsed.error?.code === 'string' ? parsed.error.code : null;
  } catch {
    return null;
  }
}

/**
 * Reserves the key with the request's fingerprint. Returns true when the request goes on (no key,
 * or reserved now); false when a stored response has been sent; throws 409 otherwise.
 */
async function gate(service: IdempotencyService, request: FastifyRequest, reply: FastifyReply, requestHash: string): Promise<boolean> {
  const state = request.api.idempotency;
  if (!state || state.phase !== 'awaiting_hash') return true;
  const result = await reserveKey(service, request, state.scope, requestHash);
  switch (result.kind) {
    case 'reserved':
      return true;
    case 'mismatch':
      throw new ApiError(
        409,
        'idempotency_conflict',
        'This Idempotency-Key was already used for a different request to this endpoint; use a new key for a new request',
      );
    case 'in_progress':
      throw new ApiError(
        409,
        'idempotency_conflict',
        'A request with this Idempotency-Key is still in progress; retry later to receive its result',
        undefined,
        { 'retry-after': '1' },
      );
    case 'replay':
      request.api.errorCode = errorCodeOf(result.body);
      reply
        .code(result.status)
        .header(REPLAYED_HEADER, 'true')
        .header('x-request-id', result.requestId)
        .type('application/json; charset=utf-8')
        .send(result.body);
      return false;
  }
}

/** Registers the two hooks on the v1 instance; they act only on its scoped POST/PATCH/PUT routes. */
export function idempotencyHooks(app: FastifyInstance, service: IdempotencyService) {
  app.addHook('preValidation', async (request, reply) => {
    const scope = request.routeOptions.config.scope;
    if (!scope || !request.api.principal || !IDEMPOTENT_METHODS.has(request.method)) return;
    const header = request.headers['idempotency-key'];
    if (header === undefined) return;
    const key = Array.isArray(header) ? header.join(', ') : header;
    if (!KEY_PATTERN.test(key)) throw validationError('Idempotency-Key', 'must be 1 to 255 printable ASCII characters');
    request.api.idempotency = {
      scope: { tokenId: request.api.principal.token.id, key, method: request.method, path: request.url.split('?')[0] ?? request.url },
      phase: 'awaiting_hash',
      reserve: (replyTo, requestHash) => gate(service, request, replyTo, requestHash),
    };
    if (isMultipart(request)) return;
    if (!(await request.api.idempotency.reserve(reply, hashJsonRequest(request.body)))) return reply;
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const state = request.api.idempotency;
    if (!state) return payload;
    if (state.phase === 'awaiting_hash' && isMultipart(request) && reply.statusCode < 300) {
      request.log.error('multipart write finished without beginIdempotentRequest(): its Idempotency-Key was not honoured');
    }
    if (state.phase !== 'reserved') return payload;
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
    try {
      await finishKey(service, request, storable(reply.statusCode) && body !== null ? { status: reply.statusCode, body } : null);
    } catch (err) {
      // The key stays reserved until it expires: safer than letting a retry repeat a write that happened.
      request.log.error({ err }, 'idempotency key could not be completed');
    }
    return payload;
  });
}

/**
 * For multipart routes: reserve the request's Idempotency-Key with its fingerprint
 * (`hashMultipartRequest`) after reading the parts and before writing. Returns false when a stored
 * response was sent instead (then `return reply`); throws 409 `idempotency_conflict` on a
 * duplicate in progress or a different request; true otherwise (also when there is no key).
 */
export async function beginIdempotentRequest(request: FastifyRequest, reply: FastifyReply, requestHash: string): Promise<boolean> {
  return request.api.idempotency ? request.api.idempotency.reserve(reply, requestHash) : true;
}
