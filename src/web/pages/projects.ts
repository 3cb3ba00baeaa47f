import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { VERDICTS } from '../../domain/values.js';
import { parseItemFilter } from '../../features/worklists/worklists.service.js';
import { myItemsView } from '../views/my-items.js';
import { reviewQueueView } from '../views/review-queue.js';
import { projectPageView } from '../views/project-page.js';
import { projectsListView } from '../views/projects-list.js';
import { structureLinks } from '../views/structure-page.js';
import { formOf, idParam } from '../form.js';
import { html } from '../html.js';
import { csrfField } from '../layout.js';
import { sessionOf } from '../session.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';

const PAGE_SIZE = 50;

/** The `page` query parameter: 1 unless a page number from 1 to a million. */
const pageParam = (query: Record<string, string | undefined>) =>
  Math.max(1, Math.min(1_000_000, Number.parseInt(query.page ?? '1', 10) || 1));

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

export async function projectPages(app: FastifyInstance, deps: Pick<AppContext, 'projects' | 'review' | 'worklists' | 'structure'>) {
  const { projects, review, worklists, structure } = deps;

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
    return reply.type('text/html; charset=utf-8').send(projectsListView({ session, list, archived, pageNumber, pages, base }));
  });

  app.get('/projects/:id', async (request, reply) => {
    const session = sessionOf(request);
    const id = idParam(request);
    const query = request.query as Record<string, string | undefined>;
    const filter = parseItemFilter(query);
    const [items, canVerdict, rights] = await Promise.all([
      worklists.projectItems(session.user, id, filter, pageParam(query)),
      review.canSetProjectVerdict(session.user, id),
      structure.rightsOn(session.user, id),
    ]);
    const verdict = canVerdict ? verdictForm(session, `/projects/${id}/verdict`, items.project.verdict, 'Project verdict') : null;
    const notice = query.saved ? 'The verdict was saved.' : null;
    return reply
      .type('text/html; charset=utf-8')
      .send(projectPageView({ ...items, session, filter, notice, verdictForm: verdict, structureLinks: structureLinks(id, rights) }));
  });

  app.get('/my-items', async (request, reply) => {
    const session = sessionOf(request);
    const items = await worklists.myItems(session.user, pageParam(request.query as Record<string, string | undefined>));
    return reply.type('text/html; charset=utf-8').send(myItemsView({ ...items, session }));
  });

  app.get('/review', async (request, reply) => {
    const session = sessionOf(request);
    const queue = await worklists.reviewQueue(session.user, pageParam(request.query as Record<string, string | undefined>));
    return reply.type('text/html; charset=utf-8').send(reviewQueueView({ ...queue, session }));
  });

  app.post('/projects/:id/verdict', async (request, reply) => {
    const session = sessionOf(request);
    const id = idParam(request);
    await review.setProjectVerdict(session.user, id, formOf(request).get('verdict') ?? '');
    return reply.redirect(`/projects/${id}?saved=1`, 303);
  });
}
