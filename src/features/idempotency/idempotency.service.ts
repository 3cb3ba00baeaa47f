import { createHash } from 'node:crypto';
import type { Clock } from '../../shared/clock.js';
import type { IdempotencyRepository, StoredScope } from './idempotency.repository.js';

/**
 * Idempotency keys of writes: a key is reserved (status null) before the write runs, completed
 * with the response it produced, and replayed to later requests with the same key and the same
 * request. Version-agnostic: the API layer decides which requests take part and what a response is.
 */

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * The key as stored: its SHA-256 (hex), never the key itself. A client may send a secret as a key (a
 * token pasted in the wrong header); the database keeps only a digest. Keys stored raw before this
 * change no longer match: a retry that spans the upgrade is treated as a new request (they expire in 24 h).
 */
export const storedKey = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

/** Where a key is valid: one token, one method, one path. */
export interface IdempotencyScope {
  tokenId: number;
  key: string;
  method: string;
  path: string;
}

type Reservation =
  | { kind: 'reserved' }
  /** Another request already completed with this key and the same request: its response. */
  | { kind: 'replay'; status: number; body: string; requestId: string }
  /** The key was used for a different request. */
  | { kind: 'mismatch' }
  /** The first request with this key has not completed yet. */
  | { kind: 'in_progress' };

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The fingerprint of a parsed JSON body: key order and whitespace do not matter, values do. */
export function hashJsonRequest(body: unknown): string {
  return `json:${sha256(JSON.stringify(canonical(body ?? null)))}`;
}

export interface MultipartFileDigest {
  /** The form field the file came in, e.g. `attachments[]`. */
  field: string;
  /** The file name as sent. */
  filename: string;
  /** Hex SHA-256 of the file's bytes. */
  sha256: string;
}

/**
 * The fingerprint of a multipart request: its text fields (order of names irrelevant) and, in
 * the order sent, each file's field, name and SHA-256. Upload routes compute the digests while
 * streaming the files and pass this to the API layer's idempotency gate before writing.
 */
export function hashMultipartRequest(fields: readonly (readonly [string, string])[], files: readonly MultipartFileDigest[]): string {
  const sortedFields = [...fields].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return `multipart:${sha256(JSON.stringify({ fields: sortedFields, files: files.map((f) => [f.field, f.filename, f.sha256]) }))}`;
}

export function createIdempotencyService(repo: IdempotencyRepository, clock: Clock) {
  const stored = (scope: IdempotencyScope): StoredScope => ({
    tokenId: scope.tokenId,
    storedKey: storedKey(scope.key),
    method: scope.method,
    path: scope.path,
  });

  const service = {
    /**
     * Reserves the key for this request, or tells what holds it. Race-safe on every dialect: one
     * INSERT … ON CONFLICT statement either creates the row, takes over an expired one, or does nothing.
     */
    async reserve(scope: IdempotencyScope, requestHash: string, requestId: string): Promise<Reservation> {
      const now = clock.now();
      const nowIso = now.toISOString();
      const row = {
        token_id: scope.tokenId,
        key: storedKey(scope.key),
        method: scope.method,
        path: scope.path,
        request_hash: requestHash,
        status: null,
        response_body: null,
        request_id: requestId,
        created_at: nowIso,
        expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
      };
      // A row released (5xx) or expired between the two statements is retried a few times.
      for (let attempt = 0; attempt < 3; attempt++) {
        if (await repo.insertOrTakeOverExpired(row, nowIso)) return { kind: 'reserved' };
        const existing = await repo.findLive(stored(scope), nowIso);
        if (!existing) continue;
        if (existing.request_hash !== requestHash) return { kind: 'mismatch' };
        if (existing.status === null || existing.response_body === null) return { kind: 'in_progress' };
        return { kind: 'replay', status: existing.status, body: existing.response_body, requestId: existing.request_id };
      }
      return { kind: 'in_progress' };
    },

    /** Stores the response of the request that holds the reservation. */
    async complete(scope: IdempotencyScope, requestId: string, status: number, body: string): Promise<void> {
      await repo.complete(stored(scope), requestId, status, body);
    },

    /** Drops the reservation (the request failed on our side): the key may be used again. */
    async release(scope: IdempotencyScope, requestId: string): Promise<void> {
      await repo.release(stored(scope), requestId);
    },
  };
  return service;
}

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
