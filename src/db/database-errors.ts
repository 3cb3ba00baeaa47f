/**
 * Errors that mean "the database cannot be reached right now", as opposed to a bug or a bad query:
 * the request may succeed if retried later, so the API answers 503 `service_unavailable` with
 * Retry-After instead of 500. The socket codes also cover the blob store's network (S3).
 */

// Socket-level failures of the PostgreSQL connection (node's errno codes).
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

// PostgreSQL SQLSTATEs: class 08 (connection exception), 57P01–57P03 (admin/crash shutdown, cannot
// connect now), 53300 (too many connections).
const PG_STATES = /^(08\d{3}|57P0[1-3]|53300)$/;

// SQLite: the file stayed locked beyond busy_timeout, or the disk is full.
const SQLITE_CODES = /^SQLITE_(BUSY|LOCKED|FULL)/;

// node-postgres reports these without a code.
const PG_MESSAGES = [
  /^Connection terminated/i, // "Connection terminated unexpectedly", "… due to connection timeout"
  /^timeout exceeded when trying to connect/i, // the pool's connectionTimeoutMillis
  /^Client has encountered a connection error and is not queryable/i,
  /^Cannot use a pool after calling end on the pool/i,
  /^Client was closed and is not queryable/i,
];

export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || PG_STATES.test(code) || SQLITE_CODES.test(code))) return true;
    if (typeof message === 'string' && PG_MESSAGES.some((pattern) => pattern.test(message))) return true;
    // AggregateError (a connect attempt to several addresses, e.g. localhost on ::1 and 127.0.0.1).
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.length > 0 && errors.every((inner) => isDatabaseUnavailable(inner))) return true;
  }
  return false;
}
