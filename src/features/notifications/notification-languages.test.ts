import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogs } from '../../i18n/i18n.js';
import { createTestClock } from '../../../test/helpers/factories.js';
import { startSmtpReceiver, type SmtpReceiver } from '../../../test/helpers/smtp.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { USERS } from '../../../test/helpers/workspace.js';
import { eventText } from './notification-kinds.js';
import { ITEM_EMAIL_WINDOW_MS } from './notifications.repository.js';

/**
 * Notifications and their emails in the recipient's language (issue 45, docs/decisions.md "Languages"): a real
 * server on both dialects and a real SMTP receiver; the Profile's choice decides, no choice is English.
 */
const clock = createTestClock('2030-05-10T09:00:00Z');
let smtp: SmtpReceiver;
let server: TestServer;
const mail = (key: keyof typeof USERS) => `${key}@punchlist.test`;
const manager = { id: USERS.manager, role: 'member' as const, name: 'Manager' };
const drain = () => server.ctx.notificationWorker.drainNow();
const setLanguage = (key: keyof typeof USERS, language: string | null) =>
  server.ctx.db.kysely.updateTable('users').set({ language }).where('id', '=', USERS[key]).execute();

/** The words of the English messages of emails and notifications (the product's name and placeholders aside). */
const englishWords = (() => {
  const en = catalogs().en;
  const words = new Set<string>();
  for (const [key, source] of Object.entries(en)) {
    if (!key.startsWith('email.') && !key.startsWith('notification.')) continue;
    const text = source
      .replace(/\{[a-z]+(,[^{}]*)?\}/gi, ' ')
      .replace(/\b(select|plural|other|one|day|approved|accepted|rejected)\b/g, ' ');
    for (const word of text.match(/[A-Za-z]{3,}/g) ?? []) if (word !== 'Punchlist' && word !== 'API') words.add(word.toLowerCase());
  }
  return words;
})();

/** The English message words found in `text`, links and the given user content taken out first. */
function englishIn(text: string, ...userContent: string[]): string[] {
  let rest = text.replace(/https?:\/\/\S+/g, ' ');
  for (const content of userContent) rest = rest.split(content).join(' ');
  return (rest.match(/[A-Za-z]{3,}/g) ?? []).map((w) => w.toLowerCase()).filter((w) => englishWords.has(w));
}

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  server = await startTestServer({ clock, env: { SMTP_URL: smtp.url, MAIL_FROM: 'Punchlist <noreply@punchlist.test>' } });
  await drain();
});
afterAll(async () => {
  await server.close();
  await smtp.stop();
});

