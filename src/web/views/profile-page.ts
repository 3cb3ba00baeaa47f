import { notificationPreferencesBlock, type NotificationPreferencesModel } from './notifications-page.js';
import { SCOPE_DESCRIPTIONS, SCOPES } from '../../domain/scopes.js';
import { EVENT_TYPES } from '../../domain/values.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import type { OAuthConnection } from '../../features/oauth/oauth.service.js';
import type { TokenView } from '../../features/tokens/tokens.service.js';
import type { WebhookDeliveryRow } from '../../features/webhooks/webhooks.repository.js';
import type { WebhookWithDeliveries } from '../../features/webhooks/webhooks.service.js';
import { html, type SafeHtml } from '../html.js';
import { badge, csrfField, languageOf, page, time, writeKeyField } from '../layout.js';
import type { MessageKey, Translate } from '../../i18n/i18n.js';
import { EXPIRY_CHOICES, type ProjectChoice, SCOPE_PRESETS, type TokenFormState } from '../token-expiry.js';
import { type AccountModel, languageBlock, passwordBlock, timeZoneBlock, youBlock } from './profile-account.js';
import { errorSummary } from './forms.js';

/** What each scope allows (one text for the Profile, the consent page and the OpenAPI document). */
export const SCOPE_HELP = SCOPE_DESCRIPTIONS;

/** A scope's help in the page's language (integrations.json; the English is SCOPE_DESCRIPTIONS, the OpenAPI's). */
export const scopeHelp = (scope: string, t: Translate): string => t(`integrations.scope.${scope}` as MessageKey);

/** An expiry choice's label in the page's language. */
export const expiryLabel = (value: string, t: Translate): string => t(`integrations.expiry.${value}` as MessageKey);

/**
 * "Projects" of a token form (docs/design.md §18): "All my projects" or a choice among `offered` (the projects the
 * user sees). Plain radios and checkboxes: it works without the script.
 */
/** A project a token may be limited to (archived ones too: read-only, still readable). */
export interface OfferedProject {
  id: number;
  name: string;
  archived?: boolean;
}

/** A project's name as offered: an archived one says so, in the page's language (the name is an argument). */
const offeredName = (p: OfferedProject, t: Translate) => (p.archived ? t('integrations.projects.archived', { name: p.name }) : p.name);

export function projectChoiceFieldset(choice: ProjectChoice, offered: readonly OfferedProject[], t: Translate) {
  return html`<fieldset data-testid="token-projects">
<legend>${t('integrations.projects')}</legend>
<div><label class="inline" for="projects-all"><input type="radio" id="projects-all" name="projects" value="all"
  ${choice.projects === 'all' ? html`checked` : ''}>${t('integrations.projects.all')}</label>
<span class="muted">${t('integrations.projects.allHelp')}</span></div>
<div><label class="inline" for="projects-chosen"><input type="radio" id="projects-chosen" name="projects" value="chosen"
  ${choice.projects === 'chosen' ? html`checked` : ''}>${t('integrations.projects.chosen')}</label></div>
${offered.map(
  (p) => html`<div class="indent"><label class="inline" for="project-${p.id}"><input type="checkbox" id="project-${p.id}" name="project_ids"
  value="${p.id}" ${choice.projectIds.includes(String(p.id)) ? html`checked` : ''}>${offeredName(p, t)}</label></div>`,
)}
<p class="hint">${t('integrations.projects.hint')}</p>
</fieldset>`;
}

/** What a token row shows of its project limit: "All", or the names (ids of projects no longer visible). */
function projectsCell(token: TokenView, names: ReadonlyMap<number, string>, t: Translate) {
  if (token.project_ids === null) return html`<span class="muted">${t('integrations.tokens.allProjects')}</span>`;
  return html`${token.project_ids.map((id, i) => html`${i ? ', ' : ''}${names.get(id) ?? `#${id}`}`)}`;
}

/**
 * A token row. An OAuth token (`connection`) is renewed by its application every hour: the row shows the
 * grant's expiry and state, and revoking it ends the grant.
 */
