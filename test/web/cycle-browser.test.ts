import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchChromium, requireBrowser, signedInPage } from '../helpers/chromium.js';
import { solid } from '../helpers/images.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { PASSWORD, USERS, type UserKey } from '../helpers/workspace.js';

/**
 * The punch-list cycle in a real browser on a phone (docs/design.md §14): a manager raises a defect with a photo
 * and assigns it, the executor fixes and answers, the manager finds it in "To review", approves and accepts;
 * every step shows in the timeline, the audit log and the event feed. Executors see no structure control.
 */
let server: TestServer;
let launched: Browser | undefined;
let files: string;
const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) return;
  server = await startTestServer();
  launched = await launchChromium();
  files = mkdtempSync(join(tmpdir(), 'punchlist-cycle-'));
  writeFileSync(join(files, 'defect.png'), await solid(64, 48, 'png'));
});

afterAll(async () => {
  await launched?.close();
  await server?.close();
  if (files) rmSync(files, { recursive: true, force: true });
});

const signedIn = async (user: UserKey) => {
  const page = await signedInPage(requireBrowser(launched), server.url, { email: `${user}@punchlist.test`, password: PASSWORD }, PHONE);
  page.setDefaultTimeout(15_000);
  return page;
};

const noHorizontalScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe('the punch-list cycle on a 390-pixel phone', () => {
  it('from raising a defect with a photo to an accepted item, in the timeline, the audit log and the feed', async () => {
    const manager = await signedIn('manager');
    await manager.goto(server.url + '/projects/1');
    await manager.getByRole('link', { name: 'Add item' }).click();
    await manager.waitForURL('**/projects/1/items/new');
    expect(await noHorizontalScroll(manager)).toBe(true);
    await manager.getByLabel('Text').fill('Handrail loose on the east stairs');
    await manager.getByLabel('Checklist').selectOption({ label: 'Exits' });
    await manager.getByLabel('Participants').selectOption([String(USERS.executor)]);
    await manager.getByLabel('Priority').selectOption('high');
    await manager.getByLabel('Deadline').fill('2099-05-01');
    await manager.getByLabel('Answer required').check();
    await manager.getByLabel('Photos').setInputFiles(join(files, 'defect.png'));
    await manager.getByRole('button', { name: 'Create item' }).click();
    await manager.waitForURL(/\/items\/\d+\?saved=created$/);
    const id = Number(/\/items\/(\d+)/.exec(manager.url())![1]);
    await expect.poll(() => manager.locator('ul.images img').count()).toBe(1);
    expect(await noHorizontalScroll(manager)).toBe(true);

    const executor = await signedIn('executor');
    await executor.goto(`${server.url}/items/${id}`);
    expect(await executor.getByText('Edit item').count()).toBe(0);
    await executor.getByLabel('Status').selectOption('done');
    await executor.getByRole('button', { name: 'Save status' }).click();
    await executor.waitForURL(/saved=status/);
    await executor.getByLabel('Answer', { exact: true }).fill('Bolts tightened, handrail solid.');
    await executor.getByRole('button', { name: 'Add answer' }).click();
    await executor.waitForURL(/saved=answer/);
    await executor.goto(server.url + '/projects/1');
    expect(await executor.getByRole('link', { name: 'Add item' }).count()).toBe(0);
    expect(await executor.locator('a[href="/review"]').count()).toBe(0);

    await manager.goto(server.url + '/projects');
    // At 390 px the navigation folds into its menu (docs/design.md §16).
    await manager.getByRole('button', { name: 'Menu' }).click();
    const reviewLink = manager.getByRole('link', { name: /To review/ });
    expect(Number(await reviewLink.getByTestId('review-count').textContent())).toBeGreaterThan(0);
    await reviewLink.click();
    await manager.getByRole('link', { name: 'Handrail loose on the east stairs' }).first().click();
    await manager.getByRole('button', { name: 'Approve' }).click();
    await manager.waitForURL(/saved=review/);
    await manager.getByLabel('Item verdict').selectOption('accepted');
    await manager.getByRole('button', { name: 'Save verdict' }).click();
    await manager.waitForURL(/saved=verdict/);

    const item = (await server.call(`${V1}/items/get.php?id=${id}`, { token: server.tokens.manager })).body.data.item;
    expect(item).toMatchObject({ status: 'done', verdict: 'accepted', answers: [{ status: 'approved' }] });
    const timeline = await manager.getByTestId('timeline-entry').allTextContents();
    expect(timeline.join('\n')).toMatch(
      /raised the item for Executor, with 1 photo[\s\S]*changed the status[\s\S]*answered[\s\S]*approved an answer[\s\S]*set the verdict/,
    );
    const feed = (await server.call(`${V1}/events/list.php?item_id=${id}`, { token: server.tokens.manager })).body.data.events;
    expect(feed.map((e: { type: string }) => e.type)).toEqual([
      'item.created',
      'item.status_changed',
      'answer.created',
      'answer.reviewed',
      'item.verdict_set',
    ]);
    const records = await server.ctx.audit.list({ limit: 50 });
    const paths = records.filter((r) => r.entity_id === id || r.path === '/projects/1/items').map((r) => r.path);
    for (const path of ['/projects/1/items', `/items/${id}/status`, `/items/${id}/answers`, `/items/${id}/verdict`])
      expect(paths).toContain(path);
    await manager.context().close();
    await executor.context().close();
  }, 120_000);
});
