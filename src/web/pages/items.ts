import type { FastifyInstance } from 'fastify';
import { formOf, idParam } from '../form.js';
import { html } from '../html.js';
import { badge, csrfField, page, safeLink, time } from '../layout.js';
import { sessionOf } from '../session.js';
import { verdictForm } from './projects.js';

interface LinkLike {
  kind: string;
  title: string;
  url: string;
}
interface ImageLike {
  id: number;
  original_name: string;
  url: string;
  width: number;
  height: number;
}

const links = (list: LinkLike[]) =>
  list.length ? html`<ul>${list.map((l) => html`<li>${safeLink(l.url, l.title)} <span class="muted">(${l.kind})</span></li>`)}</ul>` : '';

const images = (list: ImageLike[]) =>
  list.length
    ? html`<div class="images">${list.map(
        (a) => html`<a href="${a.url}"><img src="${a.url}" alt="${a.original_name}" width="${a.width}" height="${a.height}" loading="lazy" data-attachment-id="${a.id}"></a>`,
      )}</div>`
    : '';

const NOTICES: Record<string, string> = {
  review: 'The answer review was saved.',
  verdict: 'The verdict was saved.',
  rework: 'The item was returned to rework.',
};

export async function itemPages(app: FastifyInstance) {
  const { items, review, projects, clock } = app.ctx;

  app.get('/items/:id', async (request, reply) => {
    const session = sessionOf(request);
    const id = idParam(request);
    const { item } = await items.getItemCard(session.user, id);
    const [rights, { project }] = await Promise.all([review.itemRights(session.user, id), projects.access(session.user, item.project_id)]);
    const saved = (request.query as Record<string, string | undefined>).saved;
    const csrf = csrfField(session);
    const today = clock.now().toISOString().slice(0, 10);
    return reply.type('text/html; charset=utf-8').send(
      page({
        title: item.text,
        session,
        path: '/projects',
        notice: saved ? (NOTICES[saved] ?? null) : null,
        body: html`<p class="muted"><a href="/projects">Projects</a> › <a href="/projects/${project.id}">${project.name}</a> ›</p>
<h1>${item.text}</h1>
<section class="card" aria-label="Item summary">
<dl class="facts">
<dt>Status</dt><dd data-testid="item-status">${badge(item.status)}</dd>
<dt>Priority</dt><dd>${item.priority}</dd>
<dt>Deadline</dt><dd>${item.deadline ?? '—'}</dd>
<dt>Answer required</dt><dd>${item.requires_answer ? 'yes' : 'no'}</dd>
<dt>Participants</dt><dd>${item.participants.length ? item.participants.map((p, i) => html`${i ? ', ' : ''}${p.name}${p.role ? html` <span class="muted">(${p.role})</span>` : ''}`) : '—'}</dd>
<dt>Verdict</dt><dd data-testid="item-verdict">${badge(item.verdict)}</dd>
${item.rework_reason ? html`<dt>Rework</dt><dd data-testid="item-rework"><span class="text">${item.rework_reason}</span> <span class="muted">— due ${item.rework_deadline ?? '—'}</span></dd>` : ''}
</dl>
${item.description ? html`<h2>Description</h2><p class="text">${item.description}</p>` : ''}
${item.document_links.length ? html`<h2>Documents</h2>${links(item.document_links)}` : ''}
${item.attachments.length ? html`<h2>Images</h2>${images(item.attachments)}` : ''}
</section>
${
  rights.verdict || rights.rework
    ? html`<section class="card" aria-labelledby="review-title">
<h2 id="review-title">Review</h2>
${rights.verdict ? verdictForm(session, `/items/${item.id}/verdict`, item.verdict, 'Item verdict') : ''}
${
  rights.rework
    ? html`<form method="post" action="/items/${item.id}/rework">
${csrf}
<h3>Return to rework</h3>
<label for="rework-reason">Reason</label>
<textarea id="rework-reason" name="reason" required maxlength="2000"></textarea>
<label for="rework-deadline">Rework deadline</label>
<input id="rework-deadline" type="date" name="deadline" required min="${today}">
<div class="actions"><button type="submit">Return to rework</button></div>
</form>`
    : ''
}
</section>`
    : ''
}
<section class="card answers" aria-labelledby="answers-title">
<h2 id="answers-title">Answers (${item.answers.length})</h2>
${
  item.answers.length
    ? item.answers.map(
        (a) => html`<article data-testid="answer" data-answer-id="${a.id}" aria-label="${`Answer by ${a.author.name}`}">
<p><strong>${a.author.name}</strong> · ${time(a.created_at)} · <span data-testid="answer-status">${badge(a.status)}</span></p>
<p class="text">${a.text}</p>
${links(a.document_links)}
${images(a.attachments)}
${
  rights.reviewAnswers
    ? html`<div class="actions">${(['approved', 'rejected'] as const)
        .filter((decision) => decision !== a.status)
        .map(
          (decision) => html`<form method="post" action="/items/${item.id}/answers/${a.id}/review" class="inline">${csrf}
<input type="hidden" name="decision" value="${decision}">
<button type="submit" class="${decision === 'approved' ? 'small' : 'small danger'}">${decision === 'approved' ? 'Approve' : 'Reject'}</button></form>`,
        )}</div>`
    : ''
}
</article>`,
      )
    : html`<p class="muted">No answers yet.</p>`
}
</section>
<section class="card comments" aria-labelledby="comments-title">
<h2 id="comments-title">Comments (${item.comments.length})</h2>
${
  item.comments.length
    ? item.comments.map(
        (c) => html`<article data-testid="comment"><p><strong>${c.author.name}</strong> · ${time(c.created_at)}</p><p class="text">${c.text}</p></article>`,
      )
    : html`<p class="muted">No comments yet.</p>`
}
</section>
<section class="card" aria-labelledby="history-title">
<h2 id="history-title">History</h2>
<table><thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">Change</th><th scope="col">By</th><th scope="col">Note</th></tr></thead>
<tbody>${item.status_history.map(
          (h) => html`<tr data-testid="history-row"><td>${time(h.at)}</td><td>${h.kind.replace(/_/g, ' ')}</td>
<td>${h.from ? html`${badge(h.from)} → ` : ''}${h.to ? badge(h.to) : ''}</td><td>${h.user?.name ?? html`<span class="muted">system</span>`}</td>
<td class="text">${h.note ?? ''}</td></tr>`,
        )}</tbody></table>
</section>`,
      }).value,
    );
  });

  app.post('/items/:id/answers/:answerId/review', async (request, reply) => {
    const session = sessionOf(request);
    idParam(request); // the answer names its item: the URL's item id only has to be well formed
    const answerId = idParam(request, 'answerId');
    const result = await review.reviewAnswer(session.user, answerId, formOf(request).get('decision') ?? '');
    return reply.redirect(`/items/${result.answer.item_id}?saved=review`, 303);
  });

  app.post('/items/:id/verdict', async (request, reply) => {
    const session = sessionOf(request);
    const id = idParam(request);
    await review.setItemVerdict(session.user, id, formOf(request).get('verdict') ?? '');
    return reply.redirect(`/items/${id}?saved=verdict`, 303);
  });

  app.post('/items/:id/rework', async (request, reply) => {
    const session = sessionOf(request);
    const id = idParam(request);
    const form = formOf(request);
    await review.returnToRework(session.user, id, { reason: form.get('reason') ?? '', deadline: form.get('deadline') ?? '' });
    return reply.redirect(`/items/${id}?saved=rework`, 303);
  });
}
