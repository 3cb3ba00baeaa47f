import { createRequire } from 'node:module';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromiumIfInstalled, requireBrowser } from '../helpers/chromium.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { PASSWORD } from '../helpers/workspace.js';

/**
 * The project lists and the Profile's new blocks in a real browser (Debian's Chromium): a bulk change with
 * one refusal on a phone, the browser's time zone taken at sign-in and used for every time, headers that keep
 * their words whole at 1280 px, and no serious or critical axe-core violation on the changed pages.
 * A missing browser fails these tests: it never skips them.
 */
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } satisfies BrowserContextOptions;
const DESKTOP = { viewport: { width: 1280, height: 800 } } satisfies BrowserContextOptions;

let server: TestServer;
let launched: Browser | undefined;

beforeAll(async () => {
  server = await startTestServer();
  launched = await launchChromiumIfInstalled();
});
afterAll(async () => {
  await launched?.close();
  await server?.close();
});

/** A new context signed in through the form as `email` (the browser reports its own time zone there). */
async function signedIn(email: string, options: BrowserContextOptions = {}): Promise<Page> {
  const context = await requireBrowser(launched).newContext(options);
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(server.url + '/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/projects');
  return page;
}

const v1Item = async (id: number) => (await server.call(`${V1}/items/get.php?id=${id}`, { token: server.tokens.admin })).body.data.item;

describe('the project lists and the Profile in a browser', () => {
  it('changes the status of two selected items on a phone, one of them refused and named in the summary', async () => {
    const page = await signedIn('executor@punchlist.test', PHONE);
    await page.goto(server.url + '/projects/1?sort=status');
    await page.getByLabel('Select “Item 1001”').check();
    await page.getByLabel('Select “Item 2001”').check();
    await page.getByLabel('New status').selectOption('blocked');
    await page.getByRole('button', { name: 'Apply to selected' }).click();
    await page.waitForURL(/\/projects\/1\?sort=status&changed=1001/);
    const summary = page.getByTestId('bulk-summary');
    expect(await summary.textContent()).toContain('1 changed; 1 refused:');
    expect(await summary.getByTestId('bulk-refused').textContent()).toBe(
      '#2001 ‘Item 2001’ — You are not allowed to perform this operation on this item',
    );
    expect((await v1Item(1001)).status).toBe('blocked');
    expect((await v1Item(2001)).status).toBe('pending');
    // The list kept its order; the page fits the phone.
    expect(await page.getByLabel('Sort by').inputValue()).toBe('status');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.context().close();
  });

  it("takes the browser's time zone at sign-in and shows times in it", async () => {
    await server.ctx.users.createUser({ email: 'tokyo@punchlist.test', name: 'Tokyo', password: PASSWORD });
    const page = await signedIn('tokyo@punchlist.test', { ...DESKTOP, timezoneId: 'Asia/Tokyo' });
    await page.goto(server.url + '/profile');
    expect(await page.getByRole('combobox', { name: 'Time zone' }).inputValue()).toBe('Asia/Tokyo');
    expect(await page.getByTestId('time-zone-now').textContent()).toMatch(/GMT\+9$/);
    await page.getByRole('combobox', { name: 'Time zone' }).selectOption('Europe/Berlin');
    await page.getByRole('button', { name: 'Save time zone' }).click();
    await page.waitForURL('**/profile?saved=time-zone#time-zone-title');
    expect(await page.getByRole('status').first().textContent()).toContain('Your time zone was saved.');
    await page.goto(server.url + '/audit');
    expect(await page.locator('[data-testid=audit-row] time').first().textContent()).toMatch(/ GMT\+[12]$/);
    await page.context().close();
  });

  it('keeps table headers whole at 1280 px, has a favicon, and ends breadcrumbs without a separator', async () => {
    const page = await signedIn('admin@punchlist.test', DESKTOP);
    for (const path of ['/profile', '/audit', '/projects/1', '/admin/users']) {
      await page.goto(server.url + path);
      const broken = await page.evaluate(() =>
        [...document.querySelectorAll('th')]
          .filter((th) => (th.textContent ?? '').trim() && !/\s/.test((th.textContent ?? '').trim()))
          // Text hidden for sight (sr-only, 1 px wide) wraps by design.
          .filter((th) => !th.querySelector('.sr-only'))
          .filter((th) => {
            const range = document.createRange();
            range.selectNodeContents(th);
            return range.getClientRects().length > 1;
          })
          .map((th) => th.textContent),
      );
      expect(broken, path).toEqual([]);
    }
    await page.goto(server.url + '/items/1000');
    const crumbs = page.getByRole('navigation', { name: 'Breadcrumb' });
    expect((await crumbs.textContent())?.trim().endsWith('›')).toBe(false);
    expect(await crumbs.getByRole('link').allTextContents()).toEqual(['Projects', 'Plant audit']);
    const icon = await page.request.get(server.url + '/favicon.ico');
    expect(icon.status()).toBe(200);
    expect(icon.headers()['content-type']).toContain('image/svg+xml');
    await page.context().close();
  });

  it('has no serious or critical axe-core violation on the changed pages, phone and desktop', async () => {
    const problems: string[] = [];
    const paths = [
      '/projects/1',
      '/projects/1?sort=deadline&participant=3',
      '/projects/1?changed=1000&unchanged=&refused=2001%3Aforbidden',
      '/profile',
      '/audit',
    ];
    for (const [user, options] of [
      ['manager', PHONE],
      ['executor', DESKTOP],
    ] as const) {
      const page = await signedIn(`${user}@punchlist.test`, { ...options, bypassCSP: true });
      for (const path of paths) {
        expect((await page.goto(server.url + path))?.status(), path).toBe(200);
        if (options === PHONE) {
          const width = await page.evaluate(() => document.documentElement.scrollWidth);
          if (width > 390) problems.push(`${user} ${path}: ${width} px wide`);
        }
        await page.addScriptTag({ path: AXE });
        const violations = await page.evaluate(async () => {
          const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
          return (result.violations as any[])
            .filter((v) => v.impact === 'serious' || v.impact === 'critical')
            .map((v) => `${v.id}: ${v.help} — ${(v.nodes as any[]).map((n) => JSON.stringify(n.target)).join(' ')}`);
        });
        for (const v of violations) problems.push(`${user} ${path}: ${v}`);
      }
      await page.context().close();
    }
    expect(problems, problems.join('\n')).toEqual([]);
  });
});
