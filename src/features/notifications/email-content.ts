import type { MailMessage } from '../mail/mailer.js';
import { headerSafe } from '../mail/mailer.js';
import { type Language, translator } from '../../i18n/i18n.js';
import type { NotificationRow } from './notifications.repository.js';

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Where a notification leads: its item, or the Profile (tokens, webhooks, applications). */
export function notificationLink(baseUrl: string, n: Pick<NotificationRow, 'item_id'>): string {
  return n.item_id !== null ? `${baseUrl}/items/${n.item_id}` : `${baseUrl}/profile`;
}

const cut = (value: string, max: number) => ([...value].length > max ? [...value].slice(0, max - 1).join('') + '…' : value);

/**
 * The email of one notification, of several about one item (gathered within a minute: one message listing them),
 * or the digest of several: plain text and HTML (everything users wrote escaped), the subject naming the item or
 * token, a link to it, a `List-Unsubscribe` header and a link to the preferences. Headers are single lines: CR and
 * LF never reach them from names or item texts. Its words are in the recipient's `language`; the notifications'
 * own lines were written in it when they were made.
 */
export function renderEmail(
  to: string,
  notifications: readonly NotificationRow[],
  baseUrl: string,
  digest = false,
  language: Language = 'en',
): MailMessage {
  const t = translator(language);
  const preferences = `${baseUrl}/profile#notifications`;
  const first = notifications[0]!;
  const single = notifications.length === 1 && !digest;
  const count = notifications.length;
  const subject = digest
    ? t('email.subjectDigest', { count })
    : single
      ? t('email.subject', { subject: cut(headerSafe(first.subject), 120) })
      : t('email.subjectGathered', { subject: cut(headerSafe(first.subject), 100), count });
  const intro = digest ? t('email.introDigest') : t('email.introGathered', { count, subject: first.subject });
  const text = [
    single ? first.text : intro,
    '',
    single
      ? notificationLink(baseUrl, first)
      : digest
        ? notifications.map((n) => `- ${n.text}\n  ${notificationLink(baseUrl, n)}`).join('\n\n')
        : `${notifications.map((n) => `- ${n.text}`).join('\n')}\n\n${notificationLink(baseUrl, first)}`,
    '',
    '--',
    t('email.footerText', { url: preferences }),
    '',
  ].join('\n');
  const open = `<p><a href="${escapeHtml(notificationLink(baseUrl, first))}">${escapeHtml(t('email.open'))}</a></p>`;
  // The link inside the footer's sentence: the sentence escaped around a mark, the mark then the link.
  const mark = '\u0000';
  const footer = escapeHtml(t('email.footerHtml', { preferences: mark })).replace(
    mark,
    `<a href="${escapeHtml(preferences)}">${escapeHtml(t('email.preferences'))}</a>`,
  );
  const body = single
    ? `<p>${escapeHtml(first.text)}</p>\n${open}`
    : digest
      ? `<p>${escapeHtml(intro)}</p>\n<ul>\n${notifications
          .map((n) => `<li><a href="${escapeHtml(notificationLink(baseUrl, n))}">${escapeHtml(n.text)}</a></li>`)
          .join('\n')}\n</ul>`
      : `<p>${escapeHtml(intro)}</p>\n<ul>\n${notifications.map((n) => `<li>${escapeHtml(n.text)}</li>`).join('\n')}\n</ul>\n${open}`;
  const html = `<!doctype html>
<html><body>
${body}
<hr>
<p style="font-size:small">${footer}</p>
</body></html>`;
  return {
    to: headerSafe(to),
    subject: headerSafe(subject),
    text,
    html,
    headers: { 'List-Unsubscribe': `<${preferences}>` },
  };
}
