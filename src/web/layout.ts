import { randomUUID } from 'node:crypto';
import type { WebSession } from '../features/sessions/sessions.service.js';
import { FAVICON, ICONS, OFFLINE_SCRIPT, SCRIPT, STYLESHEET } from './assets.js';
import { html, type HtmlValue, type SafeHtml } from './html.js';
import { zonedTime } from '../domain/time-zones.js';
import { type Language, type MessageKey, scriptMessages, type Translate, translator } from '../i18n/i18n.js';

interface PageOptions {
  title: string;
  session: WebSession | null;
  /** The current path, to mark the navigation entry. */
  path?: string;
  notice?: string | null;
  error?: HtmlValue;
  body: HtmlValue;
  /** Scripts of this page alone (the plan viewer), after the shared one. */
  scripts?: readonly { path: string }[];
  /** The page's language when nobody is signed in (the sign-in page: the browser's); else the session's. */
  language?: Language;
}

const NAV = [
  { href: '/projects', label: 'nav.projects' },
  { href: '/my-items', label: 'nav.myItems' },
  { href: '/audit', label: 'nav.audit' },
  { href: '/profile', label: 'nav.profile' },
] as const;

/** The language a page is written in, and its translator: the session's (the web fills it per request), else English. */
export function languageOf(session: WebSession | null, language?: Language): { language: Language; t: Translate } {
  const chosen = language ?? session?.language ?? 'en';
  return { language: chosen, t: translator(chosen) };
}

function nav(session: WebSession, path: string, t: Translate) {
  const review = typeof session.toReview === 'number' ? [{ href: '/review', label: t('nav.toReview'), count: session.toReview }] : [];
  const admin = session.user.role === 'admin' ? [{ href: '/admin', label: t('nav.admin') }] : [];
  // The dashboard across projects for those who manage somewhere (they review: a count, even 0) and admins.
  const dashboard =
    typeof session.toReview === 'number' || session.user.role === 'admin' ? [{ href: '/dashboard', label: t('nav.dashboard') }] : [];
  const [projects, myItems, ...rest] = NAV.map((e) => ({ href: e.href, label: t(e.label) }));
  const entries: { href: string; label: string; count?: number }[] = [projects!, ...dashboard, myItems!, ...review, ...rest, ...admin];
  return entries.map(
    (e) =>
      html`<a href="${e.href}" ${path === e.href || path.startsWith(e.href + '/') ? html`aria-current="page"` : ''}>${e.label}${
        e.count ? html` <span class="nav-count" data-testid="review-count">${e.count}</span>` : ''
      }</a>`,
  );
}

/** The navigation's "Notifications" link with the unread count, refreshed by the script (docs/design.md §15). */
function notificationsLink(session: WebSession, path: string, t: Translate): SafeHtml {
  const unread = session.unreadNotifications ?? 0;
  const current = path === '/notifications' || path.startsWith('/notifications/');
  return html`<a href="/notifications" ${current ? html`aria-current="page"` : ''}>${t('nav.notifications')}<span class="nav-count" data-notification-count ${unread ? '' : html`hidden`}><span class="sr-only">${t('nav.unread')}</span><span data-count>${unread}</span></span></a>`;
}

/** The one layout: skip link, top bar with navigation and sign-out, messages, content. */
export function page(options: PageOptions): SafeHtml {
  const { session } = options;
  const { language, t } = languageOf(session, options.language);
  return html`<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · Punchlist</title>
<link rel="icon" href="${FAVICON.path}" type="image/svg+xml">
<link rel="stylesheet" href="${STYLESHEET.path}">
<script src="${SCRIPT.path}" defer></script>
${scriptWords(language)}
${(options.scripts ?? []).map(
  (script) => html`<script src="${script.path}" defer></script>
`,
)}${appHead(session)}
</head>
<body>
<a class="skip" href="#main">${t('layout.skip')}</a>
<header class="top"><div class="bar">
<a class="brand" href="/">Punchlist</a>
${
  session
    ? html`<button type="button" class="menu-button" aria-expanded="false" aria-controls="site-menu">${t('layout.menu')}</button>
<div class="menu" id="site-menu">
<nav aria-label="${t('nav.label')}">${nav(session, options.path ?? '', t)}${notificationsLink(session, options.path ?? '', t)}</nav>
<span class="who">${session.user.name}</span>
<form method="post" action="/logout" data-sign-out>${csrfField(session)}${writeKeyField()}<button type="submit">${t('layout.signOut')}</button></form>
</div>`
    : ''
}
</div></header>
<main id="main" tabindex="-1">
${session ? outbox(t) : ''}
${options.notice ? html`<div class="notice" role="status">${options.notice}</div>` : ''}
${options.error ? html`<div class="error" role="alert">${options.error}</div>` : ''}
${options.body}
</main>
</body>
</html>`;
}

