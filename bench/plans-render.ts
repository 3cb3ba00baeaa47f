/**
 * Where a plan page's time goes, without a server: the benchmark's A1 drawing (bench/lib/drawing-pdf.ts) rendered
 * and tiled as the rendering process does it (pdf-document.ts, then plan-sheets.ts's tileSheet), each phase timed.
 *
 *   node --import tsx bench/plans-render.ts [PAGES]              (default 4)
 *   node --cpu-prof --cpu-prof-dir=data/bench/profiles/plans-render --import tsx bench/plans-render.ts 4
 *
 * then `node --import tsx bench/profile-top.ts data/bench/profiles/plans-render`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openPdf } from '../src/features/plans/pdf-document.js';
import { pdfPageScale, SHEET_BOUNDS } from '../src/features/plans/plan-render-tasks.js';
import { tileSheet } from '../src/imaging/plan-sheets.js';
import { drawingPdf } from './lib/drawing-pdf.js';

const PAGES = Number(process.argv[2] ?? 4);
const dir = mkdtempSync(join(tmpdir(), 'plans-render-'));
const cpu = () => process.cpuUsage();
const ms = (n: number) => Math.round(n);
try {
  const pdf = await openPdf(new Uint8Array(await drawingPdf(PAGES)));
  const totals = { render: 0, tile: 0 };
  const started = performance.now();
  const cpuStarted = cpu();
  for (let page = 1; page <= PAGES; page++) {
    let t = performance.now();
    const pixels = await pdf.render(page, pdfPageScale(await pdf.pageSize(page)));
    const render = performance.now() - t;
    t = performance.now();
    await tileSheet(pixels, join(dir, `p${page}`), SHEET_BOUNDS);
    const tile = performance.now() - t;
    totals.render += render;
    totals.tile += tile;
    process.stderr.write(`page ${page} (${pixels.width}×${pixels.height}): render ${ms(render)} ms, tile ${ms(tile)} ms\n`);
  }
  const used = cpu();
  const cpuMs = (used.user + used.system - cpuStarted.user - cpuStarted.system) / 1000;
  const wall = performance.now() - started;
  process.stderr.write(
    `${PAGES} pages in ${ms(wall)} ms (${ms(wall / PAGES)} ms a page): render ${ms(totals.render)} ms, tile ${ms(totals.tile)} ms; ` +
      `CPU ${ms(cpuMs)} ms (${(cpuMs / wall).toFixed(2)} cores); peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB\n`,
  );
  await pdf.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
