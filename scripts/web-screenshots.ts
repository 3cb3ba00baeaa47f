/**
 * Screenshots of the item page for docs/web.md, taken in Debian's Chromium against a test server with the
 * standard test workspace (the same one the tests use). Run by hand, not part of `npm test`:
 *
 *   node --import tsx scripts/web-screenshots.ts
 *
 * Writes docs/images/item-page-desktop.png (1280 wide, the top 1600 px) and docs/images/item-page-phone.png
 * (390 × 844 phone, the top 2400 px), re-encoded with a palette so they stay small enough to commit; and the
 * plan's page (the demo's floor plan, three items pinned) as docs/images/plan-page-desktop.png and plan-page-phone.png;
 * a project's dashboard as docs/images/dashboard-desktop.png and dashboard-phone.png, the dashboard across projects
 * with companies and categories as dashboard-figures-desktop.png and dashboard-figures-phone.png;
 * the markup view (docs/design.md §22) with an ellipse drawn as docs/images/markup-desktop.png and markup-phone.png;
 * the structure page's "Escalation" block (docs/design.md §21), switched on, as docs/images/escalation-desktop.png and
 * escalation-phone.png. `node --import tsx scripts/web-screenshots.ts escalation` takes those two only;
 * the project page of a Russian user as docs/images/project-page-ru-desktop.png and project-page-ru-phone.png (only
 * these with `--russian`).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import sharp from 'sharp';
import { CHROMIUM, launchChromium } from '../test/helpers/chromium.js';
import { startTestServer, type TestServer } from '../test/helpers/server.js';
import { PASSWORD } from '../test/helpers/workspace.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'docs', 'images');
const MAX_BYTES = 300 * 1024;

/** A small picture that looks like a site photo (a wall, a floor, a window and a red extinguisher), as a PNG. */
function sitePhoto(): Promise<Buffer> {
  const block = (left: number, top: number, width: number, height: number, [r, g, b]: [number, number, number]) => ({
    input: { create: { width, height, channels: 3 as const, background: { r, g, b } } },
    left,
    top,
  });
  return sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 216, g: 210, b: 196 } } })
    .composite([
      block(0, 330, 640, 150, [140, 130, 117]),
      block(56, 56, 188, 128, [107, 102, 92]),
      block(60, 60, 180, 120, [244, 241, 234]),
      block(300, 150, 70, 230, [198, 40, 40]),
      block(318, 110, 34, 45, [51, 51, 51]),
      block(312, 220, 46, 60, [255, 255, 255]),
    ])
    .png()
    .toBuffer();
}

async function signedInPage(browser: Browser, server: TestServer, options: BrowserContextOptions): Promise<Page> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(server.url + '/login');
  await page.getByLabel('Email').fill('manager@punchlist.test');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/projects');
  return page;
}

/** Loads every lazy image (a full-page screenshot does not scroll) and waits for them. */
async function loadImages(page: Page) {
  await page.evaluate(async () => {
    const images = [...document.querySelectorAll('img')];
    for (const img of images) img.loading = 'eager';
    await Promise.all(
      images.map((img) => (img.complete ? null : new Promise((done) => img.addEventListener('load', done, { once: true })))),
    );
  });
}

/** A screenshot of the page's top `maxHeight` pixels, re-encoded with a palette to keep it small. */
async function shoot(page: Page, name: string, maxHeight: number) {
  await loadImages(page);
  const { width, height } = await page.evaluate(() => ({ width: window.innerWidth, height: document.documentElement.scrollHeight }));
  const raw = await page.screenshot({ fullPage: true, clip: { x: 0, y: 0, width, height: Math.min(height, maxHeight) } });
  const png = await sharp(raw).png({ palette: true, quality: 90, compressionLevel: 9, effort: 10 }).toBuffer();
  const path = join(OUT, name);
  writeFileSync(path, png);
  const size = statSync(path).size;
  console.log(`${relative(ROOT, path)}: ${width}×${Math.min(height, maxHeight)}, ${Math.round(size / 1024)} KiB`);
  if (size > MAX_BYTES) throw new Error(`${name} is ${size} bytes: more than ${MAX_BYTES}`);
}

