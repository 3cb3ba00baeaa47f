import { ballInCourtLabel } from '../../domain/ball-in-court.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import type { MyItems } from '../../features/worklists/worklists.service.js';
import { html } from '../html.js';
import { badge, page } from '../layout.js';
import { deadline, pager } from './project-page.js';
import { plural } from '../../domain/plural.js';

/** "My items": where the user is a participant, across projects; open first, then by deadline. */
export function myItemsView(m: MyItems & { session: WebSession }): string {
  return page({
    title: 'My items',
    session: m.session,
    path: '/my-items',
    body: html`<h1>My items</h1>
<p class="muted">The items you take part in, in the active projects: open ones first, the nearest deadline first; done ones last.</p>
${
  m.rows.length
    ? html`<table><thead><tr><th scope="col">Item</th><th scope="col">Project</th><th scope="col">Status</th><th scope="col">Priority</th><th scope="col">Deadline</th><th scope="col">Ball in court</th></tr></thead>
<tbody>${m.rows.map(
        (
          i,
        ) => html`<tr data-testid="my-item-row"><td><a href="/items/${i.id}">${i.text}</a></td><td data-label="Project"><a href="/projects/${i.project_id}">${i.project_name}</a></td>
<td data-label="Status">${badge(i.status)}</td><td data-label="Priority">${i.priority}</td>
<td data-label="Deadline">${deadline(i, m.today)}</td>
<td data-label="Ball in court" data-testid="item-ball-in-court" data-value="${i.ball_in_court}">${ballInCourtLabel(i.ball_in_court, i.responsible_company)}</td></tr>`,
      )}</tbody></table>
${pager(
  '/my-items',
  (n) => (n > 1 ? `?page=${n}` : ''),
  m,
  (n) => plural(n, 'item'),
)}`
    : html`<p class="muted" data-testid="no-items">You are not a participant of any item yet.</p>`
}`,
  }).value;
}
