/**
 * Whether a view covers its whole ArrayBuffer, so that keeping it (a cache) or transferring it (to or from a worker
 * thread) holds or moves only its own bytes: a slice of Node's 8 KB pool, or of a larger buffer, does not.
 */
export function ownsWholeBuffer(view: Uint8Array): boolean {
  return view.byteOffset === 0 && view.byteLength === view.buffer.byteLength;
}