function tokenRow(
  token: TokenView,
  connection: OAuthConnection | undefined,
  csrf: SafeHtml,
  projectNames: ReadonlyMap<number, string>,
  zone: string | null,
  t: Translate,
) {
  // A token revoked elsewhere (the CLI) is revoked whatever its grant says until the next refresh ends it.
  const state = token.state === 'revoked' ? 'revoked' : (connection?.state ?? token.state);
  return html`<tr data-testid="token-row" data-token-id="${token.id}"${connection ? html` data-oauth="1"` : ''}>
<td data-testid="token-name">${token.name}${connection ? html`<br><span class="muted">${t('integrations.tokens.oauth')}</span>` : ''}</td>
<td data-label="${t('integrations.scopes')}">${token.scopes.map((s) => html`<code>${s}</code> `)}</td>
<td data-label="${t('integrations.projects')}" data-testid="token-projects">${projectsCell(token, projectNames, t)}</td>
<td data-label="${t('integrations.created')}">${time(token.created_at, '—', zone)}</td>
<td data-label="${t('integrations.expires')}">${time(connection ? connection.expiresAt : token.expires_at, t('integrations.never'), zone)}</td>
<td data-label="${t('integrations.lastUsed')}">${token.last_used_at ? html`${time(token.last_used_at, '—', zone)}<br><span class="muted">${t('integrations.from', { ip: token.last_used_ip ?? t('integrations.unknown') })}</span>` : html`<span class="muted">${t('integrations.never')}</span>`}</td>
<td data-label="${t('integrations.state')}" data-testid="token-state">${tokenState(state, t)}</td>
<td>${
    state === 'active'
      ? html`<form method="post" action="/profile/tokens/${token.id}/revoke" class="inline"
  data-confirm="${t('integrations.tokens.revokeConfirm', { name: token.name })}">
${csrf}${writeKeyField()}<input type="hidden" name="confirmed" value="">
<button type="submit" class="danger small">${t('integrations.tokens.revoke')}</button></form>`
      : ''
  }</td>
</tr>`;
}

/** A token's state in the page's language (active, expired, revoked); any other as `badge()` shows it. */
function tokenState(state: string, t: Translate) {
  return ['active', 'expired', 'revoked'].includes(state)
    ? html`<span class="badge s-${state}">${t(`integrations.state.${state}` as MessageKey)}</span>`
    : badge(state);
}

/** What the webhook form holds: empty, or what was typed when it is shown again with an error. */
export interface WebhookFormState {
  url: string;
  events: string[];
  /** The chosen project's id as posted; '' for all the user's projects. */
  project: string;
}

export const EMPTY_WEBHOOK_FORM: WebhookFormState = { url: '', events: [], project: '' };

export interface ProfileModel {
  session: WebSession;
  tokens: TokenView[];
  /** The OAuth grants behind some of the tokens, by token id. */
  connections: Map<number, OAuthConnection>;
  form: TokenFormState;
  /** The projects the user sees: offered in the token form, and the names in the token list. */
  projects: { id: number; name: string }[];
  error?: string | null;
  notice?: string | null;
  created?: { name: string; token: string };
  webhooks: WebhooksModel;
  /** The blocks about the account: who you are, time zone, password. */
  account: AccountModel;
  /** The "Notifications" block (docs/design.md §15). */
  notifications?: NotificationPreferencesModel;
}

export interface WebhooksModel {
  endpoints: WebhookWithDeliveries[];
  /** The projects offered in the form (the user's active ones), and names of the endpoints' projects. */
  projects: { id: number; name: string }[];
  projectNames: Map<number, string>;
  form: WebhookFormState;
  /** Whether loopback and private addresses are accepted (WEBHOOK_ALLOW_PRIVATE), for the hint. */
  allowPrivate: boolean;
  error?: { message: string; field: string | null } | null;
  created?: { url: string; secret: string };
}

