import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContextOptions } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { CHROMIUM, launchChromium, requireBrowser, signedInPages } from '../helpers/chromium.js';
import { solid } from '../helpers/images.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import type { UserKey } from '../helpers/workspace.js';

/**
 * The harness of the workplace browser test (workplace-browser.test.ts): a server, one Chromium, the photo
 * files to upload, and pages signed in as a workspace user. Started before the file's first test and closed
 * after its last; read its server inside tests only.
 */
export function useBrowserWorkplace() {
  let server: TestServer;
  let launched: Browser | undefined;
  let files: string;

  const browserOrFail = () => requireBrowser(launched);

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) return;
    server = await startTestServer();
    launched = await launchChromium();
    files = mkdtempSync(join(tmpdir(), 'punchlist-photos-'));
    writeFileSync(join(files, 'site-front.png'), await solid(64, 48, 'png'));
    writeFileSync(join(files, 'site-back.jpg'), await solid(80, 60, 'jpeg'));
    writeFileSync(join(files, 'answer-proof.png'), await solid(40, 30, 'png'));
    writeFileSync(join(files, 'not-an-image.png'), 'This is a text file, not a picture.\n');
  });

  afterAll(async () => {
    await launched?.close();
    await server?.close();
    if (files) rmSync(files, { recursive: true, force: true });
  });

  const file = (name: string) => join(files, name);

  /** A page signed in as `user` (through the sign-in form once per user; later contexts reuse the cookie). */
  const pages = signedInPages(browserOrFail, () => server.url);
  const signedIn = (user: UserKey, options: BrowserContextOptions = {}) => pages.open(user, options, 10_000);

  const v1Item = async (id: number) => {
    const response = await server.call(`${V1}/items/get.php?id=${id}`, { token: server.tokens.executor });
    expect(response.status).toBe(200);
    return response.body.data.item;
  };

  return {
    get server() {
      return server;
    },
    file,
    signedIn,
    v1Item,
  };
}
