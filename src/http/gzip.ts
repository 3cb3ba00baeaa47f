import { constants, crc32, deflateRawSync } from 'node:zlib';

/**
 * Bytes deflated ahead of the answers that send them (a project tree, in the worker that built it): raw deflate
 * blocks that end on a byte boundary without a final block, so that more can follow them in one gzip member, and the
 * CRC-32 of the bytes. An answer then deflates only its own small parts around them (`gzipParts`).
 */
export interface Deflated {
  deflated: Uint8Array;
  crc: number;
  length: number;
}

/**
 * Level 1: a 5 000-item tree (~1 MB of JSON) deflates to ~10 % of it in a few milliseconds; the higher levels
 * cost two to four times that for a few per cent less (docs/performance.md, "Trees sent gzipped").
 */
const LEVEL = 1;

export function deflateAhead(bytes: Uint8Array): Deflated {
  const deflated = deflateRawSync(bytes, { level: LEVEL, finishFlush: constants.Z_FULL_FLUSH });
  return { deflated, crc: crc32(bytes), length: bytes.length };
}

/**
 * One gzip member (RFC 1952) of the pieces in order, as the buffers to write: what was deflated ahead is sent as it
 * is, the plain pieces between (an envelope's head, its meta) are deflated here. Each piece's deflate stream starts
 * afresh, so none refers back into another, and only the last ends with a final block.
 */
export function gzipParts(pieces: (Uint8Array | Deflated)[]): Buffer[] {
  const parts: Buffer[] = [GZIP_HEADER];
  let crc = 0;
  let length = 0;
  pieces.forEach((piece, i) => {
    const last = i === pieces.length - 1;
    if (piece instanceof Uint8Array) {
      const finishFlush = last ? constants.Z_FINISH : constants.Z_FULL_FLUSH;
      parts.push(deflateRawSync(piece, { level: LEVEL, finishFlush }));
      crc = crc32Combine(crc, crc32(piece), piece.length);
      length += piece.length;
    } else {
      if (last) throw new Error('the last piece of a gzip member is deflated with it, not ahead');
      parts.push(Buffer.from(piece.deflated.buffer, piece.deflated.byteOffset, piece.deflated.byteLength));
      crc = crc32Combine(crc, piece.crc, piece.length);
      length += piece.length;
    }
  });
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc, 0);
  trailer.writeUInt32LE(length % 2 ** 32, 4);
  parts.push(trailer);
  return parts;
}

/** Magic, deflate, no flags, no time, no extra flags, OS unknown. */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);

/** Whether an `Accept-Encoding` allows gzip (RFC 9110 §12.5.3): named, or `*`, and not with q=0. */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  let gzip: boolean | undefined;
  let any = false;
  for (const entry of header.split(',')) {
    const [coding = '', ...params] = entry.split(';').map((s) => s.trim().toLowerCase());
    const refused = params.some((p) => /^q=0(\.0{0,3})?$/.test(p));
    if (coding === 'gzip' || coding === 'x-gzip') gzip = !refused;
    else if (coding === '*') any = !refused;
  }
  return gzip ?? any;
}

// CRC-32 of two pieces joined, from theirs (zlib's crc32_combine, which Node does not expose): the first CRC
// multiplied by x^(8 × second length) modulo the CRC polynomial, plus the second.
const POLYNOMIAL = 0xedb88320;

/** a × b modulo the polynomial, both reflected as CRC-32 keeps them. */
function multiplyModP(a: number, b: number): number {
  let product = 0;
  for (let bit = 0x80000000; bit !== 0; bit >>>= 1) {
    if (a & bit) product ^= b;
    b = b & 1 ? (b >>> 1) ^ POLYNOMIAL : b >>> 1;
  }
  return product >>> 0;
}

/** x^(2^k) modulo the polynomial, k = 0..31. */
const X_TO_2_TO_K: number[] = [];
for (let k = 0, p = 0x40000000; k < 32; k++, p = multiplyModP(p, p)) X_TO_2_TO_K.push(p);

/** x^(8n) modulo the polynomial. */
function xToBytes(n: number): number {
  let p = 0x80000000;
  for (let k = 3; n > 0; n = Math.floor(n / 2), k++) if (n % 2) p = multiplyModP(X_TO_2_TO_K[k % 32]!, p);
  return p;
}

export function crc32Combine(first: number, second: number, secondLength: number): number {
  return (multiplyModP(xToBytes(secondLength), first) ^ second) >>> 0;
}
