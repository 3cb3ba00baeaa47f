import { ITEM_STATUSES } from '../../domain/values.js';
import type { ProjectCard } from '../../features/projects/projects.service.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import type { ItemFilter, WorklistsService } from '../../features/worklists/worklists.service.js';
import { html, type SafeHtml } from '../html.js';
import { badge, crumbs, page } from '../layout.js';
import { checked, selected } from './forms.js';

type ProjectItems = Awaited<ReturnType<WorklistsService['projectItems']>>;

export interface ProjectPageModel extends ProjectItems {
  session: WebSession;
  filter: ItemFilter;
  notice: string | null;
  /** The project's verdict form, when the user may set it. */
  verdictForm: SafeHtml | null;
}

export function progress(card: ProjectCard) {
  const { done, total, percent } = card.progress;
  return html`<progress max="100" value="${percent}" aria-label="${`${percent}% done`}"></progress> ${percent}% <span class="muted">(${done}/${total})</span>`;
}

/** A deadline, marked when it has passed on an item not done. */
export function deadline(item: { deadline: string | null; status: string }, today: string) {
  if (item.deadline === null) return '—';
  return html`${item.deadline}${item.deadline < today && item.status !== 'done' ? html` <span class="badge s-blocked">overdue</span>` : ''}`;
}

/** Query string of the filter (and a page), for links that keep it. */
export function filterQuery(filter: ItemFilter, pageNumber?: number): string {
  const params = new URLSearchParams();
  if (filter.status) params.set('status', filter.status);
  if (filter.mine) params.set('mine', '1');
  if (filter.overdue) params.set('overdue', '1');
  if (filter.q) params.set('q', filter.q);
  if (pageNumber && pageNumber > 1) params.set('page', String(pageNumber));
  const query = params.toString();
  return query ? `?${query}` : '';
}

/** Previous / next links of a paged list. */
export function pager(base: string, query: (page: number) => string, p: { page: number; pages: number; total: number }, noun: string) {
  if (p.pages <= 1) return html`<p class="muted">${p.total} ${noun}.</p>`;
  return html`<nav class="pager" aria-label="Pages">
${p.page > 1 ? html`<a href="${base}${query(p.page - 1)}" rel="prev">Previous</a>` : ''}
<span>Page ${p.page} of ${p.pages} <span class="muted">(${p.total} ${noun})</span></span>
${p.page < p.pages ? html`<a href="${base}${query(p.page + 1)}" rel="next">Next</a>` : ''}
</nav>`;
}

function filterForm(m: ProjectPageModel) {
  const f = m.filter;
  return html`<form method="get" action="/projects/${m.project.id}" class="card filters" aria-label="Filter items">
<div><label for="filter-q">Text</label><input id="filter-q" type="search" name="q" value="${f.q ?? ''}" placeholder="Words in items, comments, answers"></div>
<div><label for="filter-status">Item status</label><select id="filter-status" name="status"><option value="">Any status</option>
${ITEM_STATUSES.map((s) => html`<option value="${s}" ${selected(f.status === s)}>${s.replace(/_/g, ' ')}</option>`)}</select></div>
<div><label class="inline" for="filter-mine"><input id="filter-mine" type="checkbox" name="mine" value="1" ${checked(f.mine)}> Assigned to me</label>
<label class="inline" for="filter-overdue"><input id="filter-overdue" type="checkbox" name="overdue" value="1" ${checked(f.overdue)}> Overdue</label></div>
<div class="actions"><button type="submit">Filter</button><a href="/projects/${m.project.id}">Clear</a></div>
</form>`;
}

const filtered = (f: ItemFilter) => f.status !== null || f.mine || f.overdue || f.q !== null;

/** Sections and checklists with their counts: the whole visible tree, whatever page is shown. */
function contents(m: ProjectPageModel) {
  const showMatching = filtered(m.filter);
  return html`<details class="card" open><summary>Sections and checklists</summary>
<ul class="tree">${m.sections.map(
    (s) => html`<li><strong>${s.name}</strong>
<ul>${s.checklists.map((c) => {
      const n = m.counts.get(c.id)!;
      return html`<li data-testid="checklist-count">${c.name} <span class="counts">— ${n.done}/${n.items} done${showMatching ? html`, ${n.matching} shown` : ''}</span></li>`;
    })}</ul></li>`,
  )}</ul></details>`;
}

/** One page of items, under the section and checklist headings they belong to. */
function itemRows(m: ProjectPageModel) {
  if (m.rows.length === 0)
    return html`<p class="muted" data-testid="no-items">${filtered(m.filter) ? 'No item matches these filters.' : 'No items.'}</p>`;
  const groups: { key: number; title: SafeHtml; rows: ProjectItems['rows'] }[] = [];
  for (const row of m.rows) {
    const last = groups.at(-1);
    if (last && last.key === row.checklist.id) last.rows.push(row);
    else groups.push({ key: row.checklist.id, title: html`${row.section.name} › ${row.checklist.name}`, rows: [row] });
  }
  return groups.map(
    (g) => html`<h2>${g.title}</h2>
<table><thead><tr><th scope="col">Item</th><th scope="col">Status</th><th scope="col">Priority</th><th scope="col">Deadline</th></tr></thead>
<tbody>${g.rows.map(
      ({
        item: i,
      }) => html`<tr data-testid="item-row"><td><a href="/items/${i.id}">${i.text}</a>${i.requires_answer ? html` <span class="muted">(answer required)</span>` : ''}</td>
<td data-label="Status">${badge(i.status)}</td><td data-label="Priority">${i.priority}</td><td data-label="Deadline">${deadline(i, m.today)}</td></tr>`,
    )}</tbody></table>`,
  );
}

export function projectPageView(m: ProjectPageModel): string {
  const p = m.project;
  return page({
    title: p.name,
    session: m.session,
    path: '/projects',
    notice: m.notice,
    body: html`${crumbs([{ href: p.archived ? '/projects?archived=1' : '/projects', label: 'Projects' }])}
<h1>${p.name} ${p.archived ? html`<span class="badge s-expired">archived</span>` : ''}</h1>
<section class="card" aria-label="Project summary">
${p.description ? html`<p class="text">${p.description}</p>` : ''}
<dl class="facts">
<dt>Deadline</dt><dd>${p.deadline ?? '—'}</dd>
<dt>Progress</dt><dd>${progress(p)}</dd>
<dt>Items</dt><dd>${p.counters.items}: ${p.counters.pending} pending, ${p.counters.in_progress} in progress, ${p.counters.done} done, ${p.counters.blocked} blocked</dd>
<dt>Verdict</dt><dd data-testid="project-verdict">${badge(p.verdict)}</dd>
</dl>
${m.verdictForm ?? ''}
</section>
${m.sections.length ? html`${filterForm(m)}${contents(m)}${itemRows(m)}${pager(`/projects/${p.id}`, (n) => filterQuery(m.filter, n), m, 'items')}` : html`<p class="muted">This project has no sections yet.</p>`}`,
  }).value;
}