/** The profile: who you are, and your API tokens (create one, see them all, revoke one). */
export function profilePageView(options: ProfileModel): string {
  const { session, tokens, form } = options;
  const csrf = csrfField(session);
  const { t } = languageOf(session);
  const projectNames = new Map(options.projects.map((p) => [p.id, offeredName(p, t)]));
  return page({
    title: t('nav.profile'),
    session,
    path: '/profile',
    notice: options.notice,
    body: html`<h1>${t('nav.profile')}</h1>
${youBlock(options.account)}
${languageBlock(options.account)}
${timeZoneBlock(options.account)}
${passwordBlock(options.account)}
<section class="card" aria-labelledby="tokens-title">
<h2 id="tokens-title">${t('integrations.tokens.title')}</h2>
<p class="muted">${t('integrations.tokens.lead')}</p>
${
  options.created
    ? html`<div class="card" aria-labelledby="new-token-title">
<h3 id="new-token-title">${t('integrations.tokens.new', { name: options.created.name })}</h3>
<p class="warning"><strong>${t('integrations.copyNow')}</strong> ${t('integrations.tokens.store')}</p>
<code class="token" id="new-token" data-testid="new-token">${options.created.token}</code>
<div class="actions"><button type="button" class="secondary" data-copy="new-token" hidden>${t('integrations.copy')}</button></div>
</div>`
    : ''
}
<form method="post" action="/profile/tokens">
${csrf}${writeKeyField()}
${options.error ? errorSummary('token', [{ text: options.error, href: '#token-name' }]) : ''}
<label for="token-name">${t('integrations.name')}</label>
<input id="token-name" type="text" name="name" maxlength="200" required value="${form.name}" aria-describedby="token-name-help">
<p id="token-name-help" class="muted">${t('integrations.tokens.nameHelp')}</p>
<label for="token-expiry">${t('integrations.expiry')}</label>
<select id="token-expiry" name="expiry">
${EXPIRY_CHOICES.map((c) => html`<option value="${c.value}" ${form.expiry === c.value ? html`selected` : ''}>${expiryLabel(c.value, t)}</option>`)}
</select>
<div id="token-expiry-date-field">
<label for="token-expiry-date">${t('integrations.validThrough')}</label>
<input id="token-expiry-date" type="date" name="expiry_date" value="${form.date}" aria-describedby="token-expiry-date-help">
<p id="token-expiry-date-help" class="muted">${t('integrations.tokens.dateHelp')}</p>
</div>
${projectChoiceFieldset(form, options.projects, t)}
<fieldset>
<legend>${t('integrations.scopes')}</legend>
<div class="actions presets">
${SCOPE_PRESETS.map(
  (p) => html`<button type="submit" name="preset" value="${p.value}" formnovalidate class="secondary small"
  data-preset="${p.scopes.join(' ')}">${t(`integrations.preset.${p.value}` as MessageKey)}</button>`,
)}
</div>
${SCOPES.map(
  (scope) => html`<div><label class="inline" for="scope-${scope}"><input type="checkbox" id="scope-${scope}" name="scopes" value="${scope}"
  ${form.scopes.includes(scope) ? html`checked` : ''} aria-describedby="scope-help-${scope}">${scope}</label>
<span class="muted" id="scope-help-${scope}">${scopeHelp(scope, t)}</span></div>`,
)}
</fieldset>
<div class="actions"><button type="submit">${t('integrations.tokens.create')}</button></div>
</form>
<h3>${t('integrations.tokens.yours')}</h3>
${
  tokens.length
    ? html`<table>
<thead><tr><th scope="col">${t('integrations.name')}</th><th scope="col">${t('integrations.scopes')}</th><th scope="col">${t('integrations.projects')}</th><th scope="col">${t('integrations.created')}</th><th scope="col">${t('integrations.expires')}</th>
<th scope="col">${t('integrations.lastUsed')}</th><th scope="col">${t('integrations.state')}</th><th scope="col"><span class="sr-only">${t('integrations.action')}</span></th></tr></thead>
<tbody>${tokens.map((token) => tokenRow(token, options.connections.get(token.id), csrf, projectNames, session.timeZone, t))}</tbody></table>`
    : html`<p class="muted">${t('integrations.tokens.none')}</p>`
}
</section>
${webhooksBlock(options.webhooks, csrf, session.timeZone, t)}
${options.notifications ? notificationPreferencesBlock(options.notifications, session) : ''}`,
  }).value;
}

/** Without the script's confirm() dialog, a page asks before a token is revoked. */
export function revokeTokenView(session: WebSession, token: { id: number; name: string }): string {
  const { t } = languageOf(session);
  return page({
    title: t('integrations.tokens.revokeTitle'),
    session,
    path: '/profile',
    body: html`<h1>${t('integrations.tokens.revokeHeading', { name: token.name })}</h1>
<p>${t('integrations.tokens.revokeLead')}</p>
<form method="post" action="/profile/tokens/${token.id}/revoke">${csrfField(session)}${writeKeyField()}<input type="hidden" name="confirmed" value="1">
<div class="actions"><button type="submit" class="danger">${t('integrations.tokens.revoke')}</button><a class="button secondary" href="/profile">${t('integrations.cancel')}</a></div></form>`,
  }).value;
}

