import type { ProjectCard } from '../../features/projects/projects.service.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import { html } from '../html.js';
import { badge, languageOf, page } from '../layout.js';
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
  const { t } = languageOf(session);
  return page({
    title: t('nav.projects'),
    session,
    path: '/projects',
    body: html`<h1>${t('nav.projects')}</h1>
<nav class="tabs" aria-label="${t('projects.lists')}">
<a href="/projects" ${archived ? '' : html`aria-current="page"`}>${t('projects.active')}</a>
<a href="/projects?archived=1" ${archived ? html`aria-current="page"` : ''}>${t('projects.archived')}</a>
</nav>
${
  list.projects.length
    ? html`<table>
<thead><tr><th scope="col">${t('projects.project')}</th><th scope="col">${t('project.deadline')}</th><th scope="col">${t('project.progress')}</th><th scope="col">${t('project.items')}</th><th scope="col">${t('project.verdict')}</th></tr></thead>
<tbody>${list.projects.map(
        (p) => html`<tr data-testid="project-row">
<td><a href="/projects/${p.id}">${p.name}</a>${p.description ? html`<br><span class="muted">${p.description.slice(0, 200)}</span>` : ''}</td>
<td data-label="${t('project.deadline')}">${p.deadline ?? '—'}</td>
<td data-label="${t('project.progress')}">${progress(p, t)}</td>
<td data-label="${t('project.items')}">${p.counters.items} <span class="muted">(${t('projects.counters', { ...p.counters })})</span></td>
<td data-label="${t('project.verdict')}">${badge(p.verdict, '—', t)}</td>
</tr>`,
      )}</tbody></table>
${
  pages > 1
    ? html`<p class="actions">${pageNumber > 1 ? html`<a href="${base}page=${pageNumber - 1}">${t('web.previous')}</a>` : ''}
<span class="muted">${t('web.pageOf', { page: pageNumber, pages })}</span>${pageNumber < pages ? html`<a href="${base}page=${pageNumber + 1}">${t('web.next')}</a>` : ''}</p>`
    : ''
}`
    : html`<p class="muted">${archived ? t('projects.noArchived') : t('projects.noActive')}</p>`
}`,
  }).value;
}
