import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { invalidField } from '../../i18n/reasons.js';
import { ImageRejected } from '../../imaging/images.js';
import { fitScale, inspectPlanImage, type SheetBounds, tileSheet, type TiledSheet } from '../../imaging/plan-sheets.js';
import { openPdf, type PdfPage, PdfRejected } from './pdf-document.js';
import type { Inspection, RenderTask } from './plan-render-protocol.js';

/**
 * What a plan's rendering process does (plan-render-process.ts runs one task, plan-renderer.ts starts it): read a
 * file (what it is, its pages), or render its pages into tile folders, telling each page done. pdf.js, its canvas
 * and sharp's tiling run here, never on the server's event loop.
 */

/** Resolution of a PDF page: 150 dpi-equivalent keeps a 2 mm line about 12 px wide (docs/decisions.md). */
const PDF_DPI = 150;
/** An image or a page is tiled at most this large: ~96 MB of RGBA at once, A1 at 150 dpi fits whole. */
export const SHEET_BOUNDS: SheetBounds = { maxSide: 8192, maxPixels: 24_000_000 };
/** The smallest side of an image plan (docs/design.md §6's rule for images). */
const MIN_SIDE = 16;
/** An image plan may have at most this many pixels (decoded ~400 MB at most, streamed by libvips). */
const MAX_IMAGE_PIXELS = 100_000_000;

/** Pixels per point a PDF page is rendered at: PDF_DPI, less when the page would not fit SHEET_BOUNDS. */
export function pdfPageScale(size: PdfPage): number {
  const scale = PDF_DPI / 72;
  return scale * fitScale(size.width * scale, size.height * scale, SHEET_BOUNDS);
}

function isPdf(bytes: Uint8Array): boolean {
  // The header may follow up to 1 KB of junk (PDF 1.7, §7.5.2), as readers accept.
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).includes('%PDF-');
}

/** A refusal the uploader reads (422), from what pdf.js or sharp said. */
export function refusal(err: unknown): Error {
  if (err instanceof PdfRejected) return invalidField('file', err.key);
  if (err instanceof ImageRejected) {
    if (err.problem === 'not_an_image') return invalidField('file', 'reason.plan.notPlan');
    return invalidField('file', err.reason.key, err.reason.values);
  }
  return err as Error;
}

export async function inspectFile(task: Extract<RenderTask, { kind: 'inspect' }>): Promise<Inspection> {
  const bytes = await readFile(task.path);
  if (bytes.length === 0) throw invalidField('file', 'reason.plan.empty');
  if (isPdf(bytes)) {
    const pdf = await openPdf(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length));
    try {
      if (pdf.pages > task.maxPages) throw invalidField('file', 'reason.plan.pages', { pages: pdf.pages, max: task.maxPages });
      // Every page is looked at once: a page that cannot even be parsed refuses the file now, not minutes later.
      for (let page = 1; page <= pdf.pages; page++) {
        const size = await pdf.pageSize(page);
        if (!(size.width > 0 && size.height > 0)) throw invalidField('file', 'reason.plan.pageSize', { page });
      }
      return { source: 'pdf' as const, pages: pdf.pages };
    } finally {
      await pdf.close();
    }
  }
  const image = await inspectPlanImage(bytes, { minSide: MIN_SIDE, maxPixels: MAX_IMAGE_PIXELS });
  return { source: image.format, pages: 1 };
}

export async function renderFile(
  task: Extract<RenderTask, { kind: 'render' }>,
  onPage: (page: number, sheet: TiledSheet) => void,
): Promise<TiledSheet[]> {
  const bytes = await readFile(task.path);
  const sheets: TiledSheet[] = [];
  const folder = async (page: number) => {
    const dir = join(task.outDir, `p${page}`);
    await mkdir(dir, { recursive: true });
    return dir;
  };
  if (task.source !== 'pdf') {
    const sheet = await tileSheet({ bytes }, await folder(1), SHEET_BOUNDS);
    onPage(1, sheet);
    return [sheet];
  }
  const pdf = await openPdf(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length));
  try {
    for (const page of task.pages) {
      const pixels = await pdf.render(page, pdfPageScale(await pdf.pageSize(page)));
      const sheet = await tileSheet(pixels, await folder(page), SHEET_BOUNDS);
      sheets.push(sheet);
      onPage(page, sheet);
    }
  } finally {
    await pdf.close();
  }
  return sheets;
}
