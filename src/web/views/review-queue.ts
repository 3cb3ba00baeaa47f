import type { WebSession } from '../../features/sessions/sessions.service.js';
import type { ReviewQueue } from '../../features/worklists/worklists.service.js';
import { html } from '../html.js';
import { page, time } from '../layout.js';
import { pager } from './project-page.js';

/** "To review" (docs/design.md §14): answers waiting for a review and done items without a verdict, oldest first. */
export function reviewQueueView(m: ReviewQueue & { session: WebSession }): string {
  return page({
    title: 'To review',
    session: m.session,
    path: '/review',
    body: html`<h1>To review</h1>
<p class="muted">Answers waiting for your review and items done without a verdict, in the projects you manage: the oldest first.</p>
${
  m.rows.length
    ? html`<table><thead><tr><th scope="col">Item</th><th scope="col">Project</th><th scope="col">Waiting for</th><th scope="col">Since</th></tr></thead>
<tbody>${m.rows.map(
        (
          r,
        ) => html`<tr data-testid="review-row"><td><a href="/items/${r.item_id}${r.answer_id ? `#answer-${r.answer_id}` : '#review-title'}">${r.item_text}</a></td>
<td data-label="Project"><a href="/projects/${r.project_id}">${r.project_name}</a></td>
<td data-label="Waiting for">${r.kind === 'answer' ? `a review of the answer by ${r.author_name ?? 'someone'}` : r.kind === 'dispute' ? 'a decision on a dispute' : 'a verdict (the item is done)'}</td>
<td data-label="Since">${time(r.since, '—', m.session.timeZone)}</td></tr>`,
      )}</tbody></table>
${pager(
  '/review',
  (n) => (n > 1 ? `?page=${n}` : ''),
  m,
  (n) => `${n} waiting`,
)}`
    : html`<p class="muted" data-testid="no-items">Nothing waits for your review.</p>`
}`,
  }).value;
}
