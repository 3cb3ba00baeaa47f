import { hash } from 'node:crypto';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { isDatabaseUnavailable } from '../db/database-errors.js';
import { deflateAhead, gzipParts, type Deflated } from '../http/gzip.js';
import { redactSecrets } from '../domain/redact.js';
import { ApiError, ERROR_STATUS, type ErrorCode, type FieldError, type FieldReason } from '../shared/errors.js';
import { schemaFieldError } from '../i18n/reasons.js';
import { JSON_BODY_LIMIT } from './json-body.js';

const API_VERSION = 'v1';

export function meta(request: FastifyRequest) {
  return { request_id: request.id, api_version: API_VERSION, timestamp: new Date().toISOString() };
}

export function ok<T>(request: FastifyRequest, data: T) {
  return { ok: true as const, data, meta: meta(request) };
}

// A success envelope is serialized {"ok":true,"data":…,"meta":{…}} (response schema order), meta last and
// holding no text of the data: the data is the text between. Parsing and re-serializing the payload cost as
// much as building it (profile of projects/tree: 22 % of the CPU in the ETag).
const DATA_START = '{"ok":true,"data":';
const META_START = ',"meta":{';

/** The serialized `data` of a serialized success envelope; null for anything else. */
export function dataText(payload: string): string | null {
  if (!payload.startsWith(DATA_START)) return null;
  const end = payload.lastIndexOf(META_START);
  return end > DATA_START.length ? payload.slice(DATA_START.length, end) : null;
}

const DATA_START_BYTES = Buffer.from(DATA_START);

/** A success envelope around `data` serialized before as UTF-8 (a cached answer, a worker's): one copy of it. */
export function envelopeBytes(request: FastifyRequest, data: Buffer): Buffer {
  return Buffer.concat(envelopeParts(request, data));
}

/** The same envelope as its three parts, `data` not copied: what goes before it, itself, and the meta after it. */
export function envelopeParts(request: FastifyRequest, data: Buffer): [Buffer, Buffer, Buffer] {
  return [DATA_START_BYTES, data, metaBytes(request)];
}

const metaBytes = (request: FastifyRequest) => Buffer.from(`,"meta":${JSON.stringify(meta(request))}}`);

const DATA_START_DEFLATED = deflateAhead(DATA_START_BYTES);

/** The same envelope as one gzip member, around `data` deflated before: only the meta is deflated now. */
export function gzipEnvelopeParts(request: FastifyRequest, data: Deflated): Buffer[] {
  return gzipParts([DATA_START_DEFLATED, data, metaBytes(request)]);
}

/** The weak ETag of a serialized `data` (ETags are over `data` only: meta changes on every response). */
export function etagOf(data: string | Buffer): string {
  return `W/"${hash('sha256', data, 'base64url')}"`;
}

const Meta = Type.Object({
  request_id: Type.String(),
  api_version: Type.String(),
  timestamp: Type.String({ format: 'date-time' }),
});

export const Envelope = <T extends TSchema>(data: T) => Type.Object({ ok: Type.Literal(true), data, meta: Meta });

/** Every `error.code` the API answers (errors.ts). */
const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export const ErrorEnvelope = Type.Object({
  ok: Type.Literal(false),
  error: Type.Object({
    code: Type.Enum([...ERROR_CODES]),
    message: Type.String(),
    details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  }),
  meta: Meta,
});

interface AjvError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
  parentSchema?: { errorMessage?: string; errorReason?: FieldReason; properties?: Record<string, unknown> };
  /** The value that failed (ajv's `verbose`). */
  data?: unknown;
}

/** Every property of the object that failed `additionalProperties`, not only the first one ajv met. */
function unknownProperties(error: AjvError, context: string | undefined): ApiError {
  const known = error.parentSchema?.properties ?? {};
  const names = Object.keys((error.data ?? {}) as object).filter((name) => !(name in known));
  const base = fieldName(error.instancePath, undefined);
  const prefix = base && error.instancePath ? `${base}.` : '';
  const what = context === 'querystring' ? 'query parameter' : 'field';
  const fields = (names.length ? names : [String(error.params.additionalProperty)]).map((name) => prefix + name);
  const message = `is not a ${what} of this operation (check its spelling)`;
  return new ApiError(
    422,
    'validation_error',
    `Unknown ${what}${fields.length > 1 ? 's' : ''} ${fields.join(', ')}: ${message}`,
    fields.map((field) => ({ field, message })),
  );
}

function fieldName(path: string, context: string | undefined): string {
  const field = path
    .split('/')
    .filter(Boolean)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('');
  return field || (context === 'querystring' ? 'query' : (context ?? 'body'));
}