function deliveryRow(delivery: WebhookDeliveryRow, csrf: SafeHtml, zone: string | null, t: Translate) {
  const response = delivery.response_code !== null ? `HTTP ${delivery.response_code}` : null;
  return html`<tr data-testid="delivery-row" data-delivery-id="${delivery.id}">
<td data-label="${t('integrations.webhooks.time')}">${time(delivery.at, '—', zone, true)}</td>
<td data-label="${t('integrations.webhooks.event')}" data-testid="delivery-event">${delivery.event_id}</td>
<td data-label="${t('integrations.webhooks.attempt')}">${delivery.attempt}${delivery.redelivery ? html` <span class="muted">(${t('integrations.webhooks.redelivery')})</span>` : ''}</td>
<td data-label="${t('integrations.webhooks.status')}" data-testid="delivery-status">${badge(delivery.status)}</td>
<td data-label="${t('integrations.webhooks.response')}">${response ?? ''}${response && delivery.error ? html`<br>` : ''}${delivery.error ? html`<span class="muted">${delivery.error}</span>` : ''}${!response && !delivery.error ? '—' : ''}</td>
<td data-label="${t('integrations.webhooks.duration')}">${delivery.duration_ms} ms</td>
<td><form method="post" action="/profile/webhooks/deliveries/${delivery.id}/redeliver" class="inline">${csrf}${writeKeyField()}
<button type="submit" class="secondary small">${t('integrations.webhooks.redeliver')}</button></form></td>
</tr>`;
}

function webhookRow(endpoint: WebhooksModel['endpoints'][number], model: WebhooksModel, csrf: SafeHtml, zone: string | null, t: Translate) {
  const project =
    endpoint.project_id === null
      ? t('integrations.projects.all')
      : (model.projectNames.get(endpoint.project_id) ?? t('integrations.webhooks.projectId', { id: endpoint.project_id }));
  const titleId = `webhook-${endpoint.id}-url`;
  return html`<article class="card" data-testid="webhook-row" data-webhook-id="${endpoint.id}" id="webhook-${endpoint.id}" aria-labelledby="${titleId}">
<h4 id="${titleId}" data-testid="webhook-url">${endpoint.url}</h4>
<dl class="facts">
<dt>${t('integrations.state')}</dt><dd data-testid="webhook-state">${tokenState(endpoint.state, t)}${
    endpoint.state === 'disabled'
      ? html` <span data-testid="webhook-disabled-reason">${endpoint.disabled_reason ?? t('integrations.webhooks.noReason')}</span>`
      : ''
  }</dd>
<dt>${t('integrations.webhooks.eventTypes')}</dt><dd data-testid="webhook-events">${endpoint.events === null ? t('integrations.webhooks.allEvents') : endpoint.events.map((e, i) => html`${i ? ', ' : ''}<code>${e}</code>`)}</dd>
<dt>${t('integrations.webhooks.project')}</dt><dd data-testid="webhook-project">${project}</dd>
<dt>${t('integrations.created')}</dt><dd>${time(endpoint.created_at, '—', zone)}</dd>
</dl>
${
  endpoint.state === 'active'
    ? html`<form method="post" action="/profile/webhooks/${endpoint.id}/disable" class="inline"
  data-confirm="${t('integrations.webhooks.disableConfirm', { url: endpoint.url })}">
${csrf}${writeKeyField()}<input type="hidden" name="confirmed" value="">
<button type="submit" class="danger small">${t('integrations.webhooks.disable')}</button></form>`
    : ''
}
<p><strong id="webhook-${endpoint.id}-deliveries">${t('integrations.webhooks.recent')}</strong></p>
${
  endpoint.deliveries.length
    ? html`<table aria-labelledby="webhook-${endpoint.id}-deliveries">
<thead><tr><th scope="col">${t('integrations.webhooks.time')}</th><th scope="col">${t('integrations.webhooks.event')}</th><th scope="col">${t('integrations.webhooks.attempt')}</th><th scope="col">${t('integrations.webhooks.status')}</th>
<th scope="col">${t('integrations.webhooks.response')}</th><th scope="col">${t('integrations.webhooks.duration')}</th><th scope="col"><span class="sr-only">${t('integrations.action')}</span></th></tr></thead>
<tbody>${endpoint.deliveries.map((d) => deliveryRow(d, csrf, zone, t))}</tbody></table>`
    : html`<p class="muted">${t('integrations.webhooks.noDeliveries')}</p>`
}
</article>`;
}

