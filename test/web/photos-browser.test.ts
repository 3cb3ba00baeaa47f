import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserSuite, controlledByWorker } from '../helpers/chromium.js';
import { solid, uploadForm } from '../helpers/images.js';
import { V1 } from '../helpers/server.js';
import type { UserKey } from '../helpers/workspace.js';
import { pdfText } from '../reports/pdf-text.js';

/**
 * Photos that show the defect in a real Chromium (docs/design.md §22): at 390 px with touch, an executor uploads the
 * defect photo with its caption, circles the crack in the markup view and saves it, then answers with the fix photo;
 * the item page and the manager's PDF show the defect and fix photos side by side with their captions. Offline, a
 * markup waits in the outbox and is stored once. axe-core finds nothing serious or critical in the markup view.
 */
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const DESK = { viewport: { width: 1280, height: 900 } };
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
const WAIT = { timeout: 60_000 };

const suite = browserSuite();
const open = (user: UserKey, options: typeof DESK | typeof PHONE) => suite.open(user, options, 45_000);

const card = async (id: number) =>
  (await suite.server.call(`${V1}/items/get.php?id=${id}`, { token: suite.server.tokens.admin })).body.data.item;

async function picture(name: string, width: number) {
  return { name, mimeType: 'image/jpeg', buffer: await solid(width, Math.round((width * 3) / 4), 'jpeg') };
}

/** Opens the markup view on the first photo offering "Mark up" and waits for its drawing surface. */
async function openMarkup(page: Page) {
  await page.getByRole('button', { name: 'Mark up' }).first().click();
  await page.locator('[data-testid="markup-canvas"][data-ready="true"]').waitFor(WAIT);
}

/** A finger drawing from (fx0, fy0) to (fx1, fy1) of the drawing surface (fractions), in small steps. */
async function drag(page: Page, from: [number, number], to: [number, number]) {
  const box = (await page.getByTestId('markup-canvas').locator('canvas').first().boundingBox())!;
  const at = (f: [number, number]) => ({ x: box.x + box.width * f[0], y: box.y + box.height * f[1] });
  const cdp = await page.context().newCDPSession(page);
  const start = at(from);
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [start] });
  for (let step = 1; step <= 8; step++) {
    const t = step / 8;
    const point = at([from[0] + (to[0] - from[0]) * t, from[1] + (to[1] - from[1]) * t]);
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [point] });
  }
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

