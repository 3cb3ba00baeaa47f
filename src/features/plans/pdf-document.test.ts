import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { makePdf } from '../../../test/helpers/plans.js';
import { openPdf } from './pdf-document.js';

const digest = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * A page's pixels belong to the caller: the one canvas of the document is resized (its surface freed) after each
 * page and drawn again for the next, so pixels that were a view on it would change or point to freed memory
 * under the tiling that reads them (run from dist/, a node died of SIGSEGV at the first plan it tiled).
 */
describe('openPdf', () => {
  it("hands each page's pixels out as its own copy, untouched by the pages rendered after it", async () => {
    const pdf = await openPdf(new Uint8Array(await makePdf({ pages: 3, size: 'A5', lines: 60 })));
    try {
      const first = await pdf.render(1, 1);
      const before = digest(first.raw);
      const others = [await pdf.render(2, 1), await pdf.render(3, 2)];
      expect(digest(first.raw)).toBe(before);
      expect(first.raw.buffer).not.toBe(others[0]!.raw.buffer);
      // The pixels are the page's: white paper with dark line work, not a freed surface's leftovers.
      expect(first.raw.length).toBe(first.width * first.height * 4);
      expect(first.raw.some((byte) => byte < 128)).toBe(true);
    } finally {
      await pdf.close();
    }
  });
});
