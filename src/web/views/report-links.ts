import type { ProjectCard } from '../../features/projects/projects.service.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import { html, type SafeHtml } from '../html.js';
import { crumbs, page } from '../layout.js';

/**
 * The project page's link "Report" (docs/design.md §17): it keeps the page's filter (`query`, as the page's
 * own links write it, `?…` or empty) so the report lists what the page shows.
 */
export function reportLinks(projectId: number, query: string): SafeHtml {
  return html`<p class="actions report-links"><a href="/projects/${projectId}/report${query}" data-testid="report-link">Report</a></p>`;
}

/** The report page: the two files of the same list, PDF for printing, CSV for spreadsheets and CRMs. */
export function reportPageView(m: { session: WebSession; project: ProjectCard; query: string; filter: string[] }): string {
  const base = `/projects/${m.project.id}/report`;
  return page({
    title: `Report: ${m.project.name}`,
    session: m.session,
    path: '/projects',
    body: html`${crumbs([
      { href: '/projects', label: 'Projects' },
      { href: `/projects/${m.project.id}${m.query}`, label: m.project.name },
    ])}
<h1>Report</h1>
<section class="card" aria-label="Report files">
<p>The punch list of <strong>${m.project.name}</strong>: ${m.filter.length ? `the items the page shows (${m.filter.join(', ')})` : 'every item you can see'}.</p>
<ul>
<li><a href="${base}.pdf${m.query}" download>PDF</a> <span class="muted">— A4, for printing: a cover with the progress, then the items with their answers, verdicts and photos</span></li>
<li><a href="${base}.csv${m.query}" download>CSV</a> <span class="muted">— one row per item, for spreadsheets and CRMs (UTF-8)</span></li>
</ul>
</section>`,
  }).value;
}
