import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, controlledByWorker, launchChromium, requireBrowser } from '../helpers/chromium.js';
import { solid, uploadForm } from '../helpers/images.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { PASSWORD, type UserKey, USERS } from '../helpers/workspace.js';

/**
 * A shared phone whose session ends without "Sign out" (its cookie cleared, as when it expires): neither the
 * signed-out visitor nor the next user, online or offline, is shown the first user's item page or photo, and
 * the first user's queued writes are neither shown to nor sent as the next user (docs/design.md §16, issue 46).
 */

const WAIT = { timeout: 45_000 };
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

let server: TestServer;
let launched: Browser | undefined;
let itemText: string;
let photoUrl: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) return;
  server = await startTestServer();
  launched = await launchChromium();
  const uploaded = await server.call(`${V1}/items/attachments.php`, {
    method: 'POST',
    token: server.tokens.executor,
    body: uploadForm({ item_id: '1000' }, [{ name: 'leak.png', bytes: await solid(64, 48, 'png') }]),
  });
  expect(uploaded.status).toBe(201);
  photoUrl = uploaded.body.data.attachments[0].url;
  const card = await server.call(`${V1}/items/get.php?id=1000`, { token: server.tokens.executor });
  itemText = card.body.data.item.text;
});

afterAll(async () => {
  await launched?.close();
  await server?.close();
});

async function signIn(page: Page, user: UserKey) {
  await page.goto(server.url + '/login');
  await page.getByLabel('Email').fill(`${user}@punchlist.test`);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/projects');
}

/** What the phone's caches hold: their names, and whether any of them has `url`. */
const cached = (page: Page, url: string) =>
  step(
    'the caches',
    page.evaluate(async (address) => {
      const names = await caches.keys();
      let found = false;
      for (const name of names) if (await (await caches.open(name)).match(address)) found = true;
      return { names: names.filter((n) => n.startsWith('punchlist-user-')).sort(), found };
    }, url),
  );

const ownedBy = (cache: string, user: UserKey) => new RegExp(`^punchlist-user-${USERS[user]}(?:-|$)`).test(cache);

/** The photo as the page's own script would get it (through the worker and the browser's cache). */
const photoStatus = (page: Page) =>
  step(
    'fetching the photo',
    page.evaluate(
      (address) =>
        fetch(address, { credentials: 'same-origin' }).then(
          (r) => r.status,
          () => 0,
        ),
      photoUrl,
    ),
  );

/**
 * A step Playwright gives no timeout of its own (a context's cookies and network, a page's script), failing within
 * STEP_MS and naming itself, rather than as the test's timeout with nothing said.
 */
