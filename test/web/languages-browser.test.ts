import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/domain/scopes.js';
import { EVENT_TYPES } from '../../src/domain/values.js';
import { launchChromiumIfInstalled, requireBrowser } from '../helpers/chromium.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startSmtpReceiver, type SmtpReceiver } from '../helpers/smtp.js';
import { PASSWORD, USERS } from '../helpers/workspace.js';

/**
 * A Russian foreman's day on a phone (docs/design.md §23, issue 45): the executor, whose Profile says Russian, signs
 * in through the Russian sign-in page, opens the project, an item, adds a comment, then My items and the
 * notifications; a Russian manager's pages and the report's PDF (read back with pdftotext); and the email the
 * foreman gets of the manager's comment, through a real SMTP receiver. On every page `<html lang="ru">`, no serious or critical axe-core violation, and no English left
 * outside user content: no word of 4+ letters of any English message (messages/en/*.json) and, stricter, no Latin
 * word of 4+ letters at all but the few names every language writes so (Punchlist, PDF, CSV…).
 */
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, bypassCSP: true, locale: 'ru-RU' };

/** The same words in every language: the product's name, file formats, keys and the like. */
const NAMES = new Set(['Punchlist', 'JPEG', 'WebP', 'Ctrl', 'https', 'SMTP', 'English', 'Deutsch']);