const scriptWordsCache = new Map<Language, SafeHtml>();

/**
 * The browser scripts' words in the page's language (i18n scriptMessages), read by app.js, offline.js and markup.js
 * from `<meta name="punchlist-messages">`: a data attribute, not an inline script, which the CSP forbids.
 */
function scriptWords(language: Language): SafeHtml {
  let block = scriptWordsCache.get(language);
  if (!block) {
    block = html`<meta name="punchlist-messages" content="${JSON.stringify({ language, messages: scriptMessages(language) })}">`;
    scriptWordsCache.set(language, block);
  }
  return block;
}

/**
 * Installable app and offline layer (docs/design.md §16): the manifest, and for a signed-in user the script that
 * registers the service worker and queues writes, told whose device data it handles.
 */
function appHead(session: WebSession | null): SafeHtml {
  return html`<link rel="manifest" href="/manifest.webmanifest">
<meta name="theme-color" content="#17324f">
<link rel="icon" type="image/png" sizes="192x192" href="${ICONS[0]!.path}">
<link rel="apple-touch-icon" href="${ICONS[0]!.path}">
${session ? html`<meta name="punchlist-user" content="${String(session.user.id)}">` : ''}
<script src="${OFFLINE_SCRIPT.path}" defer></script>`;
}

/** Writes saved on this device while offline: filled by offline.js, hidden while there are none. */
function outbox(t: Translate): SafeHtml {
  return html`<section class="outbox" data-outbox hidden aria-label="${t('outbox.label')}">
<p role="status"><span data-testid="outbox-count">0</span> <span data-outbox-words>${t('outbox.changes')}</span> ${t('outbox.waiting')}</p>
<ul data-outbox-list></ul>
<p data-outbox-others hidden>${t('outbox.others')}</p>
</section>`;
}

export function csrfField(session: WebSession): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${session.csrfToken}">`;
}

/**
 * The hidden field that makes a form's submission idempotent (web/web-write.ts): a fresh key each time the
 * form is shown, so one per form on a page (a key shared by two forms would refuse the second as another request).
 */
export function writeKeyField(): SafeHtml {
  return html`<input type="hidden" name="_key" value="${randomUUID()}">`;
}

/**
 * A timestamp for people, to the minute, in `zone` (the user's IANA time zone; UTC when none is chosen)
 * with the zone's offset (e.g. "2026-03-01 14:05 GMT+1"); the exact value stays in `datetime`.
 */
export function time(iso: string | null | undefined, empty = '—', zone: string | null = null, seconds = false): SafeHtml {
  if (!iso) return html`${empty}`;
  return html`<time datetime="${iso}">${zonedTime(iso, zone, seconds)}</time>`;
}

/** A breadcrumb trail: the pages above this one, as links, without a trailing separator. */
export function crumbs(links: { href: string; label: string }[], t?: Translate): SafeHtml {
  return html`<nav aria-label="${t ? t('nav.breadcrumb') : 'Breadcrumb'}" class="crumbs"><ol>${links.map((l) => html`<li><a href="${l.href}">${l.label}</a></li>`)}</ol></nav>`;
}

/** The values a badge shows in the page's language (web.json's `badge.*`); any other is shown as it is. */
const BADGES = new Set(['pending', 'in_progress', 'done', 'blocked', 'accepted', 'rejected', 'approved', 'archived', 'overdue']);

/** A value as a badge; with the page's translator, the value's word in its language (the class keeps the value). */
export function badge(value: string | null | undefined, empty = '—', t?: Translate): SafeHtml {
  if (!value) return html`<span class="muted">${empty}</span>`;
  const words = t && BADGES.has(value) ? t(`badge.${value}` as MessageKey) : value.replace(/_/g, ' ');
  return html`<span class="badge s-${value}">${words}</span>`;
}

/** A link only for http(s) addresses; anything else (javascript:, data:…) is shown as text. */
export function safeLink(url: string, label: string): SafeHtml {
  return /^https?:\/\//i.test(url)
    ? html`<a href="${url}" rel="noopener noreferrer" target="_blank">${label}</a>`
    : html`${label} (${url})`;
}