const STEP_MS = 30_000;
async function step<T>(name: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name}: no answer within ${STEP_MS} ms`)), STEP_MS);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

async function setOffline(page: Page, offline: boolean) {
  await step(`setOffline(${offline})`, page.context().setOffline(offline));
  await page.waitForFunction((wanted) => navigator.onLine === !wanted, offline);
}

/** The executor's item page and photo, opened online and kept by the worker for them. */
async function firstUsersVisit(page: Page) {
  await signIn(page, 'executor');
  await page.goto(server.url + '/items/1000');
  await controlledByWorker(page);
  await page.reload();
  expect(await page.locator('h1').textContent()).toBe(itemText);
  expect(await photoStatus(page)).toBe(200);
  // Kept for them, so that the cases below show what the worker answers with a copy at hand.
  await expect.poll(async () => (await cached(page, photoUrl)).found, WAIT).toBe(true);
  await expect.poll(async () => (await cached(page, server.url + '/items/1000')).found, WAIT).toBe(true);
  expect((await cached(page, photoUrl)).names.every((n) => ownedBy(n, 'executor'))).toBe(true);
}

/** Nothing of the executor on the page shown for their item's address. */
async function expectNoItemPage(page: Page) {
  await page.goto(server.url + '/items/1000').catch(() => undefined);
  expect(await page.locator('h1').textContent()).not.toBe(itemText);
  expect(await page.content()).not.toContain(itemText);
}

describe('a shared phone whose session ended without "Sign out"', { timeout: 180_000 }, () => {
  it('shows the signed-out visitor, offline then online, neither the item page nor the photo', async () => {
    const context = await requireBrowser(launched).newContext(PHONE);
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await firstUsersVisit(page);

    await step('clearCookies', context.clearCookies());
    // Offline at once: the worker sees, from the browser's cookies, that nobody is signed in.
    await setOffline(page, true);
    await expectNoItemPage(page);
    expect(await page.locator('h1').textContent()).toBe('You are offline');
    expect(await photoStatus(page)).toBe(0);
    expect((await cached(page, photoUrl)).names).toEqual([]);

    // Online: the sign-in page, and the photo refused by the server (not answered by the browser's cache).
    await setOffline(page, false);
    await page.goto(server.url + '/items/1000');
    await page.waitForURL('**/login**');
    expect(await photoStatus(page)).toBe(401);
    // As an image on a page: the browser's cache revalidates it, and the server refuses.
    const shown = await page.evaluate(
      (address) =>
        new Promise<boolean>((resolve) => {
          const image = new Image();
          image.onload = () => resolve(true);
          image.onerror = () => resolve(false);
          image.src = address;
        }),
      photoUrl,
    );
    expect(shown).toBe(false);
    await context.close();
  });

  it('shows the next user, online and offline, neither the item page nor the photo', async () => {
    const context = await requireBrowser(launched).newContext(PHONE);
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await firstUsersVisit(page);

    await step('clearCookies', context.clearCookies());
    await signIn(page, 'outsider');
    expect((await cached(page, photoUrl)).names.every((n) => ownedBy(n, 'outsider'))).toBe(true);
    await expectNoItemPage(page);
    expect(await photoStatus(page)).toBe(404);
    await page.goto(server.url + '/my-items');
    await controlledByWorker(page);

    await setOffline(page, true);
    await expectNoItemPage(page);
    expect(await photoStatus(page)).toBe(0);
    expect((await cached(page, photoUrl)).found).toBe(false);
    await context.close();
  });

  it("keeps the first user's queued writes for them: never shown to or sent as the next user", async () => {
    const context = await requireBrowser(launched).newContext(PHONE);
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await signIn(page, 'partial');
    await page.goto(server.url + '/items/1000');
    await controlledByWorker(page);
    await setOffline(page, true);
    const comment = `Queued by the first user ${Date.now()}`;
    await page.getByLabel('Comment', { exact: true }).fill(comment);
    await page.getByRole('button', { name: 'Add comment' }).click();
    await expect.poll(() => page.getByTestId('outbox-count').textContent(), WAIT).toBe('1');

    // The session ends (cookie gone); the network comes back; the next person signs in on this phone.
    await step('clearCookies', context.clearCookies());
    await setOffline(page, false);
    await signIn(page, 'executor');
    await page.goto(server.url + '/items/1000');
    const outbox = page.locator('[data-outbox]');
    await expect.poll(() => outbox.isVisible(), WAIT).toBe(true);
    expect(await outbox.textContent()).not.toContain(comment);
    expect(await page.locator('[data-outbox-others]').isVisible()).toBe(true);
    expect(await page.getByTestId('outbox-count').textContent()).toBe('0');
    await step(
      'the online event',
      page.evaluate(() => window.dispatchEvent(new Event('online'))),
    );
    const comments = async () =>
      (await server.call(`${V1}/items/get.php?id=1000`, { token: server.tokens.manager })).body.data.item.comments as { text: string }[];
    expect((await comments()).some((c) => c.text === comment)).toBe(false);

    // Signing out keeps them (another account's), and the first user signing in again sends them, as theirs.
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/login');
    expect(
      await step(
        'indexedDB.databases()',
        page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name)),
      ),
    ).toEqual(['punchlist']);
    await signIn(page, 'partial');
    await page.goto(server.url + '/items/1000');
    await expect.poll(async () => (await comments()).filter((c) => c.text === comment).length, WAIT).toBe(1);
    const card = await server.call(`${V1}/items/get.php?id=1000`, { token: server.tokens.manager });
    expect(card.body.data.item.comments.find((c: { text: string }) => c.text === comment).author.id).toBe(USERS.partial);
    await context.close();
  });
});