describe('markup in the browser', () => {
  it('at 390 px with touch: an executor circles the defect and saves it; the item page and the PDF show defect and fix', async () => {
    const page = await open('executor', PHONE);
    await page.goto(`${suite.server.url}/items/1001`);
    await page.locator('#item-photos').setInputFiles(await picture('wall.jpg', 800));
    await page.locator('#item-photos-stage').selectOption('defect');
    await page.locator('#item-photos-caption').fill('Crack left of the door frame');
    await page.getByRole('button', { name: 'Upload photos' }).click();
    await page.waitForURL(/saved=photos/, WAIT);
    const original = (await card(1001)).attachments.find((a: any) => a.caption === 'Crack left of the door frame');
    expect(original).toMatchObject({ stage: 'defect', annotates: null });

    await openMarkup(page);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.getByRole('button', { name: 'Ellipse' }).click();
    await drag(page, [0.3, 0.3], [0.7, 0.7]);
    expect(await page.evaluate(() => (window as any).punchlistMarkup.drawn())).toBe(1);
    await page.getByRole('button', { name: 'Save markup' }).click();
    await page.waitForURL(/saved=markup/, WAIT);
    const attachments = (await card(1001)).attachments;
    const markup = attachments.find((a: any) => a.annotates === original.id);
    expect(markup).toMatchObject({ stage: 'defect', caption: 'Crack left of the door frame', mime_type: 'image/webp' });
    expect(markup.width).toBeGreaterThanOrEqual(390);
    expect(attachments.findIndex((a: any) => a.id === markup.id)).toBeLessThan(attachments.findIndex((a: any) => a.id === original.id));

    // The fix: an answer with its photo and caption.
    await page.getByLabel('Answer', { exact: true }).fill('Filled and painted');
    await page.locator('#answer-photos').setInputFiles(await picture('fixed.jpg', 640));
    await page.locator('#answer-photos-caption').fill('Filled, sanded and painted');
    await page.getByRole('button', { name: 'Add answer' }).click();
    await page.waitForURL(/saved=answer/, WAIT);
    const sideBySide = page.getByTestId('before-after');
    await expect.poll(() => sideBySide.getByTestId('defect-photos').textContent()).toContain('Crack left of the door frame');
    expect(await sideBySide.getByTestId('defect-photos').textContent()).toContain('marked up');
    expect(await sideBySide.getByTestId('fix-photos').textContent()).toContain('Filled, sanded and painted');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    const report = await suite.server.request(`${V1}/projects/report.php?id=1&format=pdf`, { token: suite.server.tokens.manager });
    const text = (await pdfText(new Uint8Array(await report.arrayBuffer()))).replace(/\s+/g, ' ');
    expect(text).toContain('(marked up) Crack left of the door frame');
    expect(text).toContain('Filled, sanded and painted');
    await page.context().close();
  });

  it('offline: a saved markup waits in the outbox and is stored once when the network is back', async () => {
    const uploaded = await suite.server.call(`${V1}/items/attachments.php`, {
      method: 'POST',
      token: suite.server.tokens.executor,
      body: uploadForm({ item_id: '1001' }, [{ name: 'site.jpg', type: 'image/jpeg', bytes: await solid(400, 300, 'jpeg') }]),
    });
    expect(uploaded.status).toBe(201);
    const page = await open('executor', PHONE);
    await page.goto(`${suite.server.url}/items/1001`);
    await controlledByWorker(page);
    // Once more, controlled: the worker keeps the page, its scripts and its photos.
    await page.goto(`${suite.server.url}/items/1001`);
    // The photo to mark up drawn once online (thumbnails load lazily): the worker keeps it for offline.
    const photo = page.locator('[data-testid="photo"] img').first();
    await photo.scrollIntoViewIfNeeded();
    await expect.poll(() => photo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), WAIT).toBe(true);
    const before = (await card(1001)).attachments.length;
    await page.context().setOffline(true);
    await page.goto(`${suite.server.url}/items/1001`);
    expect(await page.evaluate(() => navigator.onLine)).toBe(false);
    await openMarkup(page);
    await page.getByRole('button', { name: 'Rectangle' }).click();
    await drag(page, [0.2, 0.2], [0.6, 0.5]);
    // The CDP session that drew the touches leaves the page's network emulation behind: offline again.
    await page.context().setOffline(false);
    await page.context().setOffline(true);
    expect(await page.evaluate(() => navigator.onLine)).toBe(false);
    await page.getByRole('button', { name: 'Save markup' }).click();
    await expect.poll(() => page.getByTestId('outbox-count').first().textContent(), WAIT).toBe('1');
    await page.context().setOffline(false);
    await expect.poll(() => page.locator('[data-outbox]').first().isHidden(), WAIT).toBe(true);
    await expect.poll(async () => (await card(1001)).attachments.length, WAIT).toBe(before + 1);
    // Sent once: the queued write is gone from the outbox and nothing more arrives with the next flush.
    await page.evaluate(() => window.dispatchEvent(new Event('online')));
    expect((await card(1001)).attachments.length).toBe(before + 1);
    await page.context().close();
  });

  it('has no serious or critical axe-core violation in the markup view; its controls are buttons with names', async () => {
    const page = await open('executor', { ...DESK, bypassCSP: true } as typeof DESK);
    await page.goto(`${suite.server.url}/items/1001`);
    await openMarkup(page);
    for (const name of ['Arrow', 'Rectangle', 'Ellipse', 'Freehand', 'Text', 'Undo', 'Save markup'])
      expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(1);
    await page.addScriptTag({ path: AXE });
    const problems = await page.evaluate(async () => {
      const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
      return (result.violations as any[])
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id}: ${v.help} — ${(v.nodes as any[]).map((n) => JSON.stringify(n.target)).join(' ')}`);
    });
    expect(problems, problems.join('\n')).toEqual([]);
    await page.context().close();
  });
});
