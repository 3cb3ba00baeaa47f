import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { makePdf } from '../../../test/helpers/plans.js';
import { openPdf } from './pdf-document.js';

const digest = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * A page's pixels are a view on the document's one canvas (no copy of ~70 MB per A1 page), valid until the next
 * render(): they must hold the page itself, not memory freed under them (a resize before the tiling read them
 * made a node run from dist/ die of SIGSEGV at the first plan it tiled).
 */
describe('openPdf', () => {
  it("hands each page's own pixels out, still the page's when the caller reads them", async () => {
    const pdf = await openPdf(new Uint8Array(await makePdf({ pages: 2, size: 'A5', lines: 60 })));
    try {
      const first = await pdf.render(1, 1);
      const copy = Buffer.from(first.raw);
      // What the tiling does next: reads them, on the thread pool, while the event loop goes on.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(digest(first.raw)).toBe(digest(copy));
      expect(first.raw.length).toBe(first.width * first.height * 4);
      // White paper with dark line work.
      expect(first.raw.some((byte) => byte < 128)).toBe(true);
      expect(first.raw.filter((byte) => byte === 255).length).toBeGreaterThan(first.raw.length / 2);
      const second = await pdf.render(2, 2);
      expect(second.width).toBeGreaterThan(first.width * 1.9);
      expect(second.raw.length).toBe(second.width * second.height * 4);
      expect(second.raw.some((byte) => byte < 128)).toBe(true);
    } finally {
      await pdf.close();
    }
  });
});
