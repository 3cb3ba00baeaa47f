import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchChromium, requireBrowser, signedInPages } from '../helpers/chromium.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startSmtpReceiver, type SmtpReceiver } from '../helpers/smtp.js';
import { USERS } from '../helpers/workspace.js';

/**
 * Companies on a phone in a real Chromium at 390 px with touch (docs/design.md §20): a manager invites a
 * subcontractor limited to their company's items; the subcontractor opens the emailed link (read from a real SMTP
 * receiver), sets a password and is signed in, sees only their company's items, disputes one; the manager resolves
 * it. axe-core finds nothing serious or critical on the invitation form and the invitation page.
 */
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, bypassCSP: true };
const admin = { id: USERS.admin, role: 'admin' as const };
let smtp: SmtpReceiver;
let server: TestServer;
let launched: Browser | undefined;
let sparksId = 0;
const pages = signedInPages(
  () => requireBrowser(launched),
  () => server.url,
);

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) return;
  smtp = await startSmtpReceiver();
  server = await startTestServer({ env: { SMTP_URL: smtp.url } });
  launched = await launchChromium();
  sparksId = (await server.ctx.companies.createCompany(admin, { name: 'Sparks Ltd', trade: 'Electrical' })).id;
  await server.ctx.itemWrites.setCompany(admin, 1011, sparksId);
  await server.ctx.itemWrites.setCompany(admin, 2001, sparksId);
});
afterAll(async () => {
  await launched?.close();
  await server?.close();
  await smtp?.stop();
});

async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return (result.violations as any[])
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.help} — ${(v.nodes as any[]).map((n) => JSON.stringify(n.target)).join(' ')}`);
  });
}

/** Nothing wider than the phone: no sideways scrolling. */
const fitsTheScreen = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe('a subcontractor invited from a phone', () => {
  it('is invited, signs in from the emailed link, sees only the company’s items, disputes one, and the manager resolves it', async () => {
    const manager = await pages.open('manager', PHONE, 45_000);
    await manager.goto(server.url + '/projects/1');
    await manager.getByRole('link', { name: 'Invite' }).tap();
    await manager.waitForURL('**/projects/1/invite');
    expect(await fitsTheScreen(manager)).toBe(true);
    const formProblems = await seriousViolations(manager);
    expect(formProblems, formProblems.join('\n')).toEqual([]);
    await manager.getByLabel('Name', { exact: true }).fill('Ivan Sparks');
    await manager.getByLabel('Email', { exact: true }).fill('ivan@sparks.test');
    await manager.getByLabel('Company', { exact: true }).selectOption({ label: 'Sparks Ltd' });
    await manager.getByLabel('Project role').selectOption('executor');
    await manager.getByLabel("Only the company's items").check();
    await manager.getByRole('button', { name: 'Send invitation' }).tap();
    const shown = await manager.getByTestId('invitation-link').inputValue();
    expect(shown).toMatch(/\/invitations\/[A-Za-z0-9_-]{43}$/);

    await server.ctx.notificationWorker.drainNow();
    const [mail] = await smtp.waitFor('ivan@sparks.test');
    const link = /http:\/\/\S+\/invitations\/[A-Za-z0-9_-]{43}/.exec(mail!.parsed.text ?? '')![0];
    expect(link).toBe(shown);

    const phone = await requireBrowser(launched).newContext(PHONE);
    const ivan = await phone.newPage();
    ivan.setDefaultTimeout(45_000);
    await ivan.goto(link);
    expect(await fitsTheScreen(ivan)).toBe(true);
    const pageProblems = await seriousViolations(ivan);
    expect(pageProblems, pageProblems.join('\n')).toEqual([]);
    await ivan.getByLabel('Password').fill('sparks all day long');
    await ivan.getByRole('button', { name: 'Set password' }).tap();
    await ivan.waitForURL('**/projects/1');
    const rows = ivan.getByTestId('item-row');
    await expect.poll(() => rows.count()).toBe(2);
    const seen = await ivan
      .locator('[data-testid="item-row"] a[href^="/items/"]')
      .evaluateAll((links) => links.map((a) => a.getAttribute('href')));
    expect([...new Set(seen)].sort()).toEqual(['/items/1011', '/items/2001']);
    expect((await ivan.goto(server.url + '/items/1000'))!.status()).toBe(404);

    // The manager makes him a participant of 1011 (an executor disputes the items he works on).
    const ivanId = (await server.ctx.users.findByEmail('ivan@sparks.test'))!.id;
    await server.ctx.itemEdits.updateItem({ id: USERS.manager, role: 'member' }, 1011, { participantIds: [ivanId] });
    await ivan.goto(server.url + '/items/1011');
    await ivan.locator('#dispute summary').tap();
    await ivan.getByLabel('Reason').fill('Not electrical: the exit sign is the glaziers’ frame');
    await ivan.getByRole('button', { name: 'Dispute item' }).tap();
    await ivan.getByText('The item is disputed: the managers will review it.').waitFor();

    await manager.goto(server.url + '/items/1011');
    await manager.getByLabel('Note').fill('Checked on site: it is the sign’s wiring, yours.');
    await manager.getByRole('button', { name: 'Resolve dispute' }).tap();
    await manager.getByText('The dispute was resolved.').waitFor();
    const card = (await server.ctx.items.getItemCard({ id: USERS.manager, role: 'member' }, 1011)).item;
    expect(card).toMatchObject({ disputed: null, responsible_company: { id: sparksId } });
    await phone.close();
    await manager.context().close();
  });
});
