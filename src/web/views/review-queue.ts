import type { WebSession } from '../../features/sessions/sessions.service.js';
import type { ReviewQueue } from '../../features/worklists/worklists.service.js';
import { html } from '../html.js';
import { languageOf, page, time } from '../layout.js';
import { pager } from './project-page.js';

/** "To review" (docs/design.md §14): answers waiting for a review and done items without a verdict, oldest first. */
export function reviewQueueView(m: ReviewQueue & { session: WebSession }): string {
  const { t } = languageOf(m.session);
  return page({
    title: t('nav.toReview'),
    session: m.session,
    path: '/review',
    body: html`<h1>${t('nav.toReview')}</h1>
<p class="muted">${t('review.lead')}</p>
${
  m.rows.length
    ? html`<table><thead><tr><th scope="col">${t('project.item')}</th><th scope="col">${t('projects.project')}</th><th scope="col">${t('review.waitingFor')}</th><th scope="col">${t('review.since')}</th></tr></thead>
<tbody>${m.rows.map(
        (
          r,
        ) => html`<tr data-testid="review-row"><td><a href="/items/${r.item_id}${r.answer_id ? `#answer-${r.answer_id}` : '#review-title'}">${r.item_text}</a></td>
<td data-label="${t('projects.project')}"><a href="/projects/${r.project_id}">${r.project_name}</a></td>
<td data-label="${t('review.waitingFor')}">${r.kind === 'answer' ? t('review.answerBy', { name: r.author_name ?? t('review.someone') }) : r.kind === 'dispute' ? t('review.dispute') : t('review.verdict')}</td>
<td data-label="${t('review.since')}">${time(r.since, '—', m.session.timeZone)}</td></tr>`,
      )}</tbody></table>
${pager(
  '/review',
  (n) => (n > 1 ? `?page=${n}` : ''),
  m,
  (n) => t('review.waiting', { count: n }),
  t,
)}`
    : html`<p class="muted" data-testid="no-items">${t('review.nothing')}</p>`
}`,
  }).value;
}