/** The markup view open on the item's first photo, an ellipse drawn around the extinguisher; the viewport only. */
async function shootMarkup(page: Page, name: string) {
  await page.getByRole('button', { name: 'Mark up' }).first().click();
  const surface = page.locator('[data-testid="markup-canvas"][data-ready="true"]');
  await surface.waitFor();
  await page.getByRole('button', { name: 'Ellipse' }).click();
  const box = (await surface.locator('canvas').first().boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.4, box.y + box.height * 0.18);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.62, box.y + box.height * 0.85, { steps: 8 });
  await page.mouse.up();
  await page.getByLabel('Caption', { exact: true }).last().fill('Tag missing on the extinguisher');
  const raw = await page.screenshot();
  const png = await sharp(raw).png({ palette: true, quality: 90, compressionLevel: 9, effort: 10 }).toBuffer();
  const path = join(OUT, name);
  writeFileSync(path, png);
  console.log(`${relative(ROOT, path)}: ${Math.round(statSync(path).size / 1024)} KiB`);
  await page.getByRole('button', { name: 'Cancel' }).click();
}

/** The structure page's "Escalation" block (docs/design.md §21), switched on by the manager through the form. */
async function shootEscalation(server: TestServer, pages: readonly [Page, string][]) {
  const [[first]] = pages as [[Page, string]];
  await first.goto(`${server.url}/projects/1/structure#escalation`);
  await first.getByLabel('Escalate overdue items').check();
  await first.getByLabel('Every how many days while overdue').fill('2');
  await first.getByLabel('To the managers after how many days').fill('7');
  await first.getByRole('button', { name: 'Save escalation' }).click();
  await first.getByText('The escalation was saved.').waitFor();
  for (const [page, name] of pages) {
    await page.goto(`${server.url}/projects/1/structure#escalation`);
    const raw = await page.locator('#escalation').screenshot();
    const png = await sharp(raw).png({ palette: true, quality: 90, compressionLevel: 9, effort: 10 }).toBuffer();
    const path = join(OUT, name);
    writeFileSync(path, png);
    console.log(`${relative(ROOT, path)}: ${Math.round(statSync(path).size / 1024)} KiB`);
  }
}

/**
 * The project page of a Russian user (docs/design.md §23): the manager with the Profile's language set to Russian,
 * signed in through the Russian sign-in page; as docs/images/project-page-ru-desktop.png and project-page-ru-phone.png.
 */
async function russianShots(browser: Browser, server: TestServer) {
  await server.ctx.db.kysely.updateTable('users').set({ language: 'ru' }).where('email', '=', 'manager@punchlist.test').execute();
  for (const [options, name, height] of [
    [{ viewport: { width: 1280, height: 800 } }, 'project-page-ru-desktop.png', 1600],
    [{ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }, 'project-page-ru-phone.png', 2600],
  ] as const) {
    const context = await browser.newContext({ ...options, locale: 'ru-RU' });
    const page = await context.newPage();
    await page.goto(server.url + '/login');
    await page.getByLabel('Электронная почта').fill('manager@punchlist.test');
    await page.getByLabel('Пароль').fill(PASSWORD);
    await page.getByRole('button', { name: 'Войти' }).click();
    await page.waitForURL('**/projects');
    await page.goto(server.url + '/projects/1');
    await shoot(page, name, height);
    await context.close();
  }
}

/**
 * The dashboard across projects with items held by companies and of categories (issue 45): its charts "by ball in
 * court", "by responsible company", "by category" and their tables by project, as dashboard-figures-*.png.
 */
async function shootDashboardFigures(server: TestServer, desktop: Page, phone: Page) {
  const admin = { id: 1, role: 'admin' as const };
  const sparks = await server.ctx.companies.createCompany(admin, { name: 'Sparks Ltd', trade: 'Electrical' });
  const walls = await server.ctx.companies.createCompany(admin, { name: 'Drywall & Co', trade: 'Drywall' });
  for (const [item, company] of [
    [1000, sparks],
    [1001, sparks],
    [1010, walls],
  ] as const)
    await server.ctx.itemWrites.setCompany(admin, item, company.id);
  const wiring = await server.ctx.vocabulary.addCategory(admin, 1, 'Wiring');
  for (const item of [1000, 1001]) await server.ctx.itemEdits.updateItem(admin, item, { vocabulary: { categoryId: wiring } });
  for (const [page, name, height] of [
    [desktop, 'dashboard-figures-desktop.png', 3200],
    [phone, 'dashboard-figures-phone.png', 6000],
  ] as const) {
    await page.goto(`${server.url}/dashboard`);
    await page.locator('[data-testid="chart-ball"]').scrollIntoViewIfNeeded();
    await shoot(page, name, height);
  }
}

