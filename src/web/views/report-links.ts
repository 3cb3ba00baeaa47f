import type { ProjectCard } from '../../features/projects/projects.service.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import { html, type SafeHtml } from '../html.js';
import { crumbs, languageOf, page } from '../layout.js';
import type { Translate } from '../../i18n/i18n.js';

/**
 * The project page's link "Report" (docs/design.md §17): it keeps the page's filter (`query`, as the page's
 * own links write it, `?…` or empty) so the report lists what the page shows.
 */
export function reportLinks(projectId: number, query: string, t: Translate): SafeHtml {
  return html`<p class="actions report-links"><a href="/projects/${projectId}/report${query}" data-testid="report-link">${t('reportPage.title')}</a></p>`;
}

/** The report page: the two files of the same list, PDF for printing, CSV for spreadsheets and CRMs. */
export function reportPageView(m: { session: WebSession; project: ProjectCard; query: string; filter: string[] }): string {
  const base = `/projects/${m.project.id}/report`;
  const { t } = languageOf(m.session);
  return page({
    title: `${t('reportPage.title')}: ${m.project.name}`,
    session: m.session,
    path: '/projects',
    body: html`${crumbs(
      [
        { href: '/projects', label: t('nav.projects') },
        { href: `/projects/${m.project.id}${m.query}`, label: m.project.name },
      ],
      t,
    )}
<h1>${t('reportPage.title')}</h1>
<section class="card" aria-label="${t('report.files')}">
<p>${t('report.listOf')} <strong>${m.project.name}</strong>: ${m.filter.length ? t('report.filtered', { filter: m.filter.join(', ') }) : t('report.everything')}.</p>
<ul>
<li><a href="${base}.pdf${m.query}" download>PDF</a> <span class="muted">— ${t('report.pdf')}</span></li>
<li><a href="${base}.csv${m.query}" download>CSV</a> <span class="muted">— ${t('report.csv')}</span></li>
</ul>
</section>`,
  }).value;
}
