import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/domain/policy.js';
import type { ItemFilter } from '../../src/features/worklists/worklists.service.js';
import { makePdf, tempFile } from '../helpers/plans.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { USERS } from '../helpers/workspace.js';
import { parseCsvReport, pdfImages, pdfText } from './pdf-text.js';

/**
 * Reports with plans (docs/design.md §19, "Reports"): a plan uploaded as a PDF and rendered for real, items of the
 * workspace placed on it and on the workspace's "Ground floor"; the PDF (made in the worker pool) read back with
 * poppler, the CSV parsed back. The list of project 1 is 1000, 1001, 1010, 1011, 2000, 2001, 2010 (numbers 1–7);
 * the partial member sees 1000, 1001, 1010, 1011 and 2010 (numbers 1–5).
 */
let server: TestServer;
const admin: Actor = { id: USERS.admin, role: 'admin' };

beforeAll(async () => {
  server = await startTestServer();
  const { ctx } = server;
  const filename = 'Floor 3.pdf';
  const started = await ctx.planUploads.startUpload(admin, 1, { path: tempFile(await makePdf({ size: 'A5' }), filename), filename });
  await ctx.planUploads.waitForUpload(started.id);
  const ended = await ctx.planUploads.uploadStatus(admin, started.id);
  expect(ended).toMatchObject({ status: 'done', plan_ids: [expect.any(Number)] });
  const floor3 = ended.plan_ids[0]!;
  const { plans } = await ctx.plans.listPlans(admin, 1);
  expect(plans.map((p) => p.name)).toEqual(['Ground floor', 'Floor 3']);
  const groundFloor = plans[0]!.id;
  await ctx.itemLocations.placeItem(admin, 1001, { planId: floor3, x: 0.25, y: 0.5 });
  await ctx.itemLocations.placeItem(admin, 1011, { planId: floor3, x: 0.75, y: 0.25 });
  await ctx.itemLocations.placeItem(admin, 2000, { planId: floor3, x: 0.5, y: 1 });
  await ctx.itemLocations.placeItem(admin, 2001, { planId: groundFloor, x: 0.1, y: 0.9 });
});
afterAll(() => server?.close());

async function pagesOf(bytes: Uint8Array) {
  return { bytes, pages: (await pdfText(bytes)).split('\f') };
}

/** The PDF of project 1 through v1 (the whole list the token's user sees). */
async function pdfOf(token: string) {
  const res = await server.request(`${V1}/projects/report.php?id=1&format=pdf`, { token });
  expect(res.status).toBe(200);
  return pagesOf(new Uint8Array(await res.arrayBuffer()));
}

/** The PDF of project 1 filtered by status, as the project page's "Report" makes it (the worker pool's report). */
async function filteredPdf(status: ItemFilter['status']) {
  const filter = { status, mine: false, overdue: false, q: null, participant: null, sort: 'tree' as const };
  const report = await server.ctx.reports.openReport({ id: USERS.manager, role: 'member' }, 1, {
    format: 'pdf',
    filter,
    madeBy: 'Manager',
  });
  const chunks: Buffer[] = [];
  for await (const chunk of report.stream) chunks.push(chunk as Buffer);
  return pagesOf(new Uint8Array(Buffer.concat(chunks)));
}

/** The numbers written as lines of their own on a page: the pins' numbers. */
const pinNumbers = (page: string) =>
  page
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^\d+$/.test(line))
    .map(Number)
    .sort((a, b) => a - b);