/** Turns the first schema violation into a message naming the field. */
function describeValidation(errors: AjvError[], context: string | undefined): FieldError {
  const first = errors[0];
  if (!first) return { field: 'body', message: 'is invalid' };
  if (first.keyword === 'required') {
    const base = fieldName(first.instancePath, undefined);
    const missing = String(first.params.missingProperty);
    return { field: base && first.instancePath ? `${base}.${missing}` : missing, message: 'is required' };
  }
  const field = fieldName(first.instancePath, context);
  // `?id=1&id=2` arrives as an array: say so rather than "must be an id".
  if (context === 'querystring' && Array.isArray(first.data)) return { field, message: 'is repeated; give it once' };
  if (first.parentSchema?.errorReason) return { field, message: schemaFieldError(field, first.parentSchema.errorReason).message };
  if (first.parentSchema?.errorMessage) return { field, message: first.parentSchema.errorMessage };
  if (first.keyword === 'enum') {
    return { field, message: `must be one of ${(first.params.allowedValues as unknown[]).map(String).join(', ')}` };
  }
  if (first.keyword === 'type' && !first.instancePath && context === 'body') {
    return { field: 'body', message: 'must be a JSON object' };
  }
  return { field, message: first.message ?? 'is invalid' };
}

// Framework errors that are the client's fault, by Fastify error code.
const FRAMEWORK_ERRORS: Record<string, [number, string, string]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupported_media_type', 'Content-Type must be application/json'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'payload_too_large', `The request body is over the limit of ${JSON_BODY_LIMIT} bytes (1 MiB) for JSON`],
  FST_ERR_CTP_EMPTY_JSON_BODY: [422, 'validation_error', 'body: must be a JSON object'],
  FST_ERR_CTP_INVALID_JSON_BODY: [422, 'validation_error', 'body: is not valid JSON'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'bad_request', 'Content-Length does not match the body'],
  FST_ERR_CTP_INVALID_TYPE: [415, 'unsupported_media_type', 'Content-Type must be application/json'],
};

/** Retry-After of a 503: long enough for a database restart or fail-over to be noticed, short enough to recover quickly. */
const RETRY_AFTER_UNAVAILABLE_SECONDS = 5;

function toApiError(error: FastifyError): ApiError {
  if (error instanceof ApiError) return error;
  if (error.validation) {
    const [first] = error.validation as unknown as AjvError[];
    if (first?.keyword === 'additionalProperties') return unknownProperties(first, error.validationContext);
    const detail = describeValidation(error.validation as unknown as AjvError[], error.validationContext);
    return new ApiError(422, 'validation_error', `${detail.field}: ${detail.message}`, [detail]);
  }
  // The database (or another dependency) cannot be reached: a retry may work, so no 500.
  if (isDatabaseUnavailable(error)) {
    return new ApiError(503, 'service_unavailable', 'The service is temporarily unavailable; retry later', undefined, {
      'retry-after': String(RETRY_AFTER_UNAVAILABLE_SECONDS),
    });
  }
  const known = error.code ? FRAMEWORK_ERRORS[error.code] : undefined;
  if (known) return new ApiError(known[0], known[1], known[2]);
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return new ApiError(status, 'bad_request', error.message);
  return new ApiError(500, 'internal_error', 'An unexpected error occurred; the request_id identifies it in the logs');
}

/**
 * The RFC 6750 challenge of a 401: `error="invalid_token"` when a token was sent but cannot be used.
 * v1 keeps this challenge as docs/design.md §6 fixes it; `/mcp` adds `resource_metadata` (mcp/http.ts), and v1's
 * own metadata is at /.well-known/oauth-protected-resource/api/external/v1 (RFC 9728).
 */
export function bearerChallenge(code: string): string {
  const realm = 'Bearer realm="punchlist"';
  return code === 'unauthorized' ? realm : `${realm}, error="invalid_token"`;
}

function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError) {
  request.api.errorCode = error.code;
  if (error.headers) reply.headers(error.headers);
  if (error.status === 401) reply.header('www-authenticate', bearerChallenge(error.code));
  return reply
    .code(error.status)
    .type('application/json; charset=utf-8')
    .send({
      ok: false,
      error: {
        code: error.code,
        message: error.message,
        // v1's details are the field and its English reason; the message key (`reason`) is the web's alone.
        ...(error.details ? { details: error.details.map(({ field, message }) => ({ field, message })) } : {}),
      },
      meta: meta(request),
    });
}

/** The one error handler of /api/: every failure leaves in the envelope; a 5xx never shows internals. */
export function apiErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const apiError = toApiError(error);
  // A 503 of a full queue (features/offload) is the server working as meant: a line, not a stack.
  if (error instanceof ApiError && apiError.status === 503) request.log.warn({ code: apiError.code }, apiError.message);
  else if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
  return sendError(request, reply, apiError);
}

export function apiNotFoundHandler(request: FastifyRequest, reply: FastifyReply) {
  return sendError(
    request,
    reply,
    new ApiError(404, 'not_found', `No endpoint ${request.method} ${redactSecrets(request.url.split('?')[0] ?? '')}`),
  );
}