/** The words of a catalogue's messages (placeholders and ICU keywords left out). */
function wordsOf(language: string): Set<string> {
  const folder = new URL(`../../src/i18n/messages/${language}/`, import.meta.url);
  const words = new Set<string>();
  for (const file of readdirSync(folder).filter((f) => f.endsWith('.json'))) {
    const messages = JSON.parse(readFileSync(new URL(file, folder), 'utf8')) as Record<string, string>;
    for (const text of Object.values(messages)) {
      const plain = text
        .replace(/\{\s*\w+\s*\}/g, ' ')
        .replace(/\{\s*\w+\s*,\s*plural\s*,/g, ' ')
        .replace(/\b(?:one|few|many|other)\s*\{/g, ' ');
      for (const word of plain.match(/[A-Za-z][A-Za-z'’]{3,}/g) ?? []) words.add(word);
    }
  }
  return words;
}

/** English words that must not appear on a Russian page: every word of the English messages but those names. */
const ENGLISH = [...wordsOf('en')].filter((w) => !NAMES.has(w));

let server: TestServer;
let browser: Browser | undefined;
let smtp: SmtpReceiver;
/** The server's clock runs this far ahead: an item's email waits a minute for more changes (docs/notifications.md). */
let aheadMs = 0;
const clock = { now: () => new Date(Date.now() + aheadMs) };

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  server = await startTestServer({ clock, env: { SMTP_URL: smtp.url, MAIL_FROM: 'Punchlist <noreply@punchlist.test>' } });
  browser = await launchChromiumIfInstalled();
  await server.ctx.db.kysely.updateTable('users').set({ language: 'ru' }).where('id', '=', USERS.executor).execute();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await smtp?.stop();
});

/**
 * The English message words in a text that is not a page (a PDF's, an email's): links taken out, and any word that
 * some user content holds (pdftotext breaks lines where the PDF does, so user content is not cut out whole).
 */
async function englishOutsideUserContent(text: string): Promise<string[]> {
  const userWords = new Set((await userContent()).flatMap((t) => t.match(/[A-Za-z][A-Za-z'’]{3,}/g) ?? []));
  const rest = text.replace(/https?:\/\/\S+/g, ' ');
  return ENGLISH.filter((word) => !userWords.has(word) && new RegExp(`(?<![A-Za-z])${word}(?![A-Za-z])`).test(rest));
}

/** Every text the users wrote, as the database holds it: removed from a page's text before it is checked. */
async function userContent(): Promise<string[]> {
  const db = server.ctx.db.kysely;
  const texts = [
    ...(await db.selectFrom('projects').select(['name as a', 'description as b']).execute()),
    ...(await db.selectFrom('sections').select(['name as a', 'name as b']).execute()),
    ...(await db.selectFrom('checklists').select(['name as a', 'name as b']).execute()),
    ...(await db.selectFrom('items').select(['text as a', 'description as b']).execute()),
    ...(await db.selectFrom('users').select(['name as a', 'email as b']).execute()),
    ...(await db.selectFrom('comments').select(['text as a', 'text as b']).execute()),
    ...(await db.selectFrom('answers').select(['text as a', 'text as b']).execute()),
    ...(await db.selectFrom('document_links').select(['title as a', 'url as b']).execute()),
    ...(await db.selectFrom('plans').select(['name as a', 'name as b']).execute()),
    ...(await db.selectFrom('api_tokens').select(['name as a', 'name as b']).execute()),
    ...(await db.selectFrom('categories').select(['name as a', 'name as b']).execute()),
    ...(await db.selectFrom('templates').select(['name as a', 'name as b']).execute()),
    ...(await db.selectFrom('custom_fields').select(['name as a', 'options as b']).execute()).flatMap((f) =>
      (JSON.parse(f.b) as string[]).map((option) => ({ a: f.a, b: option })),
    ),
  ].flatMap((r) => [r.a, r.b]);
  return [...new Set(texts.filter((t): t is string => typeof t === 'string' && t.trim() !== ''))].sort((a, b) => b.length - a.length);
}

/**
 * What a person sees or hears of the page, user content cut out: its title, its text, and the words of its attributes
 * (the labels a phone's table cells show through CSS, accessible names, placeholders, alternative texts).
 */
async function interfaceText(page: Page, scope: string, codes: readonly string[] = []): Promise<string> {
  const seen = await page.evaluate(
    (scope) =>
      [...document.querySelectorAll(scope)].flatMap((region) => [
        (region as HTMLElement).innerText,
        ...[region, ...region.querySelectorAll('[data-label], [aria-label], [placeholder], [alt], [title]')].flatMap((e) =>
          ['data-label', 'aria-label', 'placeholder', 'alt', 'title'].map((name) => e.getAttribute(name) ?? ''),
        ),
      ]),
    scope,
  );
  let text = `${await page.title()}\n${seen.join('\n')}`;
  // Time zones are named by their IANA identifiers (Europe/Moscow), in every language: data, not words.
  const zones = await page.locator('[data-browser-time-zone] option[value]:not([value=""])').allInnerTexts();
  for (const content of [...(await userContent()), ...zones, ...codes].sort((a, b) => b.length - a.length))
    text = text.split(content).join(' ');
  return text;
}

/**
 * `scope`: the parts of the page checked for English (the whole body, but on the Profile its account blocks);
 * `codes`: what is Latin in every language by design (scope and event type codes, URLs, a client's name), cut out.
 */
async function check(page: Page, where: string, problems: string[], scope = 'body', codes: readonly string[] = []) {
  expect(await page.getAttribute('html', 'lang'), where).toBe('ru');
  const text = await interfaceText(page, scope, codes);
  const english = ENGLISH.filter((word) => new RegExp(`(?<![A-Za-z])${word}(?![A-Za-z])`).test(text));
  if (english.length) problems.push(`${where}: English message words ${english.join(', ')}`);
  const latin = [...new Set(text.match(/[A-Za-z][A-Za-z'’]{3,}/g) ?? [])].filter((w) => !NAMES.has(w));
  if (latin.length) problems.push(`${where}: Latin words ${latin.join(', ')}`);
  await page.addScriptTag({ path: AXE });
  const axe = await page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return (result.violations as any[])
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.help} — ${(v.nodes as any[]).map((n) => JSON.stringify(n.target)).join(' ')}`);
  });
  problems.push(...axe.map((v) => `${where}: axe ${v}`));
}

// The day is long (some twenty pages, each checked for English and by axe-core, a PDF, an email): 65–90 s on a quiet
// machine, over 120 s on a busy one. The limit ends a hang; it does not judge speed.
describe('a Russian foreman’s day on a phone', { timeout: 240_000 }, () => {
  it('is all in Russian: sign-in, project, item, a comment, My items, notifications, the report PDF, an email', async () => {
    expect(ENGLISH.length).toBeGreaterThan(300);
    expect(ENGLISH).toContain('Deadline');
    const context = await requireBrowser(browser).newContext(PHONE);
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const problems: string[] = [];

    await page.goto(server.url + '/login');
    await check(page, '/login', problems);
    // A mistyped password first: the refusal in Russian too.
    await page.getByLabel('Электронная почта').fill('executor@punchlist.test');
    await page.getByLabel('Пароль').fill('not the password');
    await page.getByRole('button', { name: 'Войти' }).click();
    await expect.poll(() => page.locator('[data-error-summary]').innerText()).toContain('Неверная электронная почта или пароль.');
    await check(page, '/login refused', problems);
    await page.getByLabel('Электронная почта').fill('executor@punchlist.test');
    await page.getByLabel('Пароль').fill(PASSWORD);
    await page.getByRole('button', { name: 'Войти' }).click();
    await page.waitForURL('**/projects');
    await check(page, '/projects', problems);

    await page.getByRole('link', { name: 'Plant audit' }).click();
    await page.waitForURL('**/projects/1');
    await expect.poll(() => page.getByRole('heading', { name: 'Plant audit' }).isVisible()).toBe(true);
    await check(page, '/projects/1', problems);

    await page.goto(server.url + '/items/1000');
    await check(page, '/items/1000', problems);
    // User content is an argument, never a message: braces and ICU syntax show as typed.
    const typed = 'Проверено {count, plural, one {#} other {#}} — огнетушитель {ОП-4} на месте }{';
    await page.getByLabel('Комментарий').fill(typed);
    await page.getByRole('button', { name: 'Добавить комментарий' }).click();
    await page.waitForURL('**/items/1000?saved=comment**');
    await expect.poll(() => page.getByRole('status').first().innerText()).toContain('Ваш комментарий добавлен.');
    expect(await page.locator('[data-testid="comment"] .text').last().innerText()).toBe(typed);
    await check(page, '/items/1000 after the comment', problems);

    // What a manager sees besides (the verdict form, the structure links, the bulk form): a second Russian user.
    await server.ctx.db.kysely.updateTable('users').set({ language: 'ru' }).where('id', '=', USERS.manager).execute();
    const managerContext = await requireBrowser(browser).newContext(PHONE);
    const manager = await managerContext.newPage();
    await manager.goto(server.url + '/login');
    await manager.getByLabel('Электронная почта').fill('manager@punchlist.test');
    await manager.getByLabel('Пароль').fill(PASSWORD);
    await manager.getByRole('button', { name: 'Войти' }).click();
    await manager.waitForURL('**/projects');
    await manager.goto(server.url + '/projects/1');
    await check(manager, '/projects/1 (manager)', problems);
    await manager.goto(server.url + '/items/1000');
    await check(manager, '/items/1000 (manager)', problems);
    await manager.goto(server.url + '/projects/1/items/new');
    await check(manager, '/projects/1/items/new', problems);
    // The structure page, and the project's own words it adds: a category, a choice field, in the item forms too.
    await manager.goto(server.url + '/projects/1/structure');
    await check(manager, '/projects/1/structure', problems);
    await manager.getByLabel('Название категории').fill('Электрика');
    await manager.getByRole('button', { name: 'Добавить категорию' }).click();
    await manager.waitForURL('**/projects/1/structure?saved=category');
    await expect.poll(() => manager.getByRole('status').first().innerText()).toContain('Категория добавлена.');
    await manager.getByLabel('Название поля').fill('Этаж');
    await manager.getByLabel('Тип поля').selectOption({ label: 'выбор' });
    await manager.getByLabel('Варианты').fill('Первый\nВторой');
    await manager.getByRole('button', { name: 'Добавить поле' }).click();
    await manager.waitForURL('**/projects/1/structure?saved=field');
    expect(await manager.locator('#fields li').last().innerText()).toContain('(выбор: Первый, Второй)');
    await check(manager, '/projects/1/structure with a category and a field', problems);
    await manager.goto(server.url + '/projects/1/items/new');
    expect(await manager.getByLabel('Категория', { exact: true }).locator('option').first().innerText()).toBe('Без категории');
    expect(await manager.getByLabel('Этаж (необязательно)').count()).toBe(1);
    await check(manager, '/projects/1/items/new with the vocabulary', problems);
    await manager.goto(server.url + '/items/1000');
    await manager.locator('#edit-item > summary').click();
    await expect.poll(() => manager.getByLabel('Этаж (необязательно)').isVisible()).toBe(true);
    await check(manager, '/items/1000 with the vocabulary (manager)', problems);
    await manager.goto(server.url + '/review');
    await check(manager, '/review', problems);
    await manager.goto(server.url + '/projects/1/report');
    await check(manager, '/projects/1/report', problems);
    // The PDF the report page hands over, read back: its words in Russian too.
    const [download] = await Promise.all([manager.waitForEvent('download'), manager.getByRole('link', { name: 'PDF' }).click()]);
    const pdf = execFileSync('pdftotext', ['-layout', (await download.path())!, '-'], { encoding: 'utf8' });
    expect(pdf).toContain('Перечень замечаний');
    const pdfEnglish = await englishOutsideUserContent(pdf);
    if (pdfEnglish.length) problems.push(`report PDF: English message words ${pdfEnglish.join(', ')}`);

    // The manager comments on the foreman's item: the foreman's email, a minute later, is in Russian.
    server.ctx.notificationWorker.start();
    await manager.goto(server.url + '/items/1000');
    await manager.getByLabel('Комментарий').fill('Проверьте крепление');
    await manager.getByRole('button', { name: 'Добавить комментарий' }).click();
    await manager.waitForURL('**/items/1000?saved=comment**');
    await server.ctx.notificationWorker.drainNow();
    aheadMs += 61_000;
    await server.ctx.notificationWorker.drainNow();
    const [mail] = await smtp.waitFor('executor@punchlist.test', 1, 30_000);
    expect(mail!.parsed.text).toContain('Проверьте крепление');
    const mailEnglish = await englishOutsideUserContent(`${mail!.parsed.subject}\n${mail!.parsed.text}`);
    if (mailEnglish.length) problems.push(`email: English message words ${mailEnglish.join(', ')}`);
    await managerContext.close();

    // The project's plans and a plan's page, where the foreman finds an item on the drawing.
    await page.goto(server.url + '/projects/1/plans');
    await check(page, '/projects/1/plans', problems);
    await page.goto(server.url + '/plans/1');
    await check(page, '/plans/1', problems);

    await page.goto(server.url + '/my-items');
    await check(page, '/my-items', problems);
    // The scripts' words (the outbox, the markup view, "Copied"…) in the page's language, plurals by Russian rules.
    const scriptWords = await page.evaluate(() => {
      const words = (window as any).punchlistWords;
      return [words.text('dismiss', 'Dismiss'), ...[1, 3, 5, 21].map((n) => words.plural('changes', n, 'changes'))];
    });
    expect(scriptWords).toEqual(['Убрать', 'изменение', 'изменения', 'изменений', 'изменение']);
    await page.goto(server.url + '/notifications');
    await check(page, '/notifications', problems);

    // The Profile's account blocks (its integrators' blocks: the next test).
    await page.goto(server.url + '/profile');
    const account = [
      'header',
      'h1',
      ...['me-title', 'language-title', 'time-zone-title', 'password-title', 'notifications-title'].map(
        (id) => `section[aria-labelledby="${id}"]`,
      ),
    ];
    expect(await page.locator(account.slice(2).join(', ')).count()).toBe(5);
    await check(page, '/profile', problems, account.join(', '));

    // The audit log's words (its rows are machine data: methods, paths, user agents, entity types).
    await page.goto(server.url + '/audit');
    expect(await page.locator('[data-testid="audit-row"]').count()).toBeGreaterThan(0);
    await check(page, '/audit', problems, 'header, main > h1, main > p, main > form, thead');

    // Error pages: the web's own messages, and a service error by its code (an item of a project not the user's).
    for (const path of ['/nowhere', '/items/4000']) {
      const response = await page.goto(server.url + path);
      expect(response?.status()).toBe(404);
      await check(page, path, problems);
    }
    expect(await page.locator('p[role="alert"]').innerText()).toBe('Не найдено, или вам это не видно.');

    // The offline page the service worker keeps: in the browser's language.
    await page.goto(server.url + '/offline');
    await check(page, '/offline', problems);
    expect(await page.locator('h1').innerText()).toBe('Нет сети');

    expect(problems, problems.join('\n')).toEqual([]);
    await context.close();
  });

  it('shows a Russian administrator the admin pages in Russian: users, projects, a project’s members, companies', async () => {
    await server.ctx.db.kysely.updateTable('users').set({ language: 'ru' }).where('id', '=', USERS.admin).execute();
    const context = await requireBrowser(browser).newContext(PHONE);
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const problems: string[] = [];
    await page.goto(server.url + '/login');
    await page.getByLabel('Электронная почта').fill('admin@punchlist.test');
    await page.getByLabel('Пароль').fill(PASSWORD);
    await page.getByRole('button', { name: 'Войти' }).click();
    await page.waitForURL('**/projects');
    // The home's hint names a CLI command (bin/punchlist templates …): its text is code, so only its other parts.
    await page.goto(server.url + '/admin');
    await check(page, '/admin', problems, 'header, main > h1, main > ul');
    await page.goto(server.url + '/admin/users');
    await check(page, '/admin/users', problems);
    expect(await page.locator('h1').innerText()).toBe('Пользователи');
    await page.goto(server.url + '/admin/projects/1');
    await check(page, '/admin/projects/1', problems);
    await page.goto(server.url + '/admin/companies');
    await check(page, '/admin/companies', problems, 'header, main > h1, thead, form');
    expect(problems, problems.join('\n')).toEqual([]);
    await context.close();
  });

  it('shows the OAuth consent page and the Profile’s tokens, webhooks and applications in Russian; codes stay Latin', async () => {
    await server.ctx.db.kysely.updateTable('users').set({ language: 'ru' }).where('id', '=', USERS.manager).execute();
    const redirect = 'http://127.0.0.1:9/callback';
    const registered = await server.call('/oauth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Smeta Agent', redirect_uris: [redirect] }),
    });
    const verifier = 'v'.repeat(64);
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: registered.body.client_id as string,
      redirect_uri: redirect,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      scope: 'auth:me items:read',
    });
    // A stored endpoint (the service refuses loopback receivers; what is shown is the point here).
    await server.ctx.db.kysely
      .insertInto('webhook_endpoints')
      .values({
        user_id: USERS.manager,
        url: 'http://127.0.0.1:9/hook',
        event_types: null,
        project_id: null,
        secret: 'whsec_test',
        state: 'active',
        disabled_reason: null,
        cursor: 0,
        failing_since: null,
        next_attempt_at: null,
        lease_until: null,
        created_at: new Date().toISOString(),
      })
      .execute();
    // Latin by design: scope and event type codes, addresses, the client's name (user content of another kind).
    const codes = [
      ...SCOPES,
      ...EVENT_TYPES,
      'Smeta Agent',
      'http://127.0.0.1:9/hook',
      redirect,
      'http://',
      '127.0.0.1:9',
      'requires_answer',
      'POST',
      'Standard Webhooks',
      // "http(s)" in the webhook URL's help: the scheme's name.
      'http',
    ];

    const context = await requireBrowser(browser).newContext(PHONE);
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const problems: string[] = [];
    await page.goto(`${server.url}/oauth/authorize?${query}`);
    await page.getByLabel('Электронная почта').fill('manager@punchlist.test');
    await page.getByLabel('Пароль').fill(PASSWORD);
    await page.getByRole('button', { name: 'Войти' }).click();
    await page.waitForURL('**/oauth/authorize?**');
    expect(await page.getByTestId('oauth-client-name').innerText()).toBe('Smeta Agent');
    await check(page, '/oauth/authorize', problems, 'body', codes);
    // Allowing sends the browser to the client's callback (nobody listens there: the request is enough).
    const [callback] = await Promise.all([
      page.waitForRequest((r) => r.url().startsWith(redirect)),
      page.locator('button[name="decision"][value="allow"]').click(),
    ]);
    expect(new URL(callback.url()).searchParams.get('code')).toBeTruthy();

    // The Profile's integrators' blocks: the application's token and grant, the webhook (a new tab: the first one
    // is still failing to reach the callback).
    const profile = await context.newPage();
    await profile.goto(server.url + '/profile');
    // Each block holds its form of a new one (a token, a webhook) and the list of the user's.
    const blocks = ['tokens-title', 'webhooks-title'].map((id) => `section[aria-labelledby="${id}"]`);
    expect(await profile.locator(blocks.join(', ')).count()).toBe(2);
    await check(profile, '/profile (integrations)', problems, blocks.join(', '), codes);
    expect(problems, problems.join('\n')).toEqual([]);
    await context.close();
  });
});
