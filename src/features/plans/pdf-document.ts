import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { message, type MessageKey } from '../../i18n/i18n.js';

/**
 * The one file that knows pdf.js (`pdfjs-dist`, its legacy build for Node) and its canvas (`@napi-rs/canvas`,
 * Skia in an npm package: no system library), behind a small interface: open a PDF, its pages' sizes, a page's
 * pixels. Used only in a plan rendering process (plan-render-tasks.ts), never on the server.
 */

/** Why a PDF is refused: the reason (a key of reasons.json, its English the message) is for the uploader (422). */
export class PdfRejected extends Error {
  override readonly name = 'PdfRejected';

  constructor(
    readonly key: MessageKey,
    options?: ErrorOptions,
  ) {
    super(message('en', key), options);
  }
}

export interface PdfPage {
  /** In PDF points (1/72 in), as displayed (rotation applied). */
  width: number;
  height: number;
}

export interface PdfDocument {
  readonly pages: number;
  pageSize(page: number): Promise<PdfPage>;
  /**
   * The page's pixels (RGBA, on white) at `scale` pixels per point: a view on the document's one canvas, valid
   * until the next render() or close() (which free it); use them, or copy them, before.
   */
  render(page: number, scale: number): Promise<{ raw: Buffer; width: number; height: number }>;
  close(): Promise<void>;
}

// pdf.js's own data files, from its package: the 14 standard fonts (a PDF may use them without embedding them,
// as PDFKit does), CMaps of CJK text, and its WebAssembly decoders (JPEG 2000, colour profiles).
const packageDir = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
const dataDir = (name: string) => `${join(packageDir, name)}/`;

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
type Canvas = typeof import('@napi-rs/canvas');
let modules: Promise<[PdfJs, Canvas]> | null = null;
const load = () => (modules ??= Promise.all([import('pdfjs-dist/legacy/build/pdf.mjs'), import('@napi-rs/canvas')]));

/** Opens a PDF from its bytes; throws PdfRejected when it is broken, needs a password, or has no page. */
export async function openPdf(data: Uint8Array): Promise<PdfDocument> {
  const [pdfjs, canvases] = await load();
  const task = pdfjs.getDocument({
    data,
    // No code from the file is ever compiled (pdf.js would otherwise build fonts' drawing functions with eval).
    isEvalSupported: false,
    verbosity: 0,
    standardFontDataUrl: dataDir('standard_fonts'),
    cMapUrl: dataDir('cmaps'),
    cMapPacked: true,
    wasmUrl: dataDir('wasm'),
    iccUrl: dataDir('iccs'),
  });
  let document;
  try {
    document = await task.promise;
  } catch (err) {
    await task.destroy();
    const name = (err as { name?: string } | null)?.name;
    if (name === 'PasswordException') throw new PdfRejected('reason.pdf.encrypted', { cause: err });
    throw new PdfRejected('reason.pdf.unreadable', { cause: err });
  }
  if (document.numPages < 1) {
    await task.destroy();
    throw new PdfRejected('reason.pdf.noPage');
  }
  // One canvas for every page: its pixels are native memory that only a garbage collection of the object would
  // free, so a canvas per page would hold every page's pixels until V8 collects (tens of MB each).
  const canvas = canvases.createCanvas(1, 1);
  return {
    pages: document.numPages,
    async pageSize(number) {
      const page = await document.getPage(number);
      const { width, height } = page.getViewport({ scale: 1 });
      return { width, height };
    },
    async render(number, scale) {
      const page = await document.getPage(number);
      try {
        const viewport = page.getViewport({ scale });
        const width = Math.max(1, Math.floor(viewport.width));
        const height = Math.max(1, Math.floor(viewport.height));
        canvas.width = width;
        canvas.height = height;
        const context = canvas.getContext('2d');
        // pdf.js paints the page's white itself (its `background`): a fill of ours before it was the same ~70 MB
        // written twice for an A1 page (docs/performance.md, "Plans").
        await page.render({ canvas: canvas as never, canvasContext: context as never, viewport, background: '#ffffff' }).promise;
        // Not copied: data() is a view on the canvas's surface, freed by the next page's resize or by close(), so
        // the page is held once while it is tiled (a copy cost ~70 MB and a fifth of the renderer's CPU for an A1
        // page; freed before its tiling, it crashed the process: docs/performance.md, "Plans").
        return { raw: canvas.data(), width, height };
      } finally {
        page.cleanup();
      }
    },
    async close() {
      canvas.width = 1;
      canvas.height = 1;
      await task.destroy();
    },
  };
}
