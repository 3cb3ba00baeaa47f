import { READ_ONLY_SCOPES, type Scope, SCOPES } from '../../domain/scopes.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import type { TokenView } from '../../features/tokens/tokens.service.js';
import { html } from '../html.js';
import { badge, csrfField, page, time } from '../layout.js';
import { EXPIRY_CHOICES, type TokenFormState } from '../token-expiry.js';

const SCOPE_HELP: Record<Scope, string> = {
  'auth:me': 'check the connected user, the token’s scopes and validity',
  'projects:read': 'list projects, read project cards and trees',
  'projects:search': 'search inside a project',
  'items:read': 'read items: status, planning, comments, answers, participants, images',
  'items:status.write': 'change item status',
  'items:planning.write': 'change deadline, priority, requires_answer',
  'comments:write': 'add comments',
  'answers:write': 'add answers',
  'items:materials.write': 'attach images to items and answers, replace document links',
  'events:read': 'read the change feed: what changed in the projects you can see',
};

function tokenRow(token: TokenView, csrf: ReturnType<typeof csrfField>) {
  return html`<tr data-testid="token-row" data-token-id="${token.id}">
<td data-testid="token-name">${token.name}</td>
<td data-label="Scopes">${token.scopes.map((s) => html`<code>${s}</code> `)}</td>
<td data-label="Created">${time(token.created_at)}</td>
<td data-label="Expires">${time(token.expires_at, 'never')}</td>
<td data-label="Last used">${token.last_used_at ? html`${time(token.last_used_at)}<br><span class="muted">from ${token.last_used_ip ?? 'unknown'}</span>` : html`<span class="muted">never</span>`}</td>
<td data-label="State" data-testid="token-state">${badge(token.state)}</td>
<td>${
    token.state === 'active'
      ? html`<form method="post" action="/profile/tokens/${token.id}/revoke" class="inline"
  data-confirm="${`Revoke the token “${token.name}”? Applications using it stop working at once.`}">
${csrf}<input type="hidden" name="confirmed" value="">
<button type="submit" class="danger small">Revoke</button></form>`
      : ''
  }</td>
</tr>`;
}

export interface ProfileModel {
  session: WebSession;
  tokens: TokenView[];
  form: TokenFormState;
  error?: string | null;
  notice?: string | null;
  created?: { name: string; token: string };
}

/** The profile: who you are, and your API tokens (create one, see them all, revoke one). */
export function profilePageView(options: ProfileModel): string {
  const { session, tokens, form } = options;
  const csrf = csrfField(session);
  return page({
    title: 'Profile',
    session,
    path: '/profile',
    notice: options.notice,
    body: html`<h1>Profile</h1>
<section class="card" aria-labelledby="me-title">
<h2 id="me-title">You</h2>
<dl class="facts"><dt>Name</dt><dd>${session.user.name}</dd><dt>Email</dt><dd>${session.user.email}</dd>
<dt>Role</dt><dd>${session.user.role}</dd></dl>
</section>
<section class="card" aria-labelledby="tokens-title">
<h2 id="tokens-title">External API tokens</h2>
<p class="muted">A token lets an external application call the API as you, limited to the scopes you choose.</p>
${
  options.created
    ? html`<div class="card" aria-labelledby="new-token-title">
<h3 id="new-token-title">New token “${options.created.name}”</h3>
<p class="warning"><strong>Copy it now: it is shown only this once.</strong> Store it like a password; anyone holding it acts as you.</p>
<code class="token" id="new-token" data-testid="new-token">${options.created.token}</code>
<div class="actions"><button type="button" class="secondary" data-copy="new-token" hidden>Copy</button></div>
</div>`
    : ''
}
${options.error ? html`<div class="error" role="alert">${options.error}</div>` : ''}
<form method="post" action="/profile/tokens">
${csrf}
<label for="token-name">Name</label>
<input id="token-name" type="text" name="name" maxlength="200" required value="${form.name}" aria-describedby="token-name-help">
<p id="token-name-help" class="muted">What the token is for, e.g. “CRM sync”.</p>
<label for="token-expiry">Expiry</label>
<select id="token-expiry" name="expiry">
${EXPIRY_CHOICES.map((c) => html`<option value="${c.value}" ${form.expiry === c.value ? html`selected` : ''}>${c.label}</option>`)}
</select>
<div id="token-expiry-date-field">
<label for="token-expiry-date">Valid through</label>
<input id="token-expiry-date" type="date" name="expiry_date" value="${form.date}" aria-describedby="token-expiry-date-help">
<p id="token-expiry-date-help" class="muted">Used with “On a date…”: the token works until the end of that day (UTC).</p>
</div>
<fieldset>
<legend>Scopes</legend>
<div class="actions presets">
<button type="button" class="secondary small" data-preset="${READ_ONLY_SCOPES.join(' ')}" hidden>Read-only</button>
<button type="button" class="secondary small" data-preset="${SCOPES.join(' ')}" hidden>Full access</button>
</div>
${SCOPES.map(
  (scope) => html`<div><label class="inline" for="scope-${scope}"><input type="checkbox" id="scope-${scope}" name="scopes" value="${scope}"
  ${form.scopes.includes(scope) ? html`checked` : ''} aria-describedby="scope-help-${scope}">${scope}</label>
<span class="muted" id="scope-help-${scope}">${SCOPE_HELP[scope]}</span></div>`,
)}
</fieldset>
<div class="actions"><button type="submit">Create token</button></div>
</form>
<h3>Your tokens</h3>
${
  tokens.length
    ? html`<table>
<thead><tr><th scope="col">Name</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Expires</th>
<th scope="col">Last used</th><th scope="col">State</th><th scope="col"><span class="sr-only">Action</span></th></tr></thead>
<tbody>${tokens.map((t) => tokenRow(t, csrf))}</tbody></table>`
    : html`<p class="muted">No tokens yet.</p>`
}
</section>`,
  }).value;
}

/** Without the script's confirm() dialog, a page asks before a token is revoked. */
export function revokeTokenView(session: WebSession, token: { id: number; name: string }): string {
  return page({
    title: 'Revoke token',
    session,
    path: '/profile',
    body: html`<h1>Revoke the token “${token.name}”?</h1>
<p>Applications using it stop working at once: their next call is refused. This cannot be undone.</p>
<form method="post" action="/profile/tokens/${token.id}/revoke">${csrfField(session)}<input type="hidden" name="confirmed" value="1">
<div class="actions"><button type="submit" class="danger">Revoke</button><a class="button secondary" href="/profile">Cancel</a></div></form>`,
  }).value;
}
