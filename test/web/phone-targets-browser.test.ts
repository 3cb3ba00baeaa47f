import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchChromium, requireBrowser, signedInPage } from '../helpers/chromium.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { PASSWORD, type UserKey } from '../helpers/workspace.js';

/**
 * A new user's phone (issue 46, item 8) in a real Chromium at 390 px, sizes measured with getBoundingClientRect:
 * "Photos" on Add item is the item page's ≥ 44 px control, checkboxes and radios are at least 24 × 24 px (WCAG 2.2
 * target size), the action links in rows are ≥ 44 px tall, a refused form starts with its error summary (focused,
 * linking to the field), the Report page's breadcrumb ends on its last link.
 */
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

let server: TestServer;
let launched: Browser | undefined;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) return;
  server = await startTestServer();
  launched = await launchChromium();
});

afterAll(async () => {
  await launched?.close();
  await server?.close();
});

const phone = (user: UserKey) =>
  signedInPage(requireBrowser(launched), server.url, { email: `${user}@punchlist.test`, password: PASSWORD }, PHONE);

/** The rendered box of the first element matching `selector` (its getBoundingClientRect). */
const box = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((e) => {
      const r = e.getBoundingClientRect();
      return { width: r.width, height: r.height };
    });

/** Every visible checkbox and radio of the page that is smaller than 24 × 24 px, named by its id or name. */
const smallToggles = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll<HTMLInputElement>('input[type=checkbox], input[type=radio]')]
      .map((e) => ({ name: e.id || e.name, rect: e.getBoundingClientRect() }))
      .filter(({ rect }) => rect.width > 0 && (rect.width < 24 || rect.height < 24))
      .map(({ name, rect }) => `${name}: ${rect.width}×${rect.height}`),
  );

describe('on a 390 px phone', { timeout: 180_000 }, () => {
  it('"Photos" on Add item is the same ≥ 44 px control as on the item page', async () => {
    const page = await phone('manager');
    await page.goto(server.url + '/items/1001');
    const onItem = await box(page, 'label[for="item-photos"]');
    await page.goto(server.url + '/projects/1/items/new');
    const onAdd = await box(page, 'label[for="item-photos"]');
    expect(onAdd.height).toBeGreaterThanOrEqual(44);
    expect(onAdd).toEqual(onItem);
    // The whole button opens the file chooser (the input is laid over it), the camera offered (`capture`).
    expect(await page.getByLabel('Photos', { exact: true }).getAttribute('capture')).toBe('environment');
    await page.locator('label[for="item-photos"]').scrollIntoViewIfNeeded();
    const at = (await page.locator('label[for="item-photos"]').boundingBox())!;
    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      page.touchscreen.tap(at.x + at.width / 2, at.y + at.height / 2),
    ]);
    expect(chooser.isMultiple()).toBe(true);
    expect(await chooser.element().getAttribute('id')).toBe('item-photos');
    await page.context().close();
  });

  it('checkboxes and radios are at least 24 × 24 px on every page that has them', async () => {
    const page = await phone('manager');
    const pages = ['/projects/1', '/projects/1/items/new', '/items/1001', '/profile'];
    for (const path of pages) {
      await page.goto(server.url + path);
      // Folded parts (planning) are opened, so their checkboxes are laid out and measured too.
      await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));
      expect(await page.locator('input[type=checkbox], input[type=radio]').count(), path).toBeGreaterThan(0);
      expect(await smallToggles(page), path).toEqual([]);
    }
    expect(await page.locator('input[type=radio]').count()).toBeGreaterThan(0); // the Profile's token form has radios
    await page.context().close();
    const admin = await phone('admin');
    await admin.goto(server.url + '/admin/projects/1');
    expect(await admin.locator('input[type=radio]').count()).toBeGreaterThan(0);
    expect(await smallToggles(admin)).toEqual([]);
    await admin.context().close();
  });

  it('action links in rows ("Report", "Clear", "Rename and reorder", "Cancel") are at least 44 px tall', async () => {
    const page = await phone('manager');
    await page.goto(server.url + '/projects/1');
    for (const name of ['Report', 'Clear', 'Rename and reorder']) {
      const link = page.getByRole('link', { name, exact: true });
      const height = await link.evaluate((e) => e.getBoundingClientRect().height);
      expect(height, name).toBeGreaterThanOrEqual(44);
    }
    await page.goto(server.url + '/projects/1/items/new');
    const cancel = await page.getByRole('link', { name: 'Cancel', exact: true }).evaluate((e) => e.getBoundingClientRect().height);
    expect(cancel).toBeGreaterThanOrEqual(44);
    // Nothing wider than the screen came of it.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.context().close();
  });

  it('a refused form starts with its error summary, focused, each problem a link to its field', async () => {
    const page = await phone('manager');
    await page.goto(server.url + '/items/1001');
    await page.getByText('Planning', { exact: true }).click();
    await page.getByLabel('Deadline', { exact: true }).fill('2000-01-01');
    await page.getByRole('button', { name: 'Save planning' }).click();
    await page.waitForURL(/\/items\/1001\/planning$/);
    const summary = page.locator('form#planning [data-error-summary]');
    // The summary is the form's first visible content, and the page opens on it.
    expect(await page.evaluate(() => document.activeElement?.hasAttribute('data-error-summary'))).toBe(true);
    expect(
      await page
        .locator('form#planning')
        .evaluate((form) => [...form.children].find((c) => c.getBoundingClientRect().height > 0)?.hasAttribute('data-error-summary')),
    ).toBe(true);
    const link = summary.getByRole('link');
    expect(await link.textContent()).toMatch(/^Deadline: must be today or later/);
    expect(await link.getAttribute('href')).toBe('#planning-deadline');
    await link.click();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('planning-deadline');
    await page.context().close();
  });

  it("the Report page's breadcrumb ends on its last link, without a separator", async () => {
    const page = await phone('manager');
    await page.goto(server.url + '/projects/1/report');
    const crumbs = page.getByRole('navigation', { name: 'Breadcrumb' });
    expect((await crumbs.textContent())?.trim().endsWith('›')).toBe(false);
    expect(await crumbs.getByRole('link').allTextContents()).toEqual(['Projects', 'Plant audit']);
    await page.context().close();
  });
});
