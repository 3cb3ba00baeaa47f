import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, controlledByWorker, launchChromium, requireBrowser, signedInPages } from '../helpers/chromium.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { PASSWORD, type UserKey, USERS } from '../helpers/workspace.js';

/**
 * Plans and pins in a real Chromium (docs/design.md §19): a manager uploads the demo's floor plan and raises an
 * item with a tap on it (at 1280 and at 390 px with touch), the pin standing where the tap was; an executor sees
 * the pins but no plan controls; the plan opens again without a network, and an item raised there offline is
 * created once when the network is back; on a shared phone the tiles kept for one user answer for nobody else;
 * axe-core finds nothing serious or critical on the plan's page.
 */
const PLAN_PDF = fileURLToPath(new URL('../../src/demo/plans/floor-3-rev-a.pdf', import.meta.url));
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const DESK = { viewport: { width: 1280, height: 900 } };
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
const WAIT = { timeout: 60_000 };

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

const pages = signedInPages(
  () => requireBrowser(launched),
  () => server.url,
);
const open = (user: UserKey, options: typeof DESK | typeof PHONE) => pages.open(user, options, 45_000);

/** Uploads the demo's floor plan through the form and waits for its rendering; returns the plan's id. */
async function uploadPlan(page: Page, name: string): Promise<number> {
  await page.goto(`${server.url}/projects/1`);
  await page.getByRole('link', { name: 'Plans', exact: true }).click();
  await page.getByLabel('Plan file').setInputFiles(PLAN_PDF);
  await page.getByLabel('Plan name').fill(name);
  await page.getByRole('button', { name: 'Upload plan' }).click();
  await page.getByRole('link', { name }).waitFor(WAIT);
  const href = await page.getByRole('link', { name }).getAttribute('href');
  return Number(/\/plans\/(\d+)$/.exec(href!)![1]);
}

/** The plan's page, opened and drawn (the viewer has placed its pins). */
async function openPlan(page: Page, planId: number) {
  await page.goto(`${server.url}/plans/${planId}`);
  await page.locator('[data-testid="plan-view"][data-ready="true"]').waitFor(WAIT);
  // The first tiles drawn: the fallback image is hidden once the viewer has opened the sheet.
  await page.locator('[data-plan-fallback]').waitFor({ state: 'hidden', ...WAIT });
}

const v1Item = async (id: number) => {
  const response = await server.call(`${V1}/items/get.php?id=${id}`, { token: server.tokens.manager });
  expect(response.status).toBe(200);
  return response.body.data.item;
};

/** Raises an item with a tap at (fx, fy) of the drawing's box; returns the tap's page coordinates and the new item. */
async function raiseHere(page: Page, text: string, fx: number, fy: number, tap: 'click' | 'tap') {
  await page.getByRole('button', { name: 'Add item here' }).click();
  const box = (await page.getByTestId('plan-view').boundingBox())!;
  const point = { x: box.x + box.width * fx, y: box.y + box.height * fy };
  if (tap === 'tap') await page.touchscreen.tap(point.x, point.y);
  else await page.mouse.click(point.x, point.y);
  await page.waitForURL(/\/projects\/1\/items\/new\?plan=/, WAIT);
  await page.getByTestId('item-place').waitFor(WAIT);
  await page.getByLabel('Text').fill(text);
  await page.getByLabel('Checklist').selectOption({ label: 'Fire' });
  // Where the tap was in the drawing's box: the box may sit elsewhere on the next page (the hint above it is gone).
  return { point: { x: point.x - box.x, y: point.y - box.y } };
}

/** The centre of the item's pin, in the drawing's box. */
async function pinCentre(page: Page, itemId: number) {
  const view = (await page.getByTestId('plan-view').boundingBox())!;
  const box = (await page.locator(`[data-testid="pin"][data-item-id="${itemId}"]`).boundingBox())!;
  return { x: box.x + box.width / 2 - view.x, y: box.y + box.height / 2 - view.y };
}

