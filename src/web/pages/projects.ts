import type { FastifyInstance } from 'fastify';
import { VERDICTS } from '../../domain/values.js';
import { type ItemFilter, parseItemStatus } from '../../features/worklists/worklists.service.js';
import { myItemsView } from '../views/my-items.js';
import { progress, projectPageView } from '../views/project-page.js';
import { formOf, idParam } from '../form.js';
import { html } from '../html.js';
import { badge, csrfField, page } from '../layout.js';
import { sessionOf } from '../session.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';

const PAGE_SIZE = 50;

/** The `page` query parameter: 1 unless a page number from 1 to a million. */
const pageParam = (query: Record<string, string | undefined>) => Math.max(1, Math.min(1_000_000, Number.parseInt(query.page ?? '1', 10) || 1));

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
  const { projects, review, worklists } = app.ctx;

  app.get('/projects', async (request, reply) => {
    const session = sessionOf(request);
    const query = request.query as Record<string, string | undefined>;
    const archived = query.archived === '1';
    const pageNumber = pageParam(query);
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
    const query = request.query as Record<string, string | undefined>;
    const filter: ItemFilter = { status: parseItemStatus(query.status), mine: query.mine === '1', overdue: query.overdue === '1', q: query.q?.trim() || null };
    const [items, canVerdict] = await Promise.all([worklists.projectItems(session.user, id, filter, pageParam(query)), review.canSetProjectVerdict(session.user, id)]);
    const verdict = canVerdict ? verdictForm(session, `/projects/${id}/verdict`, items.project.verdict, 'Project verdict') : null;
    const notice = query.saved ? 'The verdict was saved.' : null;
    return reply.type('text/html; charset=utf-8').send(projectPageView({ ...items, session, filter, notice, verdictForm: verdict }));
  });

  app.get('/my-items', async (request, reply) => {
    const session = sessionOf(request);
    const items = await worklists.myItems(session.user, pageParam(request.query as Record<string, string | undefined>));
    return reply.type('text/html; charset=utf-8').send(myItemsView({ ...items, session }));
  });

  app.post('/projects/:id/verdict', async (request, reply) => {
    const session = sessionOf(request);
    const id = idParam(request);
    await review.setProjectVerdict(session.user, id, formOf(request).get('verdict') ?? '');
    return reply.redirect(`/projects/${id}?saved=1`, 303);
  });
}
