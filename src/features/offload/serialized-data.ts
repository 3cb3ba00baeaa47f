import type { Deflated } from '../../http/gzip.js';

/**
 * A handler's `data` already serialized, as UTF-8 bytes (a worker thread built it, off the event loop): v1 sends
 * it in the envelope as it is (api/v1/operation-route.ts) instead of serializing an object copied across threads.
 * Bytes, not a string: a tree is ~1 MB, and as a string each answer would put two such strings on the main
 * thread's heap (the envelope around it, then its UTF-8 copy for the socket) — old-generation garbage that
 * made the collector pause every request in flight (docs/performance.md, "Issue 31 on 2026-11-27").
 * `deflated`, when the worker made it, is the same bytes deflated for the clients that accept gzip.
 */
export class SerializedData {
  constructor(
    readonly bytes: Buffer,
    readonly deflated?: Deflated,
  ) {}
}
