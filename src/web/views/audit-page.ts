import type { AuditRecord } from '../../features/audit/audit.service.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import type { TokenView } from '../../features/tokens/tokens.service.js';
import { html } from '../html.js';
import { badge, languageOf, page, time } from '../layout.js';

interface AuditPageModel {
  session: WebSession;
  /** An administrator sees every record and filters by user. */
  admin: boolean;
  form: { token: string; user: string; status: string; from: string; to: string };
  users: { id: number; name: string; email: string }[];
  ownTokens: TokenView[];
  records: AuditRecord[];
  limit: number;
}

/** The audit log: the filters, then the newest records first. */
export function auditPageView({ session, admin, form, users, ownTokens, records, limit }: AuditPageModel): string {
  const tokenNames = new Map(ownTokens.map((t) => [t.id, t.name]));
  const userNames = new Map(users.map((u) => [u.id, u.name]));
  const { t } = languageOf(session);
  return page({
    title: t('nav.audit'),
    session,
    path: '/audit',
    body: html`<h1>${t('nav.audit')}</h1>
<p class="muted">${admin ? t('audit.leadAdmin') : t('audit.lead')}</p>
<form method="get" action="/audit" class="card" aria-label="${t('audit.filters')}">
<div class="actions">
${
  admin
    ? html`<div><label for="audit-user">${t('audit.user')}</label><select id="audit-user" name="user"><option value="">${t('audit.allUsers')}</option>
${users.map((u) => html`<option value="${u.id}" ${form.user === String(u.id) ? html`selected` : ''}>${u.name} (${u.email})</option>`)}</select></div>
<div><label for="audit-token">${t('audit.tokenId')}</label><input id="audit-token" type="number" min="1" name="token" value="${form.token}"></div>`
    : html`<div><label for="audit-token">${t('audit.token')}</label><select id="audit-token" name="token"><option value="">${t('audit.allTokens')}</option>
${ownTokens.map((tk) => html`<option value="${tk.id}" ${form.token === String(tk.id) ? html`selected` : ''}>${tk.name} (#${tk.id}, ${t(`audit.state.${tk.state}`)})</option>`)}</select></div>`
}
<div><label for="audit-status">${t('project.status')}</label><input id="audit-status" type="text" name="status" value="${form.status}" placeholder="${t('audit.statusHint')}" size="6" pattern="[1-5]([0-9]{2}|[xX]{2})"></div>
<div><label for="audit-from">${t('audit.from')}</label><input id="audit-from" type="datetime-local" name="from" value="${form.from}"></div>
<div><label for="audit-to">${t('audit.to')}</label><input id="audit-to" type="datetime-local" name="to" value="${form.to}"></div>
</div>
<div class="actions"><button type="submit">${t('project.filter.submit')}</button><a href="/audit">${t('project.filter.clear')}</a></div>
</form>
${
  records.length
    ? html`<table>
<thead><tr><th scope="col">${t('audit.time')}</th>${admin ? html`<th scope="col">${t('audit.user')}</th>` : ''}<th scope="col">${t('audit.token')}</th><th scope="col">${t('audit.call')}</th>
<th scope="col">${t('project.status')}</th><th scope="col">${t('audit.client')}</th><th scope="col">${t('audit.duration')}</th><th scope="col">${t('audit.entity')}</th></tr></thead>
<tbody>${records.map(
        (r) => html`<tr data-testid="audit-row">
<td>${time(r.at, '—', session.timeZone)}<br><span class="muted">${r.request_id}</span></td>
${admin ? html`<td data-label="${t('audit.user')}">${r.user_id === null ? '—' : (userNames.get(r.user_id) ?? `#${r.user_id}`)}</td>` : ''}
<td data-label="${t('audit.token')}">${r.token_id === null ? '—' : `${tokenNames.get(r.token_id) ?? ''} #${r.token_id}`}</td>
<td data-label="${t('audit.call')}"><code>${r.method} ${r.path}${r.query ? `?${r.query}` : ''}</code></td>
<td data-label="${t('project.status')}">${r.status}${r.error_code ? html` ${badge(r.error_code)}` : ''}</td>
<td data-label="${t('audit.client')}">${r.ip ?? '—'}<br><span class="muted">${(r.user_agent ?? '').slice(0, 80)}</span></td>
<td data-label="${t('audit.duration')}">${t('audit.ms', { ms: Math.round(r.duration_ms) })}</td>
<td data-label="${t('audit.entity')}">${r.entity_type ? `${r.entity_type} #${r.entity_id}` : '—'}</td>
</tr>`,
      )}</tbody></table>
${records.length === limit ? html`<p class="muted">${t('audit.limit', { limit })}</p>` : ''}`
    : html`<p class="muted">${t('audit.none')}</p>`
}`,
  }).value;
}
