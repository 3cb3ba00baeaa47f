import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, type BrowserContextOptions, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { startTestServer, type TestServer } from './server.js';
import { PASSWORD, type UserKey } from './workspace.js';

/** Debian's Chromium (`apt-get install -y chromium`), driven by playwright-core: no browser download. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_MISSING = `Chromium is missing at ${CHROMIUM}: the browser tests need it. Install it with "apt-get install -y chromium".`;

/** How long a context's close may take before the test goes on without it (see `boundedClose`). */
const CONTEXT_CLOSE_MS = 15_000;

/**
 * Chromium now and then never answers the request that disposes of a context whose service worker is running
 * (puppeteer/puppeteer#11627; seen here once in a few dozen runs of the shared-phone test, where `close()` hung
 * until the test's timeout; and on Node 24 a page's own close, before it, hung the same way). A context's close is
 * cleanup, not a check: its pages' close and then its own are given CONTEXT_CLOSE_MS together, after which the test
 * goes on (the browser is closed after the file).
 */
function boundedClose(context: BrowserContext): BrowserContext {
  const close = context.close.bind(context);
  context.close = async (options) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        console.warn(`A browser context did not close within ${CONTEXT_CLOSE_MS} ms (a Chromium hang): going on without it`);
        resolve();
      }, CONTEXT_CLOSE_MS);
    });
    // The pages' close can hang as the context's does (seen on Node 24 with the page's worker running): both bounded.
    const closing = Promise.all(context.pages().map((page) => page.close().catch(() => undefined))).then(() => close(options));
    await Promise.race([closing, late]).finally(() => clearTimeout(timer));
  };
  return context;
}

/** Headless Chromium as root on a machine without network: no sandbox, no background connections. */
export async function launchChromium(): Promise<Browser> {
  const browser = await launch();
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => boundedClose(await newContext(options));
  return browser;
}

function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}

/** The browser, or undefined when it is not installed (the tests then fail with CHROMIUM_MISSING, never skip). */
export async function launchChromiumIfInstalled(): Promise<Browser | undefined> {
  return existsSync(CHROMIUM) ? launchChromium() : undefined;
}

/** The launched browser; a missing one fails the test with CHROMIUM_MISSING (never a skip). */
export function requireBrowser(browser: Browser | undefined): Browser {
  if (!browser) throw new Error(CHROMIUM_MISSING);
  return browser;
}

/**
 * Waits until the page is controlled by its service worker, as after any visit online. On a busy machine
 * Chromium may give up starting a new worker (the registration is then dropped); the page's next load
 * registers it again, as it would for a user, so the page is reloaded, at most twice.
 */
export async function controlledByWorker(page: Page, attempts = 3): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 20_000 });
      return;
    } catch (err) {
      if (attempt >= attempts) throw err;
      await page.reload();
    }
  }
}

/** A page signed in through the sign-in form as `email`, in a new context of `browser` with `options`. */
export async function signedInPage(
  browser: Browser,
  baseUrl: string,
  credentials: { email: string; password: string },
  options: BrowserContextOptions = {},
): Promise<Page> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  await page.goto(baseUrl + '/login');
  await page.getByLabel('Email').fill(credentials.email);
  await page.getByLabel('Password').fill(credentials.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/projects');
  return page;
}

/**
 * Pages signed in as workspace users, each in a new context of `browser()`: through the sign-in form once per
 * user, later contexts reuse the cookies it left (`forget`: a user's next page signs in again).
 */
export function signedInPages(browser: () => Browser, baseUrl: () => string) {
  const states = new Map<UserKey, Awaited<ReturnType<BrowserContext['storageState']>>>();
  async function open(user: UserKey, options: BrowserContextOptions = {}, timeout = 30_000): Promise<Page> {
    let state = states.get(user);
    if (!state) {
      const first = await signedInPage(browser(), baseUrl(), { email: `${user}@punchlist.test`, password: PASSWORD });
      state = await first.context().storageState();
      states.set(user, state);
      await first.context().close();
    }
    const context = await browser().newContext({ ...options, storageState: state });
    const page = await context.newPage();
    page.setDefaultTimeout(timeout);
    return page;
  }
  return { open, forget: (user: UserKey) => states.delete(user) };
}

/**
 * One test server and one Chromium for a file of browser tests, started before its tests (nothing when Chromium is
 * missing: `requireBrowser` then fails each test with the reason) and closed after them; `open` gives a page signed
 * in as a workspace user.
 */
export function browserSuite() {
  let server: TestServer | undefined;
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
    () => server!.url,
  );
  return {
    /** The file's test server (started by then). */
    get server(): TestServer {
      return server!;
    },
    open: pages.open,
  };
}
