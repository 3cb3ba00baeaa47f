import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { READ_ONLY_SCOPES, type Scope, SCOPES } from '../../domain/scopes.js';
import { isCalendarDate } from '../../domain/values.js';
import { ApiError, validationError } from '../../errors.js';
import type { TokenView } from '../../features/tokens/tokens.service.js';
import { formOf, idParam } from '../form.js';
import { html } from '../html.js';
import { badge, csrfField, page, time } from '../layout.js';
import { sessionOf } from '../session.js';

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
};

/** Expiry choices (DESIGN.md §4): days from now, a date (valid through the end of that day, UTC), or none. */
export const EXPIRY_CHOICES = [
  { value: '7d', label: '7 days', days: 7 },
  { value: '30d', label: '30 days', days: 30 },
  { value: '60d', label: '60 days', days: 60 },
  { value: '90d', label: '90 days', days: 90 },
  { value: '1y', label: '1 year', days: 365 },
  { value: 'date', label: 'On a date…', days: null },
  { value: 'never', label: 'No expiry', days: null },
] as const;
export const DEFAULT_EXPIRY = '30d';

export function expiryFrom(choice: string, date: string, now: Date): Date | null {
  const preset = EXPIRY_CHOICES.find((c) => c.value === choice);
  if (!preset) throw validationError('expiry', 'choose one of the offered expiries');
  if (preset.days !== null) return new Date(now.getTime() + preset.days * 86_400_000);
  if (choice === 'never') return null;
  if (!isCalendarDate(date)) throw validationError('expiry date', 'choose the last day the token is valid (YYYY-MM-DD)');
  const end = new Date(`${date}T00:00:00.000Z`);
  end.setUTCDate(end.getUTCDate() + 1);
  if (end <= now) throw validationError('expiry date', 'must be today or later');
  return end;
}

interface FormState {
  name: string;
  expiry: string;
  date: string;
  scopes: string[];
}

const EMPTY_FORM: FormState = { name: '', expiry: DEFAULT_EXPIRY, date: '', scopes: [...READ_ONLY_SCOPES] };

function tokenRow(token: TokenView, csrf: ReturnType<typeof csrfField>) {
  return html`<tr data-testid="token-row" data-token-id="${token.id}">
<td data-testid="token-name">${token.name}</td>
<td>${token.scopes.map((s) => html`<code>${s}</code> `)}</td>
<td>${time(token.created_at)}</td>
<td>${time(token.expires_at, 'never')}</td>
<td>${token.last_used_at ? html`${time(token.last_used_at)}<br><span class="muted">from ${token.last_used_ip ?? 'unknown'}</span>` : html`<span class="muted">never</span>`}</td>
<td data-testid="token-state">${badge(token.state)}</td>
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

async function profilePage(
  request: FastifyRequest,
  reply: FastifyReply,
  options: { status?: number; form?: FormState; error?: string | null; notice?: string | null; created?: { name: string; token: string } } = {},
) {
  const session = sessionOf(request);
  const tokens = await request.server.ctx.tokens.listTokens(session.user.id);
  const form = options.form ?? EMPTY_FORM;
  const csrf = csrfField(session);
  reply.header('cache-control', 'no-store');
  return reply
    .code(options.status ?? 200)
    .type('text/html; charset=utf-8')
    .send(
      page({
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
      }).value,
    );
}

export async function profilePages(app: FastifyInstance) {
  const { tokens, clock } = app.ctx;

  app.get('/profile', async (request, reply) => {
    const notice = (request.query as Record<string, string | undefined>).revoked ? 'The token was revoked.' : null;
    return profilePage(request, reply, { notice });
  });

  app.get('/profile/tokens', async (_request, reply) => reply.redirect('/profile', 303));

  app.post('/profile/tokens', async (request, reply) => {
    const session = sessionOf(request);
    const body = formOf(request);
    const form: FormState = {
      name: body.get('name') ?? '',
      expiry: body.get('expiry') ?? DEFAULT_EXPIRY,
      date: body.get('expiry_date') ?? '',
      scopes: body.getAll('scopes'),
    };
    try {
      const expiresAt = expiryFrom(form.expiry, form.date.trim(), clock.now());
      const created = await tokens.createToken({ userId: session.user.id, name: form.name, scopes: form.scopes, expiresAt });
      request.log.info({ tokenId: created.id, userId: session.user.id }, 'API token created in the web interface');
      return profilePage(request, reply, { status: 201, created: { name: form.name.trim(), token: created.token } });
    } catch (err) {
      if (err instanceof ApiError && err.status === 422) {
        return profilePage(request, reply, { status: 422, form, error: `The token was not created: ${err.message}` });
      }
      throw err;
    }
  });

  app.post('/profile/tokens/:id/revoke', async (request, reply) => {
    const session = sessionOf(request);
    const id = idParam(request);
    const owned = (await tokens.listTokens(session.user.id)).find((t) => t.id === id);
    if (!owned) throw new ApiError(404, 'not_found', 'The token was not found.');
    if (formOf(request).get('confirmed') !== '1') {
      // Without the script's confirm() dialog, a page asks instead.
      return reply.type('text/html; charset=utf-8').send(
        page({
          title: 'Revoke token',
          session,
          path: '/profile',
          body: html`<h1>Revoke the token “${owned.name}”?</h1>
<p>Applications using it stop working at once: their next call is refused. This cannot be undone.</p>
<form method="post" action="/profile/tokens/${id}/revoke">${csrfField(session)}<input type="hidden" name="confirmed" value="1">
<div class="actions"><button type="submit" class="danger">Revoke</button><a class="button secondary" href="/profile">Cancel</a></div></form>`,
        }).value,
      );
    }
    await tokens.revokeToken(id, session.user.id);
    request.log.info({ tokenId: id, userId: session.user.id }, 'API token revoked in the web interface');
    return reply.redirect('/profile?revoked=1', 303);
  });
}
