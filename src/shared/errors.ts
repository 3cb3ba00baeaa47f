/**
 * Typed errors thrown by services: each carries its machine code and HTTP status.
 * The one error handler (api/v1/envelope.ts) turns them into the envelope.
 */
/** Every `error.code` the API answers, with its HTTP status (test/openapi.test.ts checks the sources use no other). */
export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  token_invalid: 401,
  token_revoked: 401,
  token_expired: 401,
  scope_missing: 403,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  idempotency_conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  expectation_failed: 417,
  validation_error: 422,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  service_unavailable: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * Why a field was refused, as a message key and its arguments (src/i18n/messages/<language>/reasons.json): the web
 * says it in the page's language. v1, the MCP tools and the CLI keep `message`, its English (the envelope never sends
 * `reason`).
 */
export interface FieldReason {
  key: string;
  values?: Record<string, string | number>;
}

export interface FieldError {
  field: string;
  message: string;
  reason?: FieldReason;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

export const unauthorized = (message = 'An API token is required: send "Authorization: Bearer <token>"') =>
  new ApiError(401, 'unauthorized', message);
export const tokenInvalid = () => new ApiError(401, 'token_invalid', 'The API token is not valid');
/** A 401 for a token that exists but may not be used: the audit record still names the token and its owner. */
export class TokenRefused extends ApiError {
  constructor(
    code: 'token_revoked' | 'token_expired',
    message: string,
    readonly owner: { tokenId: number; userId: number },
  ) {
    super(401, code, message);
  }
}

export const tokenRevoked = (owner: TokenRefused['owner']) => new TokenRefused('token_revoked', 'The API token has been revoked', owner);
export const tokenExpired = (owner: TokenRefused['owner']) => new TokenRefused('token_expired', 'The API token has expired', owner);
export const scopeMissing = (scope: string) =>
  new ApiError(403, 'scope_missing', `The API token lacks the scope "${scope}" required by this endpoint`);
export const forbidden = (message = 'You are not allowed to perform this operation') => new ApiError(403, 'forbidden', message);
export const notFound = (what = 'The requested entity') => new ApiError(404, 'not_found', `${what} was not found`);
export const rateLimited = (quota: { limit: number; windowSeconds: number; resetSeconds: number }) =>
  new ApiError(
    429,
    'rate_limited',
    `Too many requests for this token: ${quota.limit} per ${quota.windowSeconds} s; retry in ${quota.resetSeconds} s`,
    undefined,
    { 'retry-after': String(quota.resetSeconds) },
  );
export const conflict = (code: string, message: string) => new ApiError(409, code, message);

export function validationError(field: string, message: string, reason?: FieldReason): ApiError {
  return new ApiError(422, 'validation_error', `${field}: ${message}`, [{ field, message, ...(reason ? { reason } : {}) }]);
}

/** A body field, form field or query parameter the operation does not define (docs/design.md §6): never ignored. */
export function unknownFields(fields: string[]): ApiError {
  const message = 'is not a field of this operation (check its spelling)';
  return new ApiError(
    422,
    'validation_error',
    `Unknown ${fields.length === 1 ? 'field' : 'fields'} ${fields.join(', ')}: ${message}`,
    fields.map((field) => ({ field, message })),
  );
}

/** The generic message the spec asks for when image content is refused. */
export const INVALID_DATA_MESSAGE = 'The request contains invalid data';
export function invalidData(details: FieldError[]): ApiError {
  return new ApiError(422, 'validation_error', INVALID_DATA_MESSAGE, details);
}
