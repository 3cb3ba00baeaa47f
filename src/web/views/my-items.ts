import type { WebSession } from '../../features/sessions/sessions.service.js';
import type { MyItems } from '../../features/worklists/worklists.service.js';
import { html } from '../html.js';
import { badge, languageOf, page } from '../layout.js';
import { ballLabel, deadline, pager, priorityLabel } from './project-page.js';

/** "My items": where the user is a participant, across projects; open first, then by deadline. */
export function myItemsView(m: MyItems & { session: WebSession }): string {
  const { t } = languageOf(m.session);
  return page({
    title: t('nav.myItems'),
    session: m.session,
    path: '/my-items',
    body: html`<h1>${t('nav.myItems')}</h1>
<p class="muted">${t('myItems.lead')}</p>
${
  m.rows.length
    ? html`<table><thead><tr><th scope="col">${t('project.item')}</th><th scope="col">${t('projects.project')}</th><th scope="col">${t('project.status')}</th><th scope="col">${t('project.priority')}</th><th scope="col">${t('project.deadline')}</th><th scope="col">${t('project.ballInCourt')}</th></tr></thead>
<tbody>${m.rows.map(
        (
          i,
        ) => html`<tr data-testid="my-item-row"><td><a href="/items/${i.id}">${i.text}</a></td><td data-label="${t('projects.project')}"><a href="/projects/${i.project_id}">${i.project_name}</a></td>
<td data-label="${t('project.status')}">${badge(i.status, '—', t)}</td><td data-label="${t('project.priority')}">${priorityLabel(t, i.priority)}</td>
<td data-label="${t('project.deadline')}">${deadline(i, m.today, t)}</td>
<td data-label="${t('project.ballInCourt')}" data-testid="item-ball-in-court" data-value="${i.ball_in_court}">${ballLabel(t, i.ball_in_court, i.responsible_company)}</td></tr>`,
      )}</tbody></table>
${pager(
  '/my-items',
  (n) => (n > 1 ? `?page=${n}` : ''),
  m,
  (n) => t('web.items', { count: n }),
  t,
)}`
    : html`<p class="muted" data-testid="no-items">${t('myItems.none')}</p>`
}`,
  }).value;
}