/** The Webhooks block (docs/design.md §8, §11): create an endpoint (secret shown once), the list, deliveries, redeliver. */
function webhooksBlock(model: WebhooksModel, csrf: SafeHtml, zone: string | null, t: Translate) {
  const { form, error } = model;
  const urlInvalid = error?.field === 'url';
  return html`<section class="card" aria-labelledby="webhooks-title">
<h2 id="webhooks-title">${t('integrations.webhooks.title')}</h2>
<p class="muted">${t('integrations.webhooks.lead')}</p>
${
  model.created
    ? html`<section class="card" aria-labelledby="new-webhook-title">
<h3 id="new-webhook-title">${t('integrations.webhooks.new', { url: model.created.url })}</h3>
<p class="warning"><strong>${t('integrations.copyNow')}</strong> ${t('integrations.webhooks.secretBefore')} <code>webhook-signature</code> ${t('integrations.webhooks.secretAfter')}</p>
<code class="token" id="new-webhook-secret" data-testid="new-webhook-secret">${model.created.secret}</code>
<div class="actions"><button type="button" class="secondary" data-copy="new-webhook-secret" hidden>${t('integrations.copy')}</button></div>
</section>`
    : ''
}
<form method="post" action="/profile/webhooks">
${csrf}${writeKeyField()}
${error ? html`<div id="webhook-error">${errorSummary('webhook', [{ text: error.message, href: urlInvalid ? '#webhook-url' : undefined }])}</div>` : ''}
<label for="webhook-url">URL</label>
<input id="webhook-url" type="url" name="url" maxlength="2000" required value="${form.url}" autocomplete="off"
  aria-describedby="webhook-url-help${urlInvalid ? ' webhook-error' : ''}"${urlInvalid ? html` aria-invalid="true"` : ''}>
<p id="webhook-url-help" class="hint">${model.allowPrivate ? t('integrations.webhooks.urlHelpPrivate') : t('integrations.webhooks.urlHelp')}</p>
<fieldset aria-describedby="webhook-events-help">
<legend>${t('integrations.webhooks.eventTypes')}</legend>
<p id="webhook-events-help" class="hint">${t('integrations.webhooks.eventsHelp')}</p>
${EVENT_TYPES.map(
  (type) => html`<div><label class="inline" for="event-${type}"><input type="checkbox" id="event-${type}" name="events" value="${type}"
  ${form.events.includes(type) ? html`checked` : ''}>${type}</label></div>`,
)}
</fieldset>
<label for="webhook-project">${t('integrations.webhooks.project')}</label>
<select id="webhook-project" name="project_id" aria-describedby="webhook-project-help">
<option value="">${t('integrations.projects.all')}</option>
${model.projects.map((p) => html`<option value="${p.id}" ${form.project === String(p.id) ? html`selected` : ''}>${p.name}</option>`)}
</select>
<p id="webhook-project-help" class="hint">${t('integrations.webhooks.projectHelp')}</p>
<div class="actions"><button type="submit">${t('integrations.webhooks.create')}</button></div>
</form>
<h3>${t('integrations.webhooks.yours')}</h3>
${model.endpoints.length ? model.endpoints.map((e) => webhookRow(e, model, csrf, zone, t)) : html`<p class="muted">${t('integrations.webhooks.none')}</p>`}
</section>`;
}

/** Without the script's confirm() dialog, a page asks before a webhook is disabled. */
export function disableWebhookView(session: WebSession, endpoint: { id: number; url: string }): string {
  const { t } = languageOf(session);
  return page({
    title: t('integrations.webhooks.disableTitle'),
    session,
    path: '/profile',
    body: html`<h1>${t('integrations.webhooks.disableHeading', { url: endpoint.url })}</h1>
<p>${t('integrations.webhooks.disableLead')}</p>
<form method="post" action="/profile/webhooks/${endpoint.id}/disable">${csrfField(session)}${writeKeyField()}<input type="hidden" name="confirmed" value="1">
<div class="actions"><button type="submit" class="danger">${t('integrations.webhooks.disable')}</button><a class="button secondary" href="/profile">${t('integrations.cancel')}</a></div></form>`,
  }).value;
}
