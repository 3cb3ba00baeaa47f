import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../composition/context.js';
import type { ReportFormat } from '../../features/reports/report.service.js';
import { describeFilter, parseItemFilter } from '../../features/worklists/worklists.service.js';
import { idParam } from '../form.js';
import { languageOf } from '../layout.js';
import { sessionOf } from '../session.js';
import { reportPageView } from '../views/report-links.js';

/** The page's query string, minus its page number: the report lists every page of the filtered items. */
function filterQueryOf(request: FastifyRequest): string {
  const params = new URLSearchParams(request.url.split('?')[1] ?? '');
  params.delete('page');
  const query = params.toString();
  return query ? `?${query}` : '';
}

/**
 * The project's report in the web (docs/design.md §17): `/projects/<id>/report` offers the files, which stream
 * from `/projects/<id>/report.pdf` and `.csv` with the project page's filter. A project the user cannot
 * see is the 404 page, before any byte of a file.
 */
export async function reportPages(app: FastifyInstance, deps: Pick<AppContext, 'projects' | 'reports'>) {
  const { projects, reports } = deps;

  app.get('/projects/:id/report', async (request, reply) => {
    const session = sessionOf(request);
    const { project } = await projects.getProject(session.user, idParam(request));
    const filter = describeFilter(parseItemFilter(request.query as Record<string, string | undefined>));
    return reply.type('text/html; charset=utf-8').send(reportPageView({ session, project, query: filterQueryOf(request), filter }));
  });

  const download = (format: ReportFormat) => async (request: FastifyRequest, reply: FastifyReply) => {
    const session = sessionOf(request);
    const filter = parseItemFilter(request.query as Record<string, string | undefined>);
    const file = await reports.openReport(session.user, idParam(request), {
      format,
      filter,
      madeBy: session.user.name,
      timeZone: session.timeZone,
      language: languageOf(session).language,
    });
    reply.headers({
      'content-type': file.contentType,
      'content-disposition': `attachment; filename="${file.filename}"`,
      'cache-control': 'private, no-store',
    });
    return reply.send(file.stream);
  };
  app.get('/projects/:id/report.pdf', download('pdf'));
  app.get('/projects/:id/report.csv', download('csv'));
}
