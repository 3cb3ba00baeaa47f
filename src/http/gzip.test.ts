import { execFileSync } from 'node:child_process';
import { crc32, gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acceptsGzip, crc32Combine, deflateAhead, gzipParts } from './gzip.js';

const bytes = fc.uint8Array({ maxLength: 3000 }).map((b) => Buffer.from(b));
/** Text that deflates well, as JSON does, and long enough for several deflate blocks. */
const text = fc
  .string({ unit: fc.constantFrom('{"id":', '1', '7', ',', '"Проверка"', '}', ' '), maxLength: 40_000 })
  .map((s) => Buffer.from(s));

describe('gzip answers built of pieces deflated ahead', () => {
  it('combines the CRC-32 of two pieces into that of both', () => {
    fc.assert(
      fc.property(bytes, bytes, (a, b) => {
        expect(crc32Combine(crc32(a), crc32(b), b.length)).toBe(crc32(Buffer.concat([a, b])));
      }),
    );
  });

  it('makes one gzip member of the pieces in order, whichever of them (but the last) were deflated ahead', () => {
    const piece = fc.tuple(fc.oneof(bytes, text), fc.boolean());
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 5 }), fc.oneof(bytes, text), (middle, last) => {
        const pieces = [...middle.map(([b, ahead]) => (ahead ? deflateAhead(b) : b)), last];
        const gzip = Buffer.concat(gzipParts(pieces));
        expect(gunzipSync(gzip)).toEqual(Buffer.concat([...middle.map(([b]) => b), last]));
      }),
      { numRuns: 60 },
    );
  });

  it('is read by the gzip program as one valid member', () => {
    const data = Buffer.from(JSON.stringify(Array.from({ length: 3000 }, (_, id) => ({ id, title: `Пункт ${id}` }))));
    const gzip = Buffer.concat(gzipParts([Buffer.from('{"data":'), deflateAhead(data), Buffer.from('}')]));
    expect(gzip.length).toBeLessThan(data.length / 4);
    expect(execFileSync('gzip', ['--decompress', '--stdout'], { input: gzip })).toEqual(
      Buffer.concat([Buffer.from('{"data":'), data, Buffer.from('}')]),
    );
  });

  it('refuses a last piece deflated ahead (it would lack the final block)', () => {
    expect(() => gzipParts([deflateAhead(Buffer.from('x'))])).toThrow(/last piece/);
  });

  it.each([
    [undefined, false],
    ['', false],
    ['gzip', true],
    ['gzip, deflate, br, zstd', true],
    ['br;q=1.0, GZip;q=0.5', true],
    ['x-gzip', true],
    ['*', true],
    ['identity', false],
    ['deflate, br', false],
    ['gzip;q=0', false],
    ['gzip; q=0.000, *', false],
    ['*;q=0', false],
    ['br, *;q=0.1', true],
  ])('Accept-Encoding %j allows gzip: %s', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
});
