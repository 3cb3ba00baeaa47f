import { describe, expect, it } from 'vitest';
import { askedLanguage, storedLanguage } from '../../src/i18n/i18n.js';
import { ITEM_EMAIL_WINDOW_MS } from '../../src/features/notifications/notifications.repository.js';
import { createTestClock } from '../helpers/factories.js';
import { useMailingServer } from '../helpers/smtp.js';
import { USERS } from '../helpers/workspace.js';
import { WebClient } from './web-client.js';

/**
 * A user who chose no language (issue 45, docs/decisions.md "Languages: a user with no stored language"): the
 * language their browser asked for at sign-in is remembered (`users.browser_language`), and what is written to
 * them later (notifications, emails) is in it; the Profile's choice, when made, still wins; the pages keep following
 * the browser of the moment.
 */
const clock = createTestClock('2030-05-10T09:00:00Z');
const mailing = useMailingServer(clock);
const manager = { id: USERS.manager, role: 'member' as const, name: 'Manager' };
const drain = () => mailing.drain();

const languagesOf = (id: number) =>
  mailing.server.ctx.db.kysely.selectFrom('users').select(['language', 'browser_language']).where('id', '=', id).executeTakeFirstOrThrow();

async function signIn(user: keyof typeof USERS, acceptLanguage?: string) {
  const web = new WebClient(mailing.server.url, acceptLanguage === undefined ? {} : { 'accept-language': acceptLanguage });
  expect((await web.signIn(user)).status).toBe(303);
  return web;
}

async function latestText(user: keyof typeof USERS): Promise<string> {
  const [latest] = await mailing.server.ctx.notifications.list(USERS[user], 1);
  return latest!.text;
}

describe("the browser's language, remembered at sign-in", () => {
  it('is the choice, else the browser’s last, else English', () => {
    expect(storedLanguage('de', 'ru')).toBe('de');
    expect(storedLanguage(null, 'ru')).toBe('ru');
    expect(storedLanguage('xx', 'yy')).toBe('en');
    expect(storedLanguage(null, null)).toBe('en');
    expect(storedLanguage(undefined)).toBe('en');
    expect([undefined, '', '*', ' * ;q=0.5', 'q=1'].map(askedLanguage)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(['ru-RU,ru;q=0.9', 'de', 'fr-FR, *;q=0.1', 'en;q=0.5, ru'].map(askedLanguage)).toEqual(['ru', 'de', 'en', 'ru']);
  });

  it('writes notifications and emails in the language the browser asked for, until the Profile chooses one', async () => {
    expect(await languagesOf(USERS.executor)).toEqual({ language: null, browser_language: null });
    await signIn('executor', 'ru-RU,ru;q=0.9,en;q=0.8');
    expect(await languagesOf(USERS.executor)).toEqual({ language: null, browser_language: 'ru' });
    // A sign-in whose browser says nothing keeps what was seen.
    await signIn('executor');
    expect((await languagesOf(USERS.executor)).browser_language).toBe('ru');

    mailing.server.ctx.notificationWorker.start();
    await mailing.server.ctx.comments.addComment(manager, 1001, { text: 'Краска сырая' });
    await drain();
    expect(await latestText('executor')).toBe('Manager прокомментировал(а) пункт «Item 1001»: Краска сырая');
    clock.advance(ITEM_EMAIL_WINDOW_MS);
    const [email] = await mailing.smtp.waitFor('executor@punchlist.test', 1, 15_000);
    expect(email!.parsed.subject).toBe('Punchlist: «Item 1001»');
    expect(email!.parsed.text).toContain('Вы получили это письмо согласно своим настройкам уведомлений');

    // The Profile's choice wins over the browser's.
    await mailing.server.ctx.db.kysely.updateTable('users').set({ language: 'de' }).where('id', '=', USERS.executor).execute();
    await mailing.server.ctx.comments.addComment(manager, 1001, { text: 'Zweite Schicht' });
    await drain();
    expect(await latestText('executor')).not.toMatch(/прокомментировал|commented/);

    // Back to "As my browser asks", and a browser asking for a language we do not speak: English, remembered.
    await mailing.server.ctx.db.kysely.updateTable('users').set({ language: null }).where('id', '=', USERS.executor).execute();
    const web = await signIn('executor', 'fr-FR, tlh;q=0.5');
    expect(await languagesOf(USERS.executor)).toEqual({ language: null, browser_language: 'en' });
    await mailing.server.ctx.comments.addComment(manager, 1001, { text: 'Third coat' });
    await drain();
    expect(await latestText('executor')).toBe('Manager commented on “Item 1001”: Third coat');
    // The pages still follow the browser of the moment, not the remembered one.
    expect((await web.get('/projects')).text).toMatch(/<html lang="en">/);
    expect((await new WebClient(mailing.server.url, { 'accept-language': 'de' }).get('/login')).text).toMatch(/<html lang="de">/);
  });
});
