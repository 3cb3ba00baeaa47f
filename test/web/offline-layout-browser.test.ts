import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, controlledByWorker, launchChromium, requireBrowser, signedInPage } from '../helpers/chromium.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { PASSWORD, type UserKey } from '../helpers/workspace.js';

/**
 * On site with a phone (docs/design.md §16): an installable app (manifest, icons, the worker's headers), and the
 * phone layout at 390×844 in a real Chromium: the header at most 64 px tall with its menu, touch targets of
 * 44 px, the item page opening on its work controls, no horizontal scrolling and no serious or critical
 * axe-core violation.
 */
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
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

/** A phone signed in as `user`; bypassCSP only so that axe-core can be injected. */
const phone = (user: UserKey) =>
  signedInPage(
    requireBrowser(launched),
    server.url,
    { email: `${user}@punchlist.test`, password: PASSWORD },
    { ...PHONE, bypassCSP: true },
  );

const height = async (page: Page, selector: string) => (await page.locator(selector).first().boundingBox())?.height ?? 0;

async function axeProblems(page: Page, where: string): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const axe = await page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return {
      rules: (result.passes as unknown[]).length + (result.violations as unknown[]).length,
      violations: (result.violations as any[])
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.impact}): ${(v.nodes as any[]).map((n) => JSON.stringify(n.target)).join(' ')}`),
    };
  });
  expect(axe.rules, `axe-core really checked ${where}`).toBeGreaterThan(20);
  return axe.violations.map((v) => `${where}: ${v}`);
}

describe('installable', { timeout: 180_000 }, () => {
  it('serves the manifest, its icons and the service worker; every page links the manifest', async () => {
    const manifest = await server.request('/manifest.webmanifest');
    expect(manifest.headers.get('content-type')).toMatch(/^application\/manifest\+json/);
    const body = await manifest.json();
    expect(body).toMatchObject({ name: 'Punchlist', display: 'standalone', start_url: '/my-items', scope: '/' });
    expect(body.icons.map((i: { sizes: string }) => i.sizes)).toEqual(['192x192', '512x512']);
    for (const icon of body.icons) {
      const png = await server.request(icon.src);
      expect(png.status).toBe(200);
      const meta = await sharp(Buffer.from(await png.arrayBuffer())).metadata();
      expect(`${meta.format} ${meta.width}x${meta.height}`).toBe(`png ${icon.sizes}`);
    }

    const worker = await server.request('/sw.js');
    expect(worker.status).toBe(200);
    expect(worker.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(worker.headers.get('service-worker-allowed')).toBe('/');
    expect(worker.headers.get('cache-control')).toBe('no-cache');
    // The release is in the worker's text, so a release that changes a static file installs a new worker.
    expect(await worker.text()).toMatch(/^const VERSION = "[0-9a-f]{16}";/);

    const login = await (await server.request('/login')).text();
    expect(login).toContain('<link rel="manifest" href="/manifest.webmanifest">');
  });

  it('never keeps answers to bearer-token requests or API answers other than the photos shown', async () => {
    const page = await phone('executor');
    await page.goto(server.url + '/my-items');
    await controlledByWorker(page);
    const statuses = await page.evaluate(
      async ({ v1, token }) => {
        const bearer = await fetch(`${v1}/items/get.php?id=1000`, { headers: { authorization: `Bearer ${token}` } });
        const plain = await fetch(`${v1}/items/get.php?id=1000`);
        return [bearer.status, plain.status];
      },
      { v1: V1, token: server.tokens.executor },
    );
    expect(statuses[0]).toBe(200);
    const cachedUrls = () =>
      page.evaluate(async () => {
        const urls: string[] = [];
        for (const name of await caches.keys()) for (const r of await (await caches.open(name)).keys()) urls.push(r.url);
        return urls;
      });
    // The worker stores the page after answering it: wait for that write (a busy machine is slow), then look.
    await expect.poll(async () => (await cachedUrls()).some((url) => url.endsWith('/my-items')), { timeout: 30_000 }).toBe(true);
    const kept = await cachedUrls();
    expect(kept.filter((url) => new URL(url).pathname.startsWith('/api/') && !url.includes('/file.php'))).toEqual([]);
    await page.context().close();
  });
});

describe('at 390 px on a phone', { timeout: 180_000 }, () => {
  for (const user of ['executor', 'admin'] as const) {
    it(`as the ${user}: a header of at most 64 px with a menu, no horizontal scrolling, no serious axe-core violation`, async () => {
      const page = await phone(user);
      const problems: string[] = [];
      for (const path of ['/my-items', '/items/1000', '/projects', '/offline']) {
        expect((await page.goto(server.url + path))?.status(), path).toBe(200);
        await page.waitForFunction(() => document.readyState === 'complete');
        const header = await height(page, 'header.top');
        if (header > 64) problems.push(`${path}: the header is ${header} px tall`);
        const scroll = await page.evaluate(() => {
          document.querySelectorAll('details').forEach((d) => (d.open = true));
          return { width: document.documentElement.scrollWidth, inner: window.innerWidth };
        });
        if (scroll.width > 390 || scroll.inner > 390) problems.push(`${path}: scrollWidth ${scroll.width}, innerWidth ${scroll.inner}`);
        problems.push(...(await axeProblems(page, path)));
      }

      // Every link of the navigation is in the menu, each a 44-px target; Escape folds it again.
      await page.goto(server.url + '/my-items');
      const menu = page.getByRole('button', { name: 'Menu' });
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      expect(await page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(false);
      await menu.click();
      expect(await menu.getAttribute('aria-expanded')).toBe('true');
      const links = page.getByRole('navigation', { name: 'Main' }).getByRole('link');
      expect(await links.count()).toBeGreaterThanOrEqual(user === 'admin' ? 5 : 4);
      for (const link of await links.all()) {
        expect(await link.isVisible()).toBe(true);
        expect((await link.boundingBox())!.height).toBeGreaterThanOrEqual(44);
      }
      expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
      problems.push(...(await axeProblems(page, '/my-items with the menu open')));
      await page.keyboard.press('Escape');
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      expect(problems, problems.join('\n')).toEqual([]);

      // Signing out from the menu: the answer tells the browser to wipe what it keeps for the site.
      await menu.click();
      const [signedOut] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/logout')),
        page.getByRole('button', { name: 'Sign out' }).click(),
      ]);
      expect((await signedOut.allHeaders())['clear-site-data']).toBe('"cache", "storage"');
      await page.waitForURL('**/login');
      await page.context().close();
    });
  }

  it('opens the item page on its work controls, the rest folded, with touch targets of 44 px and a real photo button', async () => {
    const page = await phone('executor');
    await page.goto(server.url + '/items/1000');
    const status = await page.getByLabel('Status').boundingBox();
    expect(status!.y + status!.height, 'the status is on the first screen').toBeLessThan(844);
    expect(await page.locator('details.fold[open]').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Save planning' }).isVisible()).toBe(false);
    expect(await page.getByTestId('timeline-entry').first().isVisible()).toBe(false);

    const photos = page.getByLabel('Photos', { exact: true });
    expect(await photos.getAttribute('accept')).toBe('image/*');
    expect(await photos.getAttribute('capture')).toBe('environment');
    expect((await photos.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    expect(await height(page, 'label[for="item-photos"]')).toBeGreaterThanOrEqual(44);
    for (const name of ['Upload photos', 'Save status', 'Add comment', 'Add answer']) {
      expect((await page.getByRole('button', { name, exact: true }).boundingBox())!.height, name).toBeGreaterThanOrEqual(44);
    }
    expect(await height(page, '#item-status-select')).toBeGreaterThanOrEqual(44);
    // The photo button is the file input itself, laid over its label: a tap on "Photos" opens the camera or the picker.
    await page.locator('label[for="item-photos"]').scrollIntoViewIfNeeded();
    const box = (await page.locator('label[for="item-photos"]').boundingBox())!;
    const [chooser] = await Promise.all([
      page.waitForEvent('filechooser'),
      page.touchscreen.tap(box.x + box.width / 2, box.y + box.height / 2),
    ]);
    expect(chooser.isMultiple()).toBe(true);
    expect(await chooser.element().getAttribute('id')).toBe('item-photos');

    // The list of writes kept on the device, with a refused one and its "Dismiss", passes axe-core too.
    await controlledByWorker(page);
    await page.context().setOffline(true);
    await page.waitForFunction(() => !navigator.onLine);
    await page.getByLabel('Comment', { exact: true }).fill(' ');
    await page.getByRole('button', { name: 'Add comment' }).click();
    await page.context().setOffline(false);
    await page.getByTestId('outbox-refused').waitFor({ timeout: 45_000 });
    expect(await height(page, '[data-testid="outbox-refused"] button')).toBeGreaterThanOrEqual(44);
    expect(await axeProblems(page, '/items/1000 with a refused write')).toEqual([]);
    await page.context().close();
  });
});