describe('plans and pins in the browser', { timeout: 240_000 }, () => {
  let planId: number;

  it('a manager uploads a plan and raises an item with a click on it at 1280 px: the pin stands where the click was', async () => {
    const page = await open('manager', DESK);
    planId = await uploadPlan(page, 'Floor 3');
    await openPlan(page, planId);
    expect(await page.getByTestId('pin').count()).toBe(0);
    const { point } = await raiseHere(page, 'Cracked tile by the east door', 0.3, 0.4, 'click');
    await page.getByRole('button', { name: 'Create item' }).click();
    await page.waitForURL(/\/items\/\d+/, WAIT);
    const itemId = Number(/\/items\/(\d+)/.exec(page.url())![1]);
    const item = await v1Item(itemId);
    expect(item.location).toMatchObject({ plan_id: planId, plan_name: 'Floor 3' });
    await openPlan(page, planId);
    expect(await page.locator(`[data-testid="pin"][data-item-id="${itemId}"]`).getAttribute('data-status')).toBe('pending');
    // The same page at the same size opens fitted the same way: the pin's centre is the click, within a few pixels.
    const centre = await pinCentre(page, itemId);
    expect(Math.abs(centre.x - point.x)).toBeLessThan(4);
    expect(Math.abs(centre.y - point.y)).toBeLessThan(4);
    expect(await page.locator('.pin-list').textContent()).toContain('Cracked tile by the east door');
    await page.context().close();
  });

  it('at 390 px with touch: zoom buttons, a tap on a pin shows its item, and a tap raises an item', async () => {
    const page = await open('manager', PHONE);
    await openPlan(page, planId);
    const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(scroll).toBeLessThanOrEqual(390);
    const pin = page.getByTestId('pin').first();
    const before = (await pin.boundingBox())!;
    await page.getByRole('button', { name: 'Zoom in' }).click();
    await expect.poll(async () => (await pin.boundingBox())?.x ?? before.x, WAIT).not.toBeCloseTo(before.x, 0);
    await page.getByRole('button', { name: 'Fit' }).click();
    await expect.poll(async () => Math.round((await pin.boundingBox())!.x), WAIT).toBe(Math.round(before.x));
    const at = (await pin.boundingBox())!;
    await page.touchscreen.tap(at.x + at.width / 2, at.y + at.height / 2);
    await page.getByRole('link', { name: 'Open item' }).waitFor(WAIT);
    const { point } = await raiseHere(page, 'Socket loose in room 3.02', 0.7, 0.25, 'tap');
    await page.getByRole('button', { name: 'Create item' }).click();
    await page.waitForURL(/\/items\/\d+/, WAIT);
    const itemId = Number(/\/items\/(\d+)/.exec(page.url())![1]);
    await openPlan(page, planId);
    const centre = await pinCentre(page, itemId);
    expect(Math.abs(centre.x - point.x)).toBeLessThan(4);
    expect(Math.abs(centre.y - point.y)).toBeLessThan(4);
    await page.context().close();
  });

  it('an executor sees the pins but no plan controls', async () => {
    const page = await open('executor', PHONE);
    await openPlan(page, planId);
    expect(await page.getByTestId('pin').count()).toBeGreaterThan(0);
    expect(await page.getByRole('button', { name: 'Add item here' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Upload version' }).count()).toBe(0);
    await page.goto(`${server.url}/projects/1/plans`);
    expect(await page.getByLabel('Plan file').count()).toBe(0);
    await page.context().close();
  });

  it('opens offline, and an item raised there offline is created once when the network is back', async () => {
    const page = await open('manager', PHONE);
    await openPlan(page, planId);
    await controlledByWorker(page);
    // Once more, controlled: the worker keeps the page, the tiles drawn and the new-item form of the plan.
    await openPlan(page, planId);
    await page.context().setOffline(true);
    await openPlan(page, planId);
    expect(await page.getByTestId('pin').count()).toBeGreaterThan(0);
    await raiseHere(page, 'Scratch on the glass of 3.03 (offline)', 0.85, 0.3, 'tap');
    await page.getByRole('button', { name: 'Create item' }).click();
    await expect.poll(() => page.getByTestId('outbox-count').first().textContent(), WAIT).toBe('1');
    await page.context().setOffline(false);
    await expect.poll(() => page.locator('[data-outbox]').first().isHidden(), WAIT).toBe(true);
    const found = await server.call(`${V1}/search/items.php?project_id=1&q=${encodeURIComponent('offline')}`, {
      token: server.tokens.manager,
    });
    const tree = await server.call(`${V1}/projects/tree.php?id=1`, { token: server.tokens.manager });
    const created = tree.body.data.sections
      .flatMap((s: any) => s.checklists.flatMap((c: any) => c.items))
      .filter((i: any) => i.text === 'Scratch on the glass of 3.03 (offline)');
    expect(created, JSON.stringify(found.body)).toHaveLength(1);
    expect(created[0].location).toMatchObject({ plan_id: planId });
    await page.context().close();
  });

  it("keeps a shared phone's plan tiles for the user who opened them: not for the signed-out visitor, nor the next user", async () => {
    const page = await open('manager', PHONE);
    await openPlan(page, planId);
    await controlledByWorker(page);
    // A tile the viewer draws, as the worker keeps it for the manager (the plans kind of punchlist-user-<id>-*).
    const drawn = page.waitForResponse((response) => /\/api\/plans\/tiles\/.+\.webp$/.test(response.url()), WAIT);
    await openPlan(page, planId);
    const tile = (await drawn).url();
    expect(tile).toMatch(/\/api\/plans\/tiles\/.+\.webp/);
    const stored = () =>
      page.evaluate(async (address) => {
        const names = (await caches.keys()).filter((name) => name.startsWith('punchlist-user-'));
        let found = false;
        for (const name of names) if (await (await caches.open(name)).match(address)) found = true;
        return { names, found };
      }, tile!);
    await expect.poll(async () => (await stored()).found, WAIT).toBe(true);
    expect((await stored()).names.every((name) => name.startsWith(`punchlist-user-${USERS.manager}-`))).toBe(true);
    const tileStatus = () =>
      page.evaluate(
        (address) =>
          fetch(address, { credentials: 'same-origin' }).then(
            (response) => response.status,
            () => 0,
          ),
        tile!,
      );
    expect(await tileStatus()).toBe(200);

    // The session ends without "Sign out" (its cookie gone): offline, the worker answers nothing of the manager's.
    await page.context().clearCookies();
    await page.context().setOffline(true);
    await page.waitForFunction(() => !navigator.onLine);
    expect(await tileStatus()).toBe(0);
    expect((await stored()).names).toEqual([]);
    // Online: the server refuses the signed-out visitor.
    await page.context().setOffline(false);
    await page.waitForFunction(() => navigator.onLine);
    expect(await tileStatus()).toBe(401);

    // The next person signs in on this phone: an outsider of the project gets no tile, online or offline.
    await page.goto(server.url + '/login');
    await page.getByLabel('Email').fill('outsider@punchlist.test');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/projects');
    expect(await tileStatus()).not.toBe(200);
    await page.context().setOffline(true);
    await page.waitForFunction(() => !navigator.onLine);
    expect(await tileStatus()).toBe(0);
    expect((await stored()).found).toBe(false);
    await page.context().close();
  });

  it('has no serious or critical axe-core violation on the plans pages', async () => {
    const page = await open('manager', { ...DESK, bypassCSP: true } as typeof DESK);
    const problems: string[] = [];
    for (const path of [`/projects/1/plans`, `/plans/${planId}`]) {
      await page.goto(server.url + path);
      await page.addScriptTag({ path: AXE });
      const axe = await page.evaluate(async () => {
        const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
        return (result.violations as any[])
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id}: ${v.help} — ${(v.nodes as any[]).map((n) => JSON.stringify(n.target)).join(' ')}`);
      });
      problems.push(...axe.map((v) => `${path}: ${v}`));
    }
    expect(problems, problems.join('\n')).toEqual([]);
    await page.context().close();
  });
});
