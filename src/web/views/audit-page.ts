import type { AuditRecord } from '../../features/audit/audit.service.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import type { TokenView } from '../../features/tokens/tokens.service.js';
import { html } from '../html.js';
import { badge, page, time } from '../layout.js';

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
  return page({
    title: 'Audit log',
    session,
    path: '/audit',
    body: html`<h1>Audit log</h1>
<p class="muted">${admin ? 'Every request recorded: calls to the API and changes made in the web interface, by everybody, newest first.' : 'Your calls to the API and your changes in the web interface, newest first.'}</p>
<form method="get" action="/audit" class="card" aria-label="Filters">
<div class="actions">
${
  admin
    ? html`<div><label for="audit-user">User</label><select id="audit-user" name="user"><option value="">All users</option>
${users.map((u) => html`<option value="${u.id}" ${form.user === String(u.id) ? html`selected` : ''}>${u.name} (${u.email})</option>`)}</select></div>
<div><label for="audit-token">Token id</label><input id="audit-token" type="number" min="1" name="token" value="${form.token}"></div>`
    : html`<div><label for="audit-token">Token</label><select id="audit-token" name="token"><option value="">All my tokens</option>
${ownTokens.map((t) => html`<option value="${t.id}" ${form.token === String(t.id) ? html`selected` : ''}>${t.name} (#${t.id}, ${t.state})</option>`)}</select></div>`
}
<div><label for="audit-status">Status</label><input id="audit-status" type="text" name="status" value="${form.status}" placeholder="401 or 4xx" size="6" pattern="[1-5]([0-9]{2}|[xX]{2})"></div>
<div><label for="audit-from">From</label><input id="audit-from" type="datetime-local" name="from" value="${form.from}"></div>
<div><label for="audit-to">To</label><input id="audit-to" type="datetime-local" name="to" value="${form.to}"></div>
</div>
<div class="actions"><button type="submit">Filter</button><a href="/audit">Clear</a></div>
</form>
${
  records.length
    ? html`<table>
<thead><tr><th scope="col">Time</th>${admin ? html`<th scope="col">User</th>` : ''}<th scope="col">Token</th><th scope="col">Call</th>
<th scope="col">Status</th><th scope="col">Client</th><th scope="col">Duration</th><th scope="col">Entity</th></tr></thead>
<tbody>${records.map(
        (r) => html`<tr data-testid="audit-row">
<td>${time(r.at, '—', session.timeZone)}<br><span class="muted">${r.request_id}</span></td>
${admin ? html`<td data-label="User">${r.user_id === null ? '—' : (userNames.get(r.user_id) ?? `#${r.user_id}`)}</td>` : ''}
<td data-label="Token">${r.token_id === null ? '—' : `${tokenNames.get(r.token_id) ?? ''} #${r.token_id}`}</td>
<td data-label="Call"><code>${r.method} ${r.path}${r.query ? `?${r.query}` : ''}</code></td>
<td data-label="Status">${r.status}${r.error_code ? html` ${badge(r.error_code)}` : ''}</td>
<td data-label="Client">${r.ip ?? '—'}<br><span class="muted">${(r.user_agent ?? '').slice(0, 80)}</span></td>
<td data-label="Duration">${Math.round(r.duration_ms)} ms</td>
<td data-label="Entity">${r.entity_type ? `${r.entity_type} #${r.entity_id}` : '—'}</td>
</tr>`,
      )}</tbody></table>
${records.length === limit ? html`<p class="muted">Showing the newest ${limit}; narrow the time range to see older calls.</p>` : ''}`
    : html`<p class="muted">No calls match.</p>`
}`,
  }).value;
}
