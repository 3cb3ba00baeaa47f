import {
  DELIVERY_MODES,
  type DeliveryMode,
  NOTIFICATION_KINDS,
  type NotificationKind,
} from '../../features/notifications/notification-kinds.js';
import type { NotificationRow } from '../../features/notifications/notifications.repository.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, languageOf, page, time, writeKeyField } from '../layout.js';
import type { MessageKey } from '../../i18n/i18n.js';

interface NotificationsPageModel {
  session: WebSession;
  notifications: NotificationRow[];
  unread: number;
  notice?: string | null;
}

/** `/notifications`: newest first, each a link that marks it read on the way to its item (or the Profile). */
export function notificationsPageView({ session, notifications, unread, notice }: NotificationsPageModel): string {
  const { t } = languageOf(session);
  return page({
    title: t('nav.notifications'),
    session,
    path: '/notifications',
    notice,
    body: html`<h1>${t('nav.notifications')}</h1>
<p class="muted">${t('notifications.unread', { count: unread })} ${t('notifications.setIn')}
<a href="/profile#notifications">${t('notifications.profile')}</a>.</p>
${
  unread > 0
    ? html`<form method="post" action="/notifications/read-all">${csrfField(session)}${writeKeyField()}<div class="actions"><button type="submit">${t('notifications.markAll')}</button></div></form>`
    : ''
}
${
  notifications.length
    ? html`<ul class="notifications">
${notifications.map(
  (
    n,
  ) => html`<li class="${n.read_at ? 'read' : 'unread'}"><a href="/notifications/${n.id}/open">${n.read_at ? '' : html`<span class="sr-only">${t('notifications.unreadMark')} </span>`}${n.text}</a>
<span class="muted">${time(n.at, '—', session.timeZone)}</span></li>`,
)}
</ul>`
    : html`<p class="muted">${t('notifications.none')}</p>`
}`,
  }).value;
}

export interface NotificationPreferencesModel {
  modes: Record<NotificationKind, DeliveryMode>;
  emailEnabled: boolean;
  /** The user's address failed at its last email: why and when. */
  failing: { error: string; at: string } | null;
  saved?: boolean;
}

/** The Profile's "Notifications" block: per kind, Email / Daily digest / Web only. */
export function notificationPreferencesBlock(model: NotificationPreferencesModel, session: WebSession): SafeHtml {
  const { t } = languageOf(session);
  // The kinds' and modes' names in the page's language (worklists.json; the English ones are notification-kinds.ts's).
  const kindLabel = (kind: NotificationKind) => t(`notifications.kind.${kind}` as MessageKey);
  const modeLabel = (mode: DeliveryMode) => t(`notifications.mode.${mode}` as MessageKey);
  return html`<section class="card" id="notifications" aria-labelledby="notifications-title">
<h2 id="notifications-title">${t('nav.notifications')}</h2>
${
  model.failing
    ? html`<div class="error" role="alert">${t('notifications.failing', { email: session.user.email, error: model.failing.error })}</div>`
    : ''
}
${model.saved ? html`<div class="notice" role="status">${t('notifications.saved')}</div>` : ''}
<p class="muted">${t('notifications.how')}
${model.emailEnabled ? '' : t('notifications.noEmail')}</p>
<form method="post" action="/profile/notifications">
${csrfField(session)}${writeKeyField()}
<table>
<thead><tr><th scope="col">${t('notifications.when')}</th><th scope="col">${t('notifications.howColumn')}</th></tr></thead>
<tbody>
${NOTIFICATION_KINDS.map(
  (kind) => html`<tr><td><label for="pref-${kind}">${kindLabel(kind)}</label></td>
<td><select id="pref-${kind}" name="${kind}">${DELIVERY_MODES.map(
    (mode) => html`<option value="${mode}" ${model.modes[kind] === mode ? html`selected` : ''}>${modeLabel(mode)}</option>`,
  )}</select></td></tr>`,
)}
</tbody>
</table>
<div class="actions"><button type="submit">${t('notifications.save')}</button></div>
</form>
</section>`;
}
