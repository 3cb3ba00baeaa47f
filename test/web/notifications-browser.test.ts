import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchChromium, requireBrowser } from '../helpers/chromium.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { PASSWORD, USERS } from '../helpers/workspace.js';

/**
 * Notifications in a real browser (docs/design.md §15): the navigation's count refreshed by the script without a
 * reload, following a notification to its item, "Mark all read"; a 390-pixel viewport and axe-core clean.
 */
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const PHONE_WIDTH = 390;
let server: TestServer;
let launched: Browser | undefined;
const manager = { id: USERS.manager, role: 'member' as const, name: 'Manager' };

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) return;
  server = await startTestServer();
  launched = await launchChromium();
  await server.ctx.notificationWorker.drainNow();
});

afterAll(async () => {
  await launched?.close();
  await server?.close();
});

async function executorPage(options: BrowserContextOptions = {}): Promise<Page> {
  const context = await requireBrowser(launched).newContext(options);
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(server.url + '/login');
  await page.getByLabel('Email').fill('executor@punchlist.test');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/projects');
  return page;
}

describe('notifications in a browser', () => {
  it('refreshes the count without a reload, opens the item, marks all read', async () => {
    const page = await executorPage();
    const link = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /^Notifications/ });
    await expect(link.textContent()).resolves.toBe('Notifications, unread: 0');
    expect(await page.locator('[data-notification-count]').isVisible()).toBe(false);

    await server.ctx.comments.addComment(manager, 1001, { text: 'Seen from the browser' });
    await server.ctx.review.returnToRework(manager, 1001, { reason: 'Paint', deadline: '2099-01-01' });
    await server.ctx.notificationWorker.drainNow();
    // What the script does every 45 s while the tab is visible, and when the tab becomes visible again.
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await page.locator('[data-notification-count]:not([hidden])').waitFor();
    expect(await link.textContent()).toBe('Notifications, unread: 2');

    await link.click();
    await page.waitForURL('**/notifications');
    await page.getByRole('link', { name: /commented on “Item 1001”/ }).dispatchEvent('click');
    await page.waitForURL('**/items/1001');
    expect(await link.textContent()).toBe('Notifications, unread: 1');
    await link.click();
    await page.getByRole('button', { name: 'Mark all read' }).click();
    await page.waitForURL('**/notifications?read=all');
    expect(await link.textContent()).toBe('Notifications, unread: 0');
    await page.context().close();
  });

  it('works at 390 px and has no serious or critical axe-core violation', async () => {
    await server.ctx.comments.addComment(manager, 1000, { text: 'A rather long remark '.repeat(20) });
    await server.ctx.notificationWorker.drainNow();
    const page = await executorPage({ viewport: { width: PHONE_WIDTH, height: 844 }, isMobile: true, hasTouch: true, bypassCSP: true });
    const problems: string[] = [];
    for (const path of ['/notifications', '/profile']) {
      expect((await page.goto(server.url + path))?.status()).toBe(200);
      const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
      if (scroll > PHONE_WIDTH) problems.push(`${path}: scrollWidth ${scroll}`);
      await page.addScriptTag({ path: AXE });
      const axe = await page.evaluate(async () => {
        const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
        return (result.violations as any[])
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id}: ${v.help} — ${(v.nodes as any[]).map((n) => JSON.stringify(n.target)).join(' ')}`);
      });
      problems.push(...axe.map((v) => `${path}: ${v}`));
    }
    expect(await page.getByRole('heading', { name: 'Notifications' }).count()).toBe(1);
    expect(problems, problems.join('\n')).toEqual([]);
    await page.context().close();
  });
});
