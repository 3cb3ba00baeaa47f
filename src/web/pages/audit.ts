import type { FastifyInstance } from 'fastify';
import { auditRecordsOwner, canAdminister } from '../../domain/policy.js';
import type { AuditFilter } from '../../features/audit/audit.service.js';
import { parseId } from '../form.js';
import { html } from '../html.js';
import { badge, page, time } from '../layout.js';
import { sessionOf } from '../session.js';

const LIMIT = 200;
const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/;

/** `200` (exact) or `4xx` (a class); anything else is no status filter. */
function statusFilter(value: string): Pick<AuditFilter, 'status' | 'statusRange'> {
  if (/^[1-5][0-9]{2}$/.test(value)) return { status: Number(value) };
  const match = /^([1-5])xx$/i.exec(value);
  return match ? { statusRange: { min: Number(match[1]) * 100, max: Number(match[1]) * 100 + 99 } } : {};
}

/** A `datetime-local` value, read as UTC. */
const utc = (value: string) => (LOCAL_TIME.test(value) && !Number.isNaN(Date.parse(`${value}:00Z`)) ? `${value}:00.000Z` : undefined);

/**
 * The audit log: a user sees the calls made with their own tokens; an administrator sees every call
 * and may filter by user. Filters: token, status (exact or class), time range (UTC).
 */
export async function auditPages(app: FastifyInstance) {
  const { audit, tokens, usersAdmin } = app.ctx;

  app.get('/audit', async (request, reply) => {
    const session = sessionOf(request);
    const admin = canAdminister(session.user);
    const q = request.query as Record<string, string | undefined>;
    const form = { token: q.token ?? '', user: q.user ?? '', status: (q.status ?? '').trim(), from: q.from ?? '', to: q.to ?? '' };
    const ownTokens = await tokens.listTokens(session.user.id);
    const users = admin ? await usersAdmin.listUsers(session.user) : [];
    const tokenId = parseId(form.token) ?? undefined;
    const userId = auditRecordsOwner(session.user, parseId(form.user) ?? undefined);
    const records = await audit.list({
      userId,
      tokenId,
      ...statusFilter(form.status),
      since: utc(form.from),
      until: utc(form.to),
      limit: LIMIT,
    });
    const tokenNames = new Map(ownTokens.map((t) => [t.id, t.name]));
    const userNames = new Map(users.map((u) => [u.id, u.name]));
    return reply.type('text/html; charset=utf-8').send(
      page({
        title: 'Audit log',
        session,
        path: '/audit',
        body: html`<h1>Audit log</h1>
<p class="muted">${admin ? 'Every call to the API, newest first.' : 'Your calls to the API and your changes in the web interface, newest first.'} Times are UTC.</p>
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
<td>${time(r.at)}<br><span class="muted">${r.request_id}</span></td>
${admin ? html`<td>${r.user_id === null ? '—' : (userNames.get(r.user_id) ?? `#${r.user_id}`)}</td>` : ''}
<td>${r.token_id === null ? '—' : `${tokenNames.get(r.token_id) ?? ''} #${r.token_id}`}</td>
<td><code>${r.method} ${r.path}${r.query ? `?${r.query}` : ''}</code></td>
<td>${r.status}${r.error_code ? html` ${badge(r.error_code)}` : ''}</td>
<td>${r.ip ?? '—'}<br><span class="muted">${(r.user_agent ?? '').slice(0, 80)}</span></td>
<td>${Math.round(r.duration_ms)} ms</td>
<td>${r.entity_type ? `${r.entity_type} #${r.entity_id}` : '—'}</td>
</tr>`,
      )}</tbody></table>
${records.length === LIMIT ? html`<p class="muted">Showing the newest ${LIMIT}; narrow the time range to see older calls.</p>` : ''}`
    : html`<p class="muted">No calls match.</p>`
}`,
      }).value,
    );
  });
}
