import type { AuthorizationRequest } from '../../features/oauth/oauth.service.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import { html } from '../html.js';
import { csrfField, page } from '../layout.js';
import { ALL_PROJECTS, EXPIRY_CHOICES, type ProjectChoice } from '../token-expiry.js';
import { projectChoiceFieldset, SCOPE_HELP } from './profile-page.js';
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
  return page({
    title: 'Allow access',
    session,
    body: html`<section class="card" aria-labelledby="consent-title">
<h1 id="consent-title">Allow <span data-testid="oauth-client-name">${request.client.name}</span> to use Punchlist as you?</h1>
<p>The application <strong>${request.client.name}</strong> asks to act as you (${session.user.name}) through the external API and MCP,
limited to the scopes you allow. Your answer is sent to <strong data-testid="oauth-redirect-host">${request.redirectHost}</strong>.</p>
${request.client.clientUri ? html`<p class="muted">The application gives this address as its home page: <code>${request.client.clientUri}</code></p>` : ''}
<p class="warning">Punchlist has not checked this application: its name is what whoever registered it chose. Allow only an
application you are connecting yourself, right now.</p>
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
<legend>Scopes</legend>
<p class="hint">Untick what the application should not do.</p>
${request.scopes.map(
  (scope) => html`<div><label class="inline" for="scope-${scope}"><input type="checkbox" id="scope-${scope}" name="scopes" value="${scope}"
  ${kept.includes(scope) ? html`checked` : ''} aria-describedby="scope-help-${scope}">${scope}</label>
<span class="muted" id="scope-help-${scope}">${SCOPE_HELP[scope]}</span></div>`,
)}
</fieldset>
${projectChoiceFieldset(model.choice ?? ALL_PROJECTS, model.projects)}
<label for="token-expiry">Expiry</label>
<select id="token-expiry" name="expiry" aria-describedby="oauth-expiry-help">
${EXPIRY_CHOICES.map((c) => html`<option value="${c.value}" ${expiry === c.value ? html`selected` : ''}>${c.label}</option>`)}
</select>
<p id="oauth-expiry-help" class="hint">How long the application may keep renewing its access; you can revoke it earlier in your Profile.</p>
<div id="token-expiry-date-field">
<label for="token-expiry-date">Valid through</label>
<input id="token-expiry-date" type="date" name="expiry_date" value="${model.date ?? ''}">
</div>
<div class="actions"><button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button></div>
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
  return page({
    title: 'Authorization refused',
    session: options.session,
    body: html`<h1>This authorization request cannot be answered</h1>
<p role="alert">${options.description} <code data-testid="oauth-error">${options.error}</code></p>
${
  options.returnTo
    ? html`<p>The application asked for something this server does not offer. <a href="${options.returnTo}" rel="noreferrer">Return to the application</a> (${new URL(options.returnTo).host}) to tell it.</p>`
    : html`<p>Nothing was sent to the application. If you were connecting one, start again from it.</p>`
}
<p><a href="/">Home</a></p>`,
  }).value;
}
