import type { MailMessage } from '../mail/mailer.js';
import { headerSafe } from '../mail/mailer.js';
import type { NotificationRow } from './notifications.repository.js';

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Where a notification leads: its item, or the Profile (tokens, webhooks, applications). */
export function notificationLink(baseUrl: string, n: Pick<NotificationRow, 'item_id'>): string {
  return n.item_id !== null ? `${baseUrl}/items/${n.item_id}` : `${baseUrl}/profile`;
}

const cut = (value: string, max: number) => ([...value].length > max ? [...value].slice(0, max - 1).join('') + '…' : value);

/**
 * The email of one notification, or the digest of several: plain text and HTML (everything users wrote
 * escaped), the subject naming the item or token, a link to it, a `List-Unsubscribe` header and a link to
 * the preferences. Headers are single lines: CR and LF never reach them from names or item texts.
 */
export function renderEmail(to: string, notifications: readonly NotificationRow[], baseUrl: string): MailMessage {
  const preferences = `${baseUrl}/profile#notifications`;
  const single = notifications.length === 1 ? notifications[0]! : null;
  const subject = single
    ? `Punchlist: ${cut(headerSafe(single.subject), 120)}`
    : `Punchlist: your daily digest (${notifications.length} notifications)`;
  const lines = notifications.map((n) => `- ${n.text}\n  ${notificationLink(baseUrl, n)}`);
  const text = [
    single ? single.text : 'What happened since your last digest:',
    '',
    single ? notificationLink(baseUrl, single) : lines.join('\n\n'),
    '',
    '--',
    `You receive this because of your notification preferences: ${preferences}`,
    '',
  ].join('\n');
  const items = notifications
    .map((n) => `<li><a href="${escapeHtml(notificationLink(baseUrl, n))}">${escapeHtml(n.text)}</a></li>`)
    .join('\n');
  const html = `<!doctype html>
<html><body>
${single ? `<p>${escapeHtml(single.text)}</p>\n<p><a href="${escapeHtml(notificationLink(baseUrl, single))}">Open in Punchlist</a></p>` : `<p>What happened since your last digest:</p>\n<ul>\n${items}\n</ul>`}
<hr>
<p style="font-size:small">You receive this because of your <a href="${escapeHtml(preferences)}">notification preferences</a>.</p>
</body></html>`;
  return {
    to: headerSafe(to),
    subject: headerSafe(subject),
    text,
    html,
    headers: { 'List-Unsubscribe': `<${preferences}>` },
  };
}
