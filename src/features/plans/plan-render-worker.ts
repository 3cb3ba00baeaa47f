import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { ApiError, validationError } from '../../errors.js';
import { ImageRejected } from '../../imaging/images.js';
import { fitScale, inspectPlanImage, type SheetBounds, tileSheet, type TiledSheet } from '../../imaging/plan-sheets.js';
import { openPdf, PdfRejected } from './pdf-document.js';
import type { RenderMessage, RenderTask } from './plan-render-protocol.js';

/**
 * The code of a plan's rendering thread (plan-renderer.ts starts one per task, with a memory limit and a
 * deadline): pdf.js, its canvas and sharp's tiling run here, never on the event loop. One task per thread: read
 * a file (what it is, its pages), or render its pages into tile folders, telling each page done.
 */

/** Resolution of a PDF page: 150 dpi-equivalent keeps a 2 mm line about 12 px wide (docs/decisions.md). */
const PDF_DPI = 150;
/** An image or a page is tiled at most this large: ~96 MB of RGBA at once, A1 at 150 dpi fits whole. */
export const SHEET_BOUNDS: SheetBounds = { maxSide: 8192, maxPixels: 24_000_000 };
/** The smallest side of an image plan (docs/design.md §6's rule for images). */
const MIN_SIDE = 16;
/** An image plan may have at most this many pixels (decoded ~400 MB at most, streamed by libvips). */
const MAX_IMAGE_PIXELS = 100_000_000;

const post = (message: RenderMessage) => parentPort!.postMessage(message);

function isPdf(bytes: Uint8Array): boolean {
  // The header may follow up to 1 KB of junk (PDF 1.7, §7.5.2), as readers accept.
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).includes('%PDF-');
}

/** A refusal the uploader reads (422), from what pdf.js or sharp said. */
function refusal(err: unknown): Error {
  if (err instanceof PdfRejected) return validationError('file', err.message);
  if (err instanceof ImageRejected) {
    if (err.problem === 'not_an_image') return validationError('file', 'The file is not a plan: upload a PDF, PNG, JPEG or WebP file');
    return validationError('file', err.message);
  }
  return err as Error;
}

async function inspect(task: Extract<RenderTask, { kind: 'inspect' }>) {
  const bytes = await readFile(task.path);
  if (bytes.length === 0) throw validationError('file', 'The file is empty');
  if (isPdf(bytes)) {
    const pdf = await openPdf(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length));
    try {
      if (pdf.pages > task.maxPages) throw validationError('file', `The PDF has ${pdf.pages} pages; at most ${task.maxPages} are accepted`);
      // Every page is looked at once: a page that cannot even be parsed refuses the file now, not minutes later.
      for (let page = 1; page <= pdf.pages; page++) {
        const size = await pdf.pageSize(page);
        if (!(size.width > 0 && size.height > 0)) throw validationError('file', `Page ${page} of the PDF has no size`);
      }
      return { source: 'pdf' as const, pages: pdf.pages };
    } finally {
      await pdf.close();
    }
  }
  const image = await inspectPlanImage(bytes, { minSide: MIN_SIDE, maxPixels: MAX_IMAGE_PIXELS });
  return { source: image.format, pages: 1 };
}

async function render(task: Extract<RenderTask, { kind: 'render' }>) {
  const bytes = await readFile(task.path);
  const sheets: TiledSheet[] = [];
  const folder = async (page: number) => {
    const dir = join(task.outDir, `p${page}`);
    await mkdir(dir, { recursive: true });
    return dir;
  };
  if (task.source !== 'pdf') {
    const sheet = await tileSheet({ bytes }, await folder(1), SHEET_BOUNDS);
    post({ type: 'progress', page: 1, sheet });
    return [sheet];
  }
  const pdf = await openPdf(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length));
  try {
    for (const page of task.pages) {
      const size = await pdf.pageSize(page);
      const scale = (PDF_DPI / 72) * fitScale((size.width * PDF_DPI) / 72, (size.height * PDF_DPI) / 72, SHEET_BOUNDS);
      const pixels = await pdf.render(page, scale);
      const sheet = await tileSheet(pixels, await folder(page), SHEET_BOUNDS);
      sheets.push(sheet);
      post({ type: 'progress', page, sheet });
    }
  } finally {
    await pdf.close();
  }
  return sheets;
}

const task = (workerData as { task: RenderTask }).task;
try {
  const value = task.kind === 'inspect' ? await inspect(task) : await render(task);
  post({ type: 'result', value });
} catch (err) {
  const error = refusal(err);
  post({
    type: 'error',
    error:
      error instanceof ApiError
        ? {
            message: error.details?.[0]?.message ?? error.message,
            status: error.status,
            code: error.code,
            field: error.details?.[0]?.field,
          }
        : { message: error instanceof Error ? error.message : String(error) },
  });
}
