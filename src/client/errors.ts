/** One field's complaint in a 422 `validation_error` (`error.details`). */
export interface FieldError {
  field: string;
  message: string;
}

/**
 * A failed call: the API's error envelope (`code`, `status`, `requestId`, `details`), or, with status 0,
 * `network_error` (no HTTP response) and `invalid_response` (a response that is not the v1 envelope).
 * Quote `requestId` when reporting a problem: the service's audit log and logs are keyed by it.
 */
export class PunchlistApiError extends Error {
  override readonly name = 'PunchlistApiError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | null,
    readonly details: FieldError[] | undefined = undefined,
    options: { cause?: unknown; retryAfterSeconds?: number } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /** From `Retry-After`, when the response had one (429, and 409 for a key still in progress). */
  readonly retryAfterSeconds: number | undefined;
}
