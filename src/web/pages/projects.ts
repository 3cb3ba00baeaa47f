import type { FastifyInstance } from 'fastify';
import { VERDICTS } from '../../domain/values.js';
import type { ProjectCard } from '../../features/projects/projects.service.js';
import { formOf, idParam } from '../form.js';
import { html } from '../html.js';
import { badge, csrfField, page } from '../layout.js';
import { sessionOf } from '../session.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';

const PAGE_SIZE = 50;

function progress(card: ProjectCard) {
  const { done, total, percent } = card.progress;
  return html`<progress max="100" value="${percent}" aria-label="${`${percent}% done`}"></progress> ${percent}% <span class="muted">(${done}/${total})</span>`;
}

/** A verdict form: a select (none, accepted, rejected) and a submit button. */
export function verdictForm(session: WebSession, action: string, current: string | null, label: string) {
  const id = `verdict-${action.replace(/[^a-z0-9]/gi, '-')}`;
  return html`<form method="post" action="${action}" class="actions">
${csrfField(session)}
<label for="${id}" class="inline"><strong>${label}</strong></label>
<select id="${id}" name="verdict">
<option value="" ${current === null ? html`selected` : ''}>No verdict</option>
${VERDICTS.map((v) => html`<option value="${v}" ${current === v ? html`selected` : ''}>${v}</option>`)}
</select>
<button type="submit">Save verdict</button>
</form>`;
}

export async function projectPages(app: FastifyInstance) {
  const { projects, review } = app.ctx;

  app.get('/projects', async (request, reply) => {
    const session = sessionOf(request);
    const query = request.query as Record<string, string | undefined>;
    const archived = query.archived === '1';
    const pageNumber = Math.max(1, Math.min(1_000_000, Number.parseInt(query.page ?? '1', 10) || 1));
    const list = await projects.listProjects(session.user, {
      archived: archived ? 'archived' : 'active',
      limit: PAGE_SIZE,
      offset: (pageNumber - 1) * PAGE_SIZE,
    });
    const base = archived ? '/projects?archived=1&' : '/projects?';
    const pages = Math.max(1, Math.ceil(list.total / PAGE_SIZE));
    return reply.type('text/html; charset=utf-8').send(
      page({
        title: 'Projects',
        session,
        path: '/projects',
        body: html`<h1>Projects</h1>
<nav class="tabs" aria-label="Project lists">
<a href="/projects" ${archived ? '' : html`aria-current="page"`}>Active</a>
<a href="/projects?archived=1" ${archived ? html`aria-current="page"` : ''}>Archived</a>
</nav>
${
  list.projects.length
    ? html`<table>
<thead><tr><th scope="col">Project</th><th scope="col">Deadline</th><th scope="col">Progress</th><th scope="col">Items</th><th scope="col">Verdict</th></tr></thead>
<tbody>${list.projects.map(
        (p) => html`<tr data-testid="project-row">
<td><a href="/projects/${p.id}">${p.name}</a>${p.description ? html`<br><span class="muted">${p.description.slice(0, 200)}</span>` : ''}</td>
<td>${p.deadline ?? '—'}</td>
<td>${progress(p)}</td>
<td>${p.counters.items} <span class="muted">(${p.counters.pending} pending, ${p.counters.in_progress} in progress, ${p.counters.blocked} blocked)</span></td>
<td>${badge(p.verdict)}</td>
</tr>`,
      )}</tbody></table>
${
  pages > 1
    ? html`<p class="actions">${pageNumber > 1 ? html`<a href="${base}page=${pageNumber - 1}">Previous</a>` : ''}
<span class="muted">Page ${pageNumber} of ${pages}</span>${pageNumber < pages ? html`<a href="${base}page=${pageNumber + 1}">Next</a>` : ''}</p>`
    : ''
}`
    : html`<p class="muted">${archived ? 'No archived projects.' : 'No active projects.'}</p>`
}`,
      }).value,
    );
  });

  app.get('/projects/:id', async (request, reply) => {
    const session = sessionOf(request);
    const id = idParam(request);
    const tree = await projects.getTree(session.user, id);
    const canVerdict = await review.canSetProjectVerdict(session.user, id);
    const notice = (request.query as Record<string, string | undefined>).saved ? 'The verdict was saved.' : null;
    const p = tree.project;
    return reply.type('text/html; charset=utf-8').send(
      page({
        title: p.name,
        session,
        path: '/projects',
        notice,
        body: html`<p class="muted"><a href="${p.archived ? '/projects?archived=1' : '/projects'}">Projects</a> ›</p>
<h1>${p.name} ${p.archived ? html`<span class="badge s-expired">archived</span>` : ''}</h1>
<section class="card" aria-label="Project summary">
${p.description ? html`<p class="text">${p.description}</p>` : ''}
<dl class="facts">
<dt>Deadline</dt><dd>${p.deadline ?? '—'}</dd>
<dt>Progress</dt><dd>${progress(p)}</dd>
<dt>Items</dt><dd>${p.counters.items}: ${p.counters.pending} pending, ${p.counters.in_progress} in progress, ${p.counters.done} done, ${p.counters.blocked} blocked</dd>
<dt>Verdict</dt><dd data-testid="project-verdict">${badge(p.verdict)}</dd>
</dl>
${canVerdict ? verdictForm(session, `/projects/${p.id}/verdict`, p.verdict, 'Project verdict') : ''}
</section>
${
  tree.sections.length
    ? html`<ul class="tree">${tree.sections.map(
        (s) => html`<li><h2>${s.name}</h2>
<ul>${s.checklists.map(
          (c) => html`<li><h3>${c.name}</h3>
${
  c.items.length
    ? html`<table><thead><tr><th scope="col">Item</th><th scope="col">Status</th><th scope="col">Priority</th><th scope="col">Deadline</th></tr></thead>
<tbody>${c.items.map(
        (i) => html`<tr data-testid="item-row"><td><a href="/items/${i.id}">${i.text}</a>${i.requires_answer ? html` <span class="muted">(answer required)</span>` : ''}</td>
<td>${badge(i.status)}</td><td>${i.priority}</td><td>${i.deadline ?? '—'}</td></tr>`,
      )}</tbody></table>`
    : html`<p class="muted">No items.</p>`
}</li>`,
        )}</ul></li>`,
      )}</ul>`
    : html`<p class="muted">This project has no sections yet.</p>`
}`,
      }).value,
    );
  });

  app.post('/projects/:id/verdict', async (request, reply) => {
    const session = sessionOf(request);
    const id = idParam(request);
    await review.setProjectVerdict(session.user, id, formOf(request).get('verdict') ?? '');
    return reply.redirect(`/projects/${id}?saved=1`, 303);
  });
}