/** The text of an item's entry in the list: from its number and id to the next entry. */
function entryOf(pages: string[], id: number): string {
  const text = pages.join('\n');
  const start = text.search(new RegExp(`\\d+\\.\\s+#${id}\\b`));
  expect(start, `the entry of ${id}`).toBeGreaterThanOrEqual(0);
  const rest = text.slice(start + 1);
  const next = rest.search(/\n\d+\.\s+#\d+\b/);
  return next < 0 ? rest : rest.slice(0, next);
}

describe('the PDF report with plans', () => {
  it('adds after the cover one page per plan with reported items: the sheet as an image, the pins numbered as in the list', async () => {
    const { bytes, pages } = await pdfOf(server.tokens.manager);
    expect(pages[0]).toContain('Punch list');
    expect(pages[1]).toContain('Plan: Ground floor');
    expect(pages[2]).toContain('Plan: Floor 3');
    expect(pages[1]).toContain('1 item of this report');
    expect(pages[2]).toContain('3 items of this report');
    // Nothing of the list before the plans: the first entry is on the page after them.
    expect(pages.slice(0, 3).join('')).not.toMatch(/#1000/);
    expect(pages[3]).toMatch(/1\.\s+#1000\s+Extinguishers checked/);
    // 1001 is the list's 2nd item, 1011 its 4th, 2000 its 5th; 2001 its 6th.
    expect(pinNumbers(pages[2]!)).toEqual([2, 4, 5]);
    expect(pinNumbers(pages[1]!)).toEqual([6]);

    const images = await pdfImages(bytes);
    const planImages = images.filter((i) => i.page === 2 || i.page === 3);
    expect(planImages.map((i) => i.page)).toEqual([2, 3]);
    // The whole sheets: the Ground floor's 1200 × 800 drawing, Floor 3's A5 page (portrait) rendered.
    expect(planImages[0]).toMatchObject({ width: 1200, height: 800 });
    expect(planImages[1]!.height).toBeGreaterThan(planImages[1]!.width);
  });

  it("names each placed item's plan in its entry, and nothing for the others", async () => {
    const { pages } = await pdfOf(server.tokens.manager);
    expect(entryOf(pages, 1001)).toContain('Plan: Floor 3');
    expect(entryOf(pages, 1011)).toContain('Plan: Floor 3');
    expect(entryOf(pages, 2000)).toContain('Plan: Floor 3');
    expect(entryOf(pages, 2001)).toContain('Plan: Ground floor');
    for (const id of [1000, 1010, 2010]) expect(entryOf(pages, id), String(id)).not.toContain('Plan:');
  });

  it("pins only the items of a partial member's report: their numbers, their plans", async () => {
    const { bytes, pages } = await pdfOf(server.tokens.partial);
    const text = pages.join('\n');
    expect(text).not.toContain('Plan: Ground floor');
    expect(text).not.toContain('#2000');
    expect(pages[1]).toContain('Plan: Floor 3');
    expect(pages[1]).toContain('2 items of this report');
    // The partial member's list: 1000, 1001, 1010, 1011, 2010: 1001 is 2nd, 1011 4th; 2000 is not theirs.
    expect(pinNumbers(pages[1]!)).toEqual([2, 4]);
    expect(pages[2]).toMatch(/1\.\s+#1000/);
    expect((await pdfImages(bytes)).filter((i) => i.page <= 2).map((i) => i.page)).toEqual([2]);
  });

  it("follows the report's filter: only the filtered items are pinned, numbered in the filtered list", async () => {
    // Pending items of project 1: 1000, 2001, 2010 (numbers 1–3); 2001 is on the Ground floor, nothing on Floor 3.
    const { pages } = await filteredPdf('pending');
    const text = pages.join('\n');
    expect(text).not.toContain('Plan: Floor 3');
    expect(pages[1]).toContain('Plan: Ground floor');
    expect(pinNumbers(pages[1]!)).toEqual([2]);
  });

  it('leaves out a plan none of whose items is in the report', async () => {
    // Done items of project 1: 1010 and 2000 (numbers 1 and 2); 2000 is on Floor 3, nothing on the Ground floor.
    const { pages } = await filteredPdf('done');
    expect(pages.join('\n')).not.toContain('Plan: Ground floor');
    expect(pages[1]).toContain('Plan: Floor 3');
    expect(pinNumbers(pages[1]!)).toEqual([2]);
    expect(pages[2]).toMatch(/1\.\s+#1010/);
  });
});

describe('the CSV report with plans', () => {
  it('appends plan, plan_x and plan_y: the plan and the place as fractions, empty when not placed', async () => {
    const res = await server.request(`${V1}/projects/report.php?id=1`, { token: server.tokens.manager });
    expect(res.status).toBe(200);
    const { header, rows } = parseCsvReport(new TextDecoder('utf-8', { ignoreBOM: true }).decode(await res.arrayBuffer()));
    expect(header.slice(-6)).toEqual(['url', 'plan', 'plan_x', 'plan_y', 'company', 'ball_in_court']);
    expect(rows.map((r) => [r.item_id, r.plan, r.plan_x, r.plan_y])).toEqual([
      ['1000', '', '', ''],
      ['1001', 'Floor 3', '0.25', '0.5'],
      ['1010', '', '', ''],
      ['1011', 'Floor 3', '0.75', '0.25'],
      ['2000', 'Floor 3', '0.5', '1'],
      ['2001', 'Ground floor', '0.1', '0.9'],
      ['2010', '', '', ''],
    ]);
  });
});