async function main() {
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium is missing at ${CHROMIUM}: install it with "apt-get install -y chromium" or set CHROMIUM_PATH.`);
  mkdirSync(OUT, { recursive: true });
  if (process.argv.includes('--russian')) {
    const server = await startTestServer();
    const browser = await launchChromium();
    try {
      await russianShots(browser, server);
    } finally {
      await browser.close();
      await server.close();
    }
    return;
  }
  const photos = mkdtempSync(join(tmpdir(), 'punchlist-screenshots-'));
  const server = await startTestServer();
  const browser = await launchChromium();
  try {
    const desktop = await signedInPage(browser, server, { viewport: { width: 1280, height: 800 } });
    if (process.argv.includes('escalation')) {
      const phone = await signedInPage(browser, server, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
      await shootEscalation(server, [
        [desktop, 'escalation-desktop.png'],
        [phone, 'escalation-phone.png'],
      ]);
      return;
    }
    // A photo on the item, added through the page's own file input, so the page shows a thumbnail.
    const photo = join(photos, 'extinguisher-hall-b.png');
    writeFileSync(photo, await sitePhoto());
    await desktop.goto(server.url + '/items/1000');
    await desktop.getByLabel('Photos', { exact: true }).setInputFiles(photo);
    await desktop.getByRole('button', { name: 'Upload photos' }).click();
    await desktop.waitForURL('**/items/1000?saved=photos');
    await shoot(desktop, 'item-page-desktop.png', 1600);

    const phone = await signedInPage(browser, server, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await phone.goto(server.url + '/items/1000');
    await shoot(phone, 'item-page-phone.png', 2400);
    await shootMarkup(desktop, 'markup-desktop.png');
    await shootMarkup(phone, 'markup-phone.png');

    // Plans and pins (docs/design.md §19): the demo's floor plan in project 1, three items pinned on it.
    const manager = { id: 2, role: 'member' as const };
    const drawing = join(photos, 'floor-3.pdf');
    copyFileSync(join(ROOT, 'src', 'demo', 'plans', 'floor-3-rev-a.pdf'), drawing);
    const started = await server.ctx.planUploads.startUpload(manager, 1, { path: drawing, filename: 'floor-3.pdf' }, { name: 'Floor 3' });
    await server.ctx.planUploads.waitForUpload(started.id);
    const planId = (await server.ctx.planUploads.uploadStatus(manager, started.id)).plan_ids[0]!;
    const places: [number, number, number][] = [
      [1000, 0.41, 0.14],
      [1001, 0.25, 0.58],
      [1010, 0.65, 0.45],
    ];
    for (const [item, x, y] of places) await server.ctx.itemLocations.placeItem(manager, item, { planId, x, y });
    for (const [page, name, height] of [
      [desktop, 'plan-page-desktop.png', 1400],
      [phone, 'plan-page-phone.png', 2000],
    ] as const) {
      await page.goto(`${server.url}/plans/${planId}`);
      await page.locator('[data-testid="plan-view"][data-ready="true"]').waitFor({ timeout: 60_000 });
      await page.waitForLoadState('networkidle');
      // The viewer fades its tiles in: the drawing is whole once every tile it asked for is drawn.
      await page.waitForFunction(() => {
        const viewer = document.querySelector('[data-testid="plan-view"] canvas');
        return viewer !== null;
      });
      await page.waitForTimeout(2_000);
      await shoot(page, name, height);
    }

    // The dashboard (docs/design.md §23) of project 1, two items done and accepted, one overdue.
    const admin = { id: 1, role: 'admin' as const };
    for (const item of [1011, 2001]) {
      await server.ctx.itemWrites.setStatus(admin, item, 'done');
      await server.ctx.review.setItemVerdict(admin, item, 'accepted');
    }
    await server.ctx.itemWrites.setPlanning(admin, 2010, { deadline: '2020-01-01' });
    for (const [page, name, height] of [
      [desktop, 'dashboard-desktop.png', 1400],
      [phone, 'dashboard-phone.png', 2600],
    ] as const) {
      await page.goto(`${server.url}/projects/1/dashboard`);
      await shoot(page, name, height);
    }
    await shootEscalation(server, [
      [desktop, 'escalation-desktop.png'],
      [phone, 'escalation-phone.png'],
    ]);
    await russianShots(browser, server);
    await shootDashboardFigures(server, desktop, phone);
  } finally {
    await browser.close();
    await server.close();
    rmSync(photos, { recursive: true, force: true });
  }
}

await main();
