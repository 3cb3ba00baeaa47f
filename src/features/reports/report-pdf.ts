import { performance } from 'node:perf_hooks';
import { PassThrough, type Readable } from 'node:stream';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { item } from './report-pdf-items.js';
import { cover, footer, planPage } from './report-pdf-pages.js';
import { BUFFERED_LIMIT, createPrinter, type Printer, SLICE_MS } from './report-pdf-printer.js';
import type { ReportHeading, ReportRow } from './report-rows.js';

export { printable } from './report-pdf-printer.js';

/**
 * The punch list as an A4 PDF: a cover (the project, its progress and counters, who made the report and
 * when), one page per plan with items of the report on it (the sheet fitted to the page, each item a circle
 * numbered as in the list: docs/design.md §19), then the numbered items by section and checklist with their status, planning, participants, last answer
 * and its review, verdict and photo thumbnails. Every page has a footer with its number, the date and who
 * made it ("Page N": the total is unknown while streaming). Written item by item, yielding to the event
 * loop between items and waiting while the reader is behind, so nothing but the fonts and one page of
 * items is held in memory.
 */
export function pdfReport(heading: ReportHeading, pages: AsyncIterable<ReportRow[]>): Readable {
  const out = new PassThrough({ highWaterMark: 256 * 1024 });
  const p = createPrinter(heading, out);
  let pageNumber = 0;
  p.doc.on('pageAdded', () => footer(p, ++pageNumber));
  render(p, pages).catch((err: unknown) => out.destroy(err instanceof Error ? err : new Error(String(err))));
  return out;
}

/** Waits while the document holds more than BUFFERED_LIMIT bytes the reader has not taken. */
async function readerCaughtUp(p: Printer) {
  while (p.doc.readableLength > BUFFERED_LIMIT && !p.out.destroyed) {
    // 'drain' resumes the document; the timer covers a drain that happened just before we listened.
    let wake = () => {};
    const drained = new Promise<void>((resolve) => {
      wake = resolve;
      p.out.once('drain', wake);
      p.out.once('close', wake);
    });
    await Promise.race([drained, sleep(25)]);
    p.out.off('drain', wake).off('close', wake);
  }
}

/** The cover, the plans' pages, then the items page by page, yielding to the event loop every SLICE_MS. */
async function render(p: Printer, pages: AsyncIterable<ReportRow[]>) {
  cover(p);
  if (p.heading.items === 0) p.doc.moveDown().text(p.t('report.noItems'));
  for (const plan of p.heading.plans) {
    if (p.out.destroyed) return;
    await planPage(p, plan);
    await readerCaughtUp(p);
  }
  let first = true;
  let sliceStart = performance.now();
  for await (const page of pages) {
    for (const row of page) {
      if (p.out.destroyed) return;
      if (first) p.doc.addPage();
      first = false;
      item(p, row);
      await readerCaughtUp(p);
      if (performance.now() - sliceStart >= SLICE_MS) {
        await nextTurn();
        sliceStart = performance.now();
      }
    }
  }
  p.doc.end();
}
