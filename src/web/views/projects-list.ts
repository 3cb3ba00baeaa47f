import type { ProjectCard } from '../../features/projects/projects.service.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import { html } from '../html.js';
import { badge, page } from '../layout.js';
import { progress } from './project-page.js';

interface ProjectsListModel {
  session: WebSession;
  list: { projects: ProjectCard[]; total: number };
  archived: boolean;
  pageNumber: number;
  pages: number;
  /** The list's address, ready for `page=N`. */
  base: string;
}

/** The projects the user can see, active or archived, a page at a time. */
export function projectsListView({ session, list, archived, pageNumber, pages, base }: ProjectsListModel): string {
  return page({
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
<td data-label="Deadline">${p.deadline ?? '—'}</td>
<td data-label="Progress">${progress(p)}</td>
<td data-label="Items">${p.counters.items} <span class="muted">(${p.counters.pending} pending, ${p.counters.in_progress} in progress, ${p.counters.blocked} blocked)</span></td>
<td data-label="Verdict">${badge(p.verdict)}</td>
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
  }).value;
}
