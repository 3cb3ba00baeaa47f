import { type Operation, V1_BASE_PATH } from '../api/v1/define-operation.js';
import { type FieldError, PunchlistApiError } from './errors.js';

export interface TransportOptions {
  /** The service's address, e.g. http://127.0.0.1:8080 (a trailing /api/external/v1 is accepted too). */
  baseUrl: string;
  token: string;
  /** A fetch implementation (default: the global fetch). */
  fetch?: typeof fetch;
  /** Retries after the first attempt, for network errors, 429, 502, 503 and 504 only (default 2). */
  retries?: number;
  /** Longest wait before a retry; a longer Retry-After fails at once instead (default 60 000 ms). */
  maxRetryDelayMs?: number;
  /** Sent as User-Agent where the runtime allows it (it is kept in the audit record). */
  userAgent?: string;
}

export interface Request {
  query?: Record<string, string | number | boolean | undefined>;
  json?: Record<string, unknown>;
  form?: FormData;
  idempotencyKey?: string;
  signal?: AbortSignal;
}

const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);
const BASE_DELAY_MS = 250;
const MAX_BACKOFF_MS = 8_000;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', abort, { once: true });
  });

/** Retry-After in seconds (delta-seconds or an HTTP date), if present and sane. */
function retryAfterSeconds(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

function backoff(attempt: number): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, BASE_DELAY_MS * 2 ** attempt);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

interface Envelope {
  ok?: unknown;
  data?: unknown;
  error?: { code?: unknown; message?: unknown; details?: unknown };
  meta?: { request_id?: unknown };
}

function errorFrom(response: Response, body: Envelope | null): PunchlistApiError {
  const requestId = typeof body?.meta?.request_id === 'string' ? body.meta.request_id : response.headers.get('x-request-id');
  const retryAfter = retryAfterSeconds(response);
  const error = body?.error;
  if (!error || typeof error.code !== 'string') {
    return new PunchlistApiError(
      response.status,
      'invalid_response',
      `HTTP ${response.status} without an error envelope`,
      requestId,
      undefined,
      {
        retryAfterSeconds: retryAfter,
      },
    );
  }
  const message = typeof error.message === 'string' ? error.message : error.code;
  const details = Array.isArray(error.details) ? (error.details as FieldError[]) : undefined;
  return new PunchlistApiError(response.status, error.code, message, requestId, details, { retryAfterSeconds: retryAfter });
}

function base64Of(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** A file operation's success: the file as the definition's `data` describes it (text as text, other types in base64). */
async function readFile(response: Response) {
  const contentType = response.headers.get('content-type') ?? 'application/octet-stream';
  const filename = /filename="([^"]*)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'download';
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (contentType.startsWith('text/')) {
    // TextDecoder leaves the BOM out.
    return { filename, content_type: contentType, encoding: 'utf-8', content: new TextDecoder('utf-8').decode(bytes) };
  }
  return { filename, content_type: contentType, encoding: 'base64', content: base64Of(bytes) };
}

async function readEnvelope(response: Response): Promise<Envelope | null> {
  const text = await response.text();
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Envelope) : null;
  } catch {
    return null;
  }
}

/**
 * Sends v1 requests: bearer token, JSON or multipart bodies, an Idempotency-Key on every write (the same
 * for all attempts of one call), and retries only where a retry is safe and useful: network errors,
 * 429 (after Retry-After), 502, 503, 504. Never 4xx otherwise: 401/403/404/409/422 are answers.
 */
export function createTransport(options: TransportOptions) {
  const base = options.baseUrl.replace(/\/+$/, '').replace(new RegExp(`${V1_BASE_PATH}$`), '') + V1_BASE_PATH;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const retries = options.retries ?? 2;
  const maxDelay = options.maxRetryDelayMs ?? 60_000;
  if (!Number.isInteger(retries) || retries < 0) throw new TypeError('retries must be a non-negative integer');

  return async function call(operation: Operation, request: Request = {}): Promise<unknown> {
    const url = new URL(base + operation.path);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const accept = [...(operation.file?.mediaTypes ?? []), 'application/json'].join(', ');
    const headers: Record<string, string> = { authorization: `Bearer ${options.token}`, accept };
    if (options.userAgent) headers['user-agent'] = options.userAgent;
    if (operation.method !== 'GET') headers['idempotency-key'] = request.idempotencyKey ?? globalThis.crypto.randomUUID();
    if (request.json) headers['content-type'] = 'application/json';
    const body = request.json ? JSON.stringify(request.json) : request.form;

    for (let attempt = 0; ; attempt++) {
      const canRetry = attempt < retries;
      let response: Response;
      try {
        response = await fetchImpl(url, { method: operation.method, headers, body, signal: request.signal });
      } catch (err) {
        if (request.signal?.aborted) throw err;
        if (canRetry) {
          await sleep(backoff(attempt), request.signal);
          continue;
        }
        const reason = err instanceof Error ? err.message : String(err);
        throw new PunchlistApiError(0, 'network_error', `Could not reach ${url.origin}: ${reason}`, null, undefined, { cause: err });
      }
      if (RETRYABLE_STATUSES.has(response.status) && canRetry) {
        const waitSeconds = retryAfterSeconds(response);
        const delay = waitSeconds === undefined ? backoff(attempt) : waitSeconds * 1000;
        if (delay <= maxDelay) {
          await response.body?.cancel();
          await sleep(delay, request.signal);
          continue;
        }
      }
      if (operation.file && response.ok) return readFile(response);
      const envelope = await readEnvelope(response);
      if (!response.ok || envelope?.ok !== true || envelope.data === undefined) {
        throw errorFrom(response, envelope);
      }
      return envelope.data;
    }
  };
}
