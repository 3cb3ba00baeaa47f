/**
 * Screenshots of the invitation pages for docs/web.md (docs/design.md §20), taken in Debian's Chromium against a test
 * server with the standard test workspace. Run by hand, not part of `npm test`:
 *
 *   node --import tsx scripts/company-screenshots.ts
 *
 * Writes docs/images/invite-form-{desktop,phone}.png (the manager's "Invite" form) and
 * docs/images/invitation-page-{desktop,phone}.png (the link's page where the person sets a password), 1280 and 390 px
 * wide, re-encoded with a palette so they stay small enough to commit.
 */
import { statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import sharp from 'sharp';
import { launchChromium } from '../test/helpers/chromium.js';
import { startTestServer, type TestServer } from '../test/helpers/server.js';
import { PASSWORD, USERS } from '../test/helpers/workspace.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'docs', 'images');
const MAX_BYTES = 300 * 1024;
const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 900 } };
const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 1 };

async function shoot(page: Page, name: string) {
  const { width, height } = await page.evaluate(() => ({ width: window.innerWidth, height: document.documentElement.scrollHeight }));
  const raw = await page.screenshot({ fullPage: true, clip: { x: 0, y: 0, width, height: Math.min(height, 1800) } });
  const png = await sharp(raw).png({ palette: true, quality: 90, compressionLevel: 9, effort: 10 }).toBuffer();
  const path = join(OUT, name);
  writeFileSync(path, png);
  const size = statSync(path).size;
  console.log(`${relative(ROOT, path)}: ${width}×${Math.min(height, 1800)}, ${Math.round(size / 1024)} KiB`);
  if (size > MAX_BYTES) throw new Error(`${name} is ${size} bytes: more than ${MAX_BYTES}`);
}

async function managerPage(browser: Browser, server: TestServer, options: BrowserContextOptions): Promise<Page> {
  const page = await (await browser.newContext(options)).newPage();
  await page.goto(server.url + '/login');
  await page.getByLabel('Email').fill('manager@punchlist.test');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/projects');
  return page;
}

const server = await startTestServer();
const browser = await launchChromium();
try {
  const admin = { id: USERS.admin, role: 'admin' as const };
  for (const [name, trade] of [
    ['Sparks Ltd', 'Electrical'],
    ['Drywall Co', 'Drywall'],
    ['ClearView Glazing', 'Glazing'],
  ]) {
    await server.ctx.companies.createCompany(admin, { name: name!, trade: trade! });
  }
  const manager = { id: USERS.manager, role: 'member' as const, name: 'Manager' };
  const input = { name: 'Ivan Sparks', email: 'ivan@sparks.test', company: '1', role: 'executor', companyItemsOnly: true };
  const made = await server.ctx.invitations.invite(manager, 1, input, 'en');
  if (made.kind !== 'invited') throw new Error('not invited');
  for (const [suffix, options] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    const page = await managerPage(browser, server, options);
    await page.goto(server.url + '/projects/1/invite');
    await page.getByLabel('Name', { exact: true }).fill('Ivan Sparks');
    await page.getByLabel('Email', { exact: true }).fill('ivan@sparks.test');
    await page.getByLabel('Company', { exact: true }).selectOption({ label: 'Sparks Ltd' });
    await page.getByLabel("Only the company's items").check();
    await shoot(page, `invite-form-${suffix}.png`);
    await page.context().close();
    const guest = await (await browser.newContext(options)).newPage();
    await guest.goto(made.link.replace('http://punchlist.test', server.url));
    await shoot(guest, `invitation-page-${suffix}.png`);
    await guest.context().close();
  }
} finally {
  await browser.close();
  await server.close();
}
