import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { inflateSync } from 'node:zlib';

/**
 * The report's fallback font: UnifontEX (npm `@fontsource/unifontex`, SIL OFL 1.1), one file with a glyph for
 * every character of the BMP (Chinese, Japanese, Korean among them) and the emoji; docs/decisions.md, "Report
 * fonts". The package ships it as WOFF, which PDFKit's font reader decompresses again at every glyph it reads
 * (seconds per line for a font this size), so it is unpacked once per process into the plain TrueType file it
 * wraps (13.8 MB in memory, kept while the process lives).
 */
const WOFF_FILE = join(
  dirname(createRequire(import.meta.url).resolve('@fontsource/unifontex/package.json')),
  'files',
  'unifontex-latin-400-normal.woff',
);

let font: Buffer | undefined;

export function fallbackFont(): Buffer {
  font ??= woffToSfnt(readFileSync(WOFF_FILE));
  return font;
}

/** WOFF 1.0 (W3C): the same tables as the sfnt font, each zlib-compressed; the sfnt rebuilt around them. */
export function woffToSfnt(woff: Buffer): Buffer {
  if (woff.toString('latin1', 0, 4) !== 'wOFF') throw new Error('not a WOFF 1.0 font');
  const flavor = woff.readUInt32BE(4);
  const count = woff.readUInt16BE(12);
  const tables = Array.from({ length: count }, (_, i) => {
    const at = 44 + i * 20;
    const [offset, compressed, length] = [woff.readUInt32BE(at + 4), woff.readUInt32BE(at + 8), woff.readUInt32BE(at + 12)];
    const stored = woff.subarray(offset, offset + compressed);
    const data = compressed < length ? inflateSync(stored) : stored;
    if (data.length !== length) throw new Error('a WOFF table does not unpack to its declared length');
    return { tag: woff.subarray(at, at + 4), checksum: woff.readUInt32BE(at + 16), data };
  });
  const padded = (n: number) => (n + 3) & ~3;
  const headerLength = 12 + 16 * count;
  const sfnt = Buffer.alloc(headerLength + tables.reduce((sum, t) => sum + padded(t.data.length), 0));
  const log2 = Math.floor(Math.log2(count));
  sfnt.writeUInt32BE(flavor, 0);
  sfnt.writeUInt16BE(count, 4);
  sfnt.writeUInt16BE(2 ** log2 * 16, 6);
  sfnt.writeUInt16BE(log2, 8);
  sfnt.writeUInt16BE(count * 16 - 2 ** log2 * 16, 10);
  let offset = headerLength;
  tables.forEach((table, i) => {
    const record = 12 + 16 * i;
    table.tag.copy(sfnt, record);
    sfnt.writeUInt32BE(table.checksum, record + 4);
    sfnt.writeUInt32BE(offset, record + 8);
    sfnt.writeUInt32BE(table.data.length, record + 12);
    table.data.copy(sfnt, offset);
    offset += padded(table.data.length);
  });
  return sfnt;
}
