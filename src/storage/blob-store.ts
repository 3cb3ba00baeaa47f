import type { Readable } from 'node:stream';

/**
 * Where attachment bytes live. Shaped after S3 so the disk and S3 implementations are interchangeable:
 * flat string keys, whole-object writes, no directories, no partial reads.
 */
export interface BlobStore {
  /** Atomic: readers see the old blob or the new one under `key`, never a half-written one. */
  put(key: string, data: Buffer, contentType: string): Promise<void>;
  /** `null` when absent. The caller must consume or destroy the stream. */
  get(key: string): Promise<{ stream: Readable; size: number } | null>;
  /** Deleting an absent key is not an error. */
  delete(key: string): Promise<void>;
  /** Every key starting with `prefix` (a plain string prefix, as in S3), for orphan sweeps. */
  list(prefix: string): AsyncIterable<string>;
  /** When the blob was last written; `null` when absent. For orphan sweeps, which spare recent blobs. */
  modifiedAt(key: string): Promise<Date | null>;
  /**
   * Removes what interrupted writes left behind in the store's own scratch space (not blobs), if the
   * store has one, when older than `olderThan`. Returns how many leftovers were removed.
   */
  clearLeftovers(olderThan: Date): Promise<number>;
  /**
   * Makes the stored bytes readable by the service's own account only (a disk store: folders 0700, files
   * 0600), tightening what was written wider before; returns how many entries changed. At start.
   */
  restrictToOwner(): Promise<number>;
  /** Readiness: throws when the storage cannot be written. */
  check(): Promise<void>;
}

const MAX_KEY_LENGTH = 512;
// A segment may not start with '.': that refuses '.' and '..' and keeps names such as `.tmp` free for the
// store's own bookkeeping.
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

/** Keys look like `items/1000/<uuid>.webp`; anything that could escape a root directory is refused. */
export function isValidKey(key: string): boolean {
  return key.length > 0 && key.length <= MAX_KEY_LENGTH && key.split('/').every((s) => SEGMENT.test(s));
}

export function assertValidKey(key: string): void {
  if (!isValidKey(key)) throw new Error(`Invalid blob key ${JSON.stringify(key.slice(0, 80))}`);
}
