import type { AuthorizationRequest } from '../../features/oauth/oauth.service.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import { html } from '../html.js';
import { csrfField, languageOf, page } from '../layout.js';
import { ALL_PROJECTS, EXPIRY_CHOICES, type ProjectChoice } from '../token-expiry.js';
import { expiryLabel, projectChoiceFieldset, scopeHelp } from './profile-page.js';
import { errorSummary } from './forms.js';

export interface ConsentModel {
  session: WebSession;
  request: AuthorizationRequest;
  /** What the form holds when shown again with an error: the scopes kept and the expiry chosen. */
  scopes?: string[];
  expiry?: string;
  date?: string;
  /** The projects the user sees, offered as the grant's project limit (docs/design.md §18), and the choice made. */
  projects: { id: number; name: string }[];
  choice?: ProjectChoice;
  error?: string | null;
}

/**
 * The OAuth consent page (docs/design.md §8, §12): names the client and where the answer goes, one ticked
 * checkbox per scope asked for (unticking narrows the grant), an expiry, "Allow" and "Deny". Everything
 * the client registered is shown escaped, as text: never a link or an image it chose.
 */
export function consentPageView(model: ConsentModel): string {
  const { request, session } = model;
  const kept = model.scopes ?? request.scopes;
  const expiry = model.expiry ?? '30d';
  const { t } = languageOf(session);
  const client = request.client.name;
  return page({
    title: t('integrations.consent.title'),
    session,
    body: html`<section class="card" aria-labelledby="consent-title">
<h1 id="consent-title">${t('integrations.consent.headingBefore')}<span data-testid="oauth-client-name">${client}</span>${t('integrations.consent.headingAfter')}</h1>
<p>${t('integrations.consent.asksBefore')}<strong>${client}</strong>${t('integrations.consent.asksAfter', { user: session.user.name })}<strong data-testid="oauth-redirect-host">${request.redirectHost}</strong>.</p>
${request.client.clientUri ? html`<p class="muted">${t('integrations.consent.homePage')} <code>${request.client.clientUri}</code></p>` : ''}
<p class="warning">${t('integrations.consent.warning')}</p>
<form method="post" action="/oauth/authorize">
${csrfField(session)}
${model.error ? errorSummary('consent', [{ text: model.error }]) : ''}
<input type="hidden" name="response_type" value="code">
<input type="hidden" name="client_id" value="${request.client.id}">
<input type="hidden" name="redirect_uri" value="${request.redirectUri}">
${request.state !== null ? html`<input type="hidden" name="state" value="${request.state}">` : ''}
<input type="hidden" name="code_challenge" value="${request.codeChallenge}">
<input type="hidden" name="code_challenge_method" value="S256">
<input type="hidden" name="scope" value="${request.scopes.join(' ')}">
${request.resource ? html`<input type="hidden" name="resource" value="${request.resource}">` : ''}
<fieldset>
<legend>${t('integrations.scopes')}</legend>
<p class="hint">${t('integrations.consent.untick')}</p>
${request.scopes.map(
  (scope) => html`<div><label class="inline" for="scope-${scope}"><input type="checkbox" id="scope-${scope}" name="scopes" value="${scope}"
  ${kept.includes(scope) ? html`checked` : ''} aria-describedby="scope-help-${scope}">${scope}</label>
<span class="muted" id="scope-help-${scope}">${scopeHelp(scope, t)}</span></div>`,
)}
</fieldset>
${projectChoiceFieldset(model.choice ?? ALL_PROJECTS, model.projects, t)}
<label for="token-expiry">${t('integrations.expiry')}</label>
<select id="token-expiry" name="expiry" aria-describedby="oauth-expiry-help">
${EXPIRY_CHOICES.map((c) => html`<option value="${c.value}" ${expiry === c.value ? html`selected` : ''}>${expiryLabel(c.value, t)}</option>`)}
</select>
<p id="oauth-expiry-help" class="hint">${t('integrations.consent.expiryHelp')}</p>
<div id="token-expiry-date-field">
<label for="token-expiry-date">${t('integrations.validThrough')}</label>
<input id="token-expiry-date" type="date" name="expiry_date" value="${model.date ?? ''}">
</div>
<div class="actions"><button type="submit" name="decision" value="allow">${t('integrations.consent.allow')}</button>
<button type="submit" name="decision" value="deny" class="secondary">${t('integrations.consent.deny')}</button></div>
</form>
</section>`,
  }).value;
}

/** A refused authorization request: the error, and a way back to the application only when it can be trusted. */
export function authorizationErrorView(options: {
  session: WebSession | null;
  error: string;
  description: string;
  returnTo: string | null;
}): string {
  const { t } = languageOf(options.session);
  return page({
    title: t('integrations.refused.title'),
    session: options.session,
    body: html`<h1>${t('integrations.refused.heading')}</h1>
<p role="alert">${options.description} <code data-testid="oauth-error">${options.error}</code></p>
${
  options.returnTo
    ? html`<p>${t('integrations.refused.offer')} <a href="${options.returnTo}" rel="noreferrer">${t('integrations.refused.return')}</a> (${new URL(options.returnTo).host}) ${t('integrations.refused.toTell')}</p>`
    : html`<p>${t('integrations.refused.nothingSent')}</p>`
}
<p><a href="/">${t('integrations.home')}</a></p>`,
  }).value;
}
