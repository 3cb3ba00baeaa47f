import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchChromium, requireBrowser } from '../helpers/chromium.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { PASSWORD } from '../helpers/workspace.js';

/**
 * Real-browser checks of the web interface with Debian's Chromium (`apt-get install -y chromium`).
 * A missing browser fails these tests: it never skips them.
 */

let server: TestServer;
let launched: Browser | undefined;

const browserOrFail = () => requireBrowser(launched);

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) return;
  server = await startTestServer();
  launched = await launchChromium();
});

afterAll(async () => {
  await launched?.close();
  await server?.close();
});

async function signIn(email: string): Promise<Page> {
  const context = await browserOrFail().newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(server.url + '/');
  await expect.poll(() => new URL(page.url()).pathname).toBe('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/projects');
  return page;
}

const me = (token: string) => server.call(`${V1}/auth/me.php`, { token });

describe('in a browser', () => {
  it('refuses a wrong password without telling which field was wrong', async () => {
    const page = await (await browserOrFail().newContext()).newPage();
    await page.goto(server.url + '/login');
    await page.getByLabel('Email').fill('executor@punchlist.test');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const summary = page.getByRole('alert');
    await expect.poll(() => summary.getByRole('link').textContent()).toBe('Invalid email or password.');
    expect(await summary.getByRole('link').getAttribute('href')).toBe('#login-email');
    await page.context().close();
  });

  it('creates a token on /profile, shows it once, and revokes it after a confirm dialog', async () => {
    const page = await signIn('executor@punchlist.test');
    await page.goto(server.url + '/profile');
    const block = page.getByRole('region', { name: 'External API tokens' });
    await block.getByLabel('Name').fill('Browser token');

    // The date input only shows for "On a date…"; presets tick the scopes.
    await expect.poll(() => block.getByLabel('Valid through').isVisible()).toBe(false);
    await block.getByLabel('Expiry').selectOption({ label: 'On a date…' });
    await expect.poll(() => block.getByLabel('Valid through').isVisible()).toBe(true);
    await block.getByLabel('Expiry').selectOption({ label: '7 days' });
    await block.getByRole('button', { name: 'Everything' }).click();
    expect(await block.getByLabel('items:materials.write').isChecked()).toBe(true);
    await block.getByRole('button', { name: 'Read only' }).click();
    expect(await block.getByLabel('items:materials.write').isChecked()).toBe(false);
    expect(await block.getByLabel('auth:me').isChecked()).toBe(true);

    await block.getByRole('button', { name: 'Create token' }).click();
    const token = (await page.getByTestId('new-token').textContent())!;
    expect(token).toMatch(/^plk_[0-9A-Za-z]{36}$/);
    const ok = await me(token);
    expect(ok.status).toBe(200);
    expect(ok.body.data.token).toMatchObject({
      label: 'Browser token',
      scopes: ['auth:me', 'projects:read', 'projects:search', 'items:read'],
    });

    await page.goto(server.url + '/profile');
    expect(await page.getByTestId('new-token').count()).toBe(0);
    const row = page.getByTestId('token-row').filter({ hasText: 'Browser token' });
    expect(await row.textContent()).toContain('active');

    let dialog = '';
    page.once('dialog', (d) => {
      dialog = d.message();
      void d.accept();
    });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.waitForURL('**/profile?revoked=1');
    expect(dialog).toContain('Revoke the token “Browser token”?');
    await expect.poll(async () => page.getByTestId('token-row').filter({ hasText: 'Browser token' }).textContent()).toContain('revoked');

    const refused = await me(token);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('token_revoked');
    await page.context().close();
  });

  it('lets a manager approve an answer, which returns to pending when an image is added through the API', async () => {
    const page = await signIn('manager@punchlist.test');
    await page.goto(server.url + '/items/1000');
    const answer = page.locator('[data-answer-id="7001"]');
    expect(await answer.getByTestId('answer-status').textContent()).toBe('pending');
    await answer.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL('**/items/1000?saved=review');
    expect(await page.locator('[data-answer-id="7001"]').getByTestId('answer-status').textContent()).toBe('approved');

    const image = await (await import('../helpers/images.js')).solid(48, 32, 'png');
    const form = new FormData();
    form.append('answer_id', '7001');
    form.append('attachments[]', new Blob([new Uint8Array(image)], { type: 'image/png' }), 'site-photo.png');
    const upload = await server.call(`${V1}/answers/attachments.php`, { method: 'POST', token: server.tokens.manager, body: form });
    expect(upload.status).toBe(201);
    expect(upload.body.data).toMatchObject({ status_reset: true, answer_status: 'pending' });

    await page.reload();
    const again = page.locator('[data-answer-id="7001"]');
    expect(await again.getByTestId('answer-status').textContent()).toBe('pending');
    const img = again.locator('img[alt="site-photo.png"]');
    expect(await img.getAttribute('src')).toBe(upload.body.data.attachments[0].url);
    expect(await img.getAttribute('width')).toBe('48');
    // The download accepts the web session: the browser really loaded the WebP (lazy: once scrolled to).
    await img.scrollIntoViewIfNeeded();
    await img.evaluate((el: HTMLImageElement) => (el.complete ? null : new Promise((resolve) => el.addEventListener('load', resolve))));
    expect(await img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(48);
    await page.context().close();
  });
});