describe('notifications in the recipient’s language', () => {
  it('emails a Russian executor in Russian (subject, body, plural, date), and an English one as before', async () => {
    expect(englishWords.has('rework')).toBe(true);
    server.ctx.notificationWorker.start();
    await setLanguage('executor', 'ru');
    await server.ctx.review.returnToRework(manager, 1001, { reason: 'Перекрасить стену', deadline: '2099-01-15' });
    await drain();
    clock.advance(ITEM_EMAIL_WINDOW_MS);
    const [single] = await smtp.waitFor(mail('executor'), 1, 15_000);
    const parsed = single!.parsed;
    expect(parsed.subject).toBe('Punchlist: «Item 1001»');
    expect(parsed.text).toContain('Manager вернул(а) пункт «Item 1001» на доработку: Перекрасить стену (новый срок 15 янв. 2099 г.)');
    expect(parsed.text).toContain('Вы получили это письмо согласно своим настройкам уведомлений');
    expect(parsed.html).toContain('Открыть в Punchlist');
    expect(parsed.html).toContain('настройкам уведомлений</a>.');
    expect(englishIn(parsed.text!, 'Item 1001', 'Manager')).toEqual([]);
    expect(englishIn(String(parsed.html).replace(/<[^>]+>/g, ' '), 'Item 1001', 'Manager')).toEqual([]);

    // Three changes within the minute: one message, a Russian plural.
    for (const text of ['Краска ещё сырая', 'Второй слой', 'Ещё одно']) await server.ctx.comments.addComment(manager, 1001, { text });
    await drain();
    clock.advance(ITEM_EMAIL_WINDOW_MS);
    const [, gathered] = await smtp.waitFor(mail('executor'), 2, 15_000);
    expect(gathered!.parsed.subject).toBe('Punchlist: «Item 1001» (3 изменения)');
    expect(gathered!.parsed.text).toContain('3 изменения по пункту «Item 1001»:');
    expect(gathered!.parsed.text).toContain('- Manager прокомментировал(а) пункт «Item 1001»: Второй слой');
    expect(englishIn(gathered!.parsed.text!, 'Item 1001', 'Manager')).toEqual([]);
    // The web list reads the same Russian lines (written when made, in the recipient's language).
    const [latest] = await server.ctx.notifications.list(USERS.executor, 1);
    expect(latest!.text).toBe('Manager прокомментировал(а) пункт «Item 1001»: Ещё одно');

    // partial chose nothing: English, word for word as before.
    await server.ctx.comments.addComment(manager, 1000, { text: 'Bracket next' });
    await drain();
    clock.advance(ITEM_EMAIL_WINDOW_MS);
    const [english] = await smtp.waitFor(mail('partial'), 1, 15_000);
    expect(english!.parsed.subject).toMatch(/^Punchlist: “.+”$/);
    expect(english!.parsed.text).toContain('Manager commented on “');
    expect(english!.parsed.text).toContain('You receive this because of your notification preferences:');
    await setLanguage('executor', null);
  });

  it('writes reminders and token notices in German with the day and time as German writes them, in the user’s zone', async () => {
    clock.set('2030-06-10T09:00:00Z');
    await setLanguage('observer', 'de');
    await server.ctx.db.kysely.updateTable('users').set({ time_zone: 'Europe/Berlin' }).where('id', '=', USERS.observer).execute();
    await setLanguage('executor', 'de');
    await server.ctx.itemWrites.setPlanning({ ...manager }, 1000, { deadline: '2030-06-11' });
    await server.ctx.tokens.createToken({
      userId: USERS.observer,
      name: 'CI {count}',
      scopes: ['projects:read'],
      expiresAt: new Date('2030-06-13T09:00:00Z'),
    });
    await server.ctx.notifications.runScheduled();
    const [notice] = (await server.ctx.notifications.list(USERS.observer)).filter((n) => n.kind === 'token_expiring');
    expect(notice!.text).toBe('Ihr API-Token „CI {count}“ läuft innerhalb von 7 Tagen ab (13.06.2030, 11:00 Europe/Berlin)');
    expect(notice!.subject).toBe('API-Token „CI {count}“ läuft bald ab');
    const [reminder] = (await server.ctx.notifications.list(USERS.executor)).filter((n) => n.kind === 'deadline_tomorrow');
    expect(reminder!.text).toMatch(/^„.+“ ist morgen fällig \(11\.06\.2030\)$/);
    await setLanguage('executor', null);
  });
});

describe('the lines of notifications', () => {
  it('passes user content through as typed in every language: braces and ICU syntax are never parsed', () => {
    const event = {
      id: 1,
      type: 'comment.created' as const,
      item_id: 5,
      actor_id: 1,
      data: { comment: { text: '{count, plural, one {x}}' } },
    };
    for (const language of ['en', 'ru', 'de'] as const) {
      const line = eventText('comment_created', event, '{actor}', 'Розетка {0} #', language);
      expect(line).toContain('{actor}');
      expect(line).toContain('Розетка {0} #');
      expect(line).toContain('{count, plural, one {x}}');
    }
    expect(eventText('item_done', event, null, 'X', 'ru')).toBe('Кто-то перевёл(а) пункт «X» в статус «Выполнен»');
  });
});
