import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../composition/context.js';
import { dashboardView, projectDashboardView } from '../views/dashboard-page.js';
import { idParam } from '../form.js';
import { sessionOf } from '../session.js';

/** The dashboards (docs/design.md §23): across the user's projects, and a project's tab. Figures of what they see. */
export async function dashboardPages(app: FastifyInstance, deps: Pick<AppContext, 'dashboard'>) {
  const { dashboard } = deps;

  app.get('/dashboard', async (request, reply) => {
    const session = sessionOf(request);
    const overview = await dashboard.overview(session.user);
    return reply.type('text/html; charset=utf-8').send(dashboardView({ session, overview }).value);
  });

  app.get('/projects/:id/dashboard', async (request, reply) => {
    const session = sessionOf(request);
    const figures = await dashboard.project(session.user, idParam(request));
    return reply.type('text/html; charset=utf-8').send(projectDashboardView({ session, figures }).value);
  });
}
