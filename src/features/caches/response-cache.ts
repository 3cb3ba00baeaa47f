import { ownsWholeBuffer } from '../../shared/bytes.js';
import type { Deflated } from '../../http/gzip.js';

/**
 * Answers kept serialized (UTF-8 bytes, off the JavaScript heap), each valid for one version of what it was built from
 * (docs/performance.md, "Caches"). The version is read from the database before the answer is built
 * (cache-versions.repository.ts), so an entry holds a state at least as new as its version, and it is
 * served only while the database still has that version: never older than the last committed write.
 * Least recently used entries go first once the bytes pass `maxBytes`; nodes share nothing but the
 * database.
 */
export interface ResponseCache {
  get(key: string, version: string): CachedResponse | undefined;
  set(key: string, version: string, response: CachedResponse): void;
  readonly stats: { hits: number; misses: number; entries: number; bytes: number };
}

export interface CachedResponse {
  /** The envelope's `data`, serialized as UTF-8. */
  data: Buffer;
  etag: string;
  /** The same deflated, for gzip answers (a tree: features/offload). */
  deflated?: Deflated;
}

interface Entry extends CachedResponse {
  version: string;
  bytes: number;
}

/**
 * The bytes as the cache keeps them: its own copy when they are a view into a larger buffer. A card (~2 KB) made by
 * `Buffer.from(text)` is a slice of Node's shared 8 KB pool, and kept for minutes it would pin the whole slab
 * and whatever else was cut from it: with the benchmark's cards, a full 32 MB cache held 66–116 MB of
 * ArrayBuffers (docs/performance.md, "Issue 31: server RSS"). The copy is exactly its size.
 */
function ownBytes<T extends Uint8Array>(data: T): T | Buffer {
  if (ownsWholeBuffer(data)) return data;
  const copy = Buffer.allocUnsafeSlow(data.byteLength);
  copy.set(data);
  return copy;
}

/** An entry's size in memory, roughly: the bytes, and two bytes per UTF-16 unit of the strings. */
const sizeOf = (key: string, response: CachedResponse) =>
  response.data.length + (response.deflated?.deflated.length ?? 0) + 2 * (key.length + response.etag.length) + 64;

export function createResponseCache(maxBytes: number): ResponseCache | null {
  if (maxBytes <= 0) return null;
  // A Map iterates in insertion order: re-inserting on every hit keeps the least recently used first.
  const entries = new Map<string, Entry>();
  const stats = { hits: 0, misses: 0, entries: 0, bytes: 0 };

  const remove = (key: string, entry: Entry) => {
    entries.delete(key);
    stats.bytes -= entry.bytes;
    stats.entries = entries.size;
  };

  return {
    get(key, version) {
      const entry = entries.get(key);
      if (entry?.version !== version) {
        if (entry) remove(key, entry);
        stats.misses++;
        return undefined;
      }
      entries.delete(key);
      entries.set(key, entry);
      stats.hits++;
      return entry;
    },
    set(key, version, response) {
      const old = entries.get(key);
      if (old) remove(key, old);
      const bytes = sizeOf(key, response);
      if (bytes > maxBytes / 4) return;
      const deflated = response.deflated && { ...response.deflated, deflated: ownBytes(response.deflated.deflated) };
      entries.set(key, { data: ownBytes(response.data), etag: response.etag, deflated, version, bytes });
      stats.bytes += bytes;
      for (const [oldest, entry] of entries) {
        if (stats.bytes <= maxBytes) break;
        remove(oldest, entry);
      }
      stats.entries = entries.size;
    },
    stats,
  };
}
