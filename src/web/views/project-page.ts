import { ITEM_STATUSES, PRIORITIES } from '../../domain/values.js';
import type { ProjectCard } from '../../features/projects/projects.service.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import type { BulkAbilities, BulkOutcome } from '../../features/worklists/bulk-changes.service.js';
import type { Vocabulary } from '../../features/vocabulary/vocabulary.service.js';
import {
  FIELD_FILTER_PREFIX,
  ITEM_SORTS,
  type ItemFilter,
  type ItemRow,
  type ItemSort,
  type ProjectItems,
} from '../../features/worklists/worklists.service.js';
import { html, type SafeHtml } from '../html.js';
import { badge, crumbs, csrfField, page, writeKeyField } from '../layout.js';
import type { FormFailure } from '../web-write.js';
import { checked, FormState, selected } from './forms.js';
import { reportLinks } from './report-links.js';
import { plural } from '../../domain/plural.js';
import { BALL_IN_COURT, type BallInCourt, ballInCourtLabel } from '../../domain/ball-in-court.js';

interface ProjectPageModel extends ProjectItems {
  session: WebSession;
  filter: ItemFilter;
  notice: string | null;
  /** The project's verdict form, when the user may set it. */
  verdictForm: SafeHtml | null;
  /** What the bulk form offers the user (nothing: no checkboxes, no form). */
  bulk: BulkAbilities;
  /** The outcome of the bulk change just made, from the redirect. */
  bulkSummary: BulkSummary | null;
  /** The bulk form refused (422): shown again with what was sent. */
  failure: FormFailure | null;
  /** "Add item", "Add section", "Add checklist", for those who may. */
  structureLinks: SafeHtml | null;
  /** The project's categories and fields: filters and columns (docs/design.md §21). */
  vocabulary: Vocabulary;
  /** The companies the bulk form may give items to (docs/design.md §20). */
  choosableCompanies: { id: number; name: string }[];
  /** "Invite" and "Send to companies", for the project's managers (docs/design.md §20; views/company-links.ts). */
  companyLinks?: SafeHtml | null;
}

export type BulkSummary = BulkOutcome;

const SORT_LABELS: Record<ItemSort, string> = {
  tree: 'Sections and checklists',
  deadline: 'Deadline (earliest first)',
  priority: 'Priority (high first)',
  status: 'Status (blocked, in progress, pending, done)',
  updated: 'Updated (latest first)',
  company: 'Company',
};

const BALL_LABELS: Record<BallInCourt, string> = { company: 'The company', review: 'Managers (review)', none: 'Nobody (closed)' };

/** Why an item of a bulk change was left as it was, by the error's code. */
const REFUSALS: Record<string, string> = {
  forbidden: 'You are not allowed to perform this operation on this item',
  not_found: 'The item was not found in this project',
};

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
  if (filter.participant !== null) params.set('participant', String(filter.participant));
  if (filter.open) params.set('open', '1');
  if (filter.raised) params.set('raised', filter.raised);
  if (filter.accepted) params.set('accepted', filter.accepted);
  if (filter.category) params.set('category', filter.category);
  for (const [name, value] of Object.entries(filter.fields ?? {})) params.set(`${FIELD_FILTER_PREFIX}${name}`, value);
  if (filter.company != null) params.set('company', String(filter.company));
  if (filter.ball != null) params.set('ball', filter.ball);
  if (filter.sort !== 'tree') params.set('sort', filter.sort);
  if (pageNumber && pageNumber > 1) params.set('page', String(pageNumber));
  const query = params.toString();
  return query ? `?${query}` : '';
}

/** Previous / next links of a paged list; `counted` writes the total with its noun ("1 item", "12 items"). */
export function pager(
  base: string,
  query: (page: number) => string,
  p: { page: number; pages: number; total: number },
  counted: (total: number) => string,
) {
  if (p.pages <= 1) return html`<p class="muted">${counted(p.total)}.</p>`;
  return html`<nav class="pager" aria-label="Pages">
${p.page > 1 ? html`<a href="${base}${query(p.page - 1)}" rel="prev">Previous</a>` : ''}
<span>Page ${p.page} of ${p.pages} <span class="muted">(${counted(p.total)})</span></span>
${p.page < p.pages ? html`<a href="${base}${query(p.page + 1)}" rel="next">Next</a>` : ''}
</nav>`;
}

/** The filters of the project's vocabulary (docs/design.md §21): "Category", and each active choice field by its name. */
function vocabularyFilters(m: ProjectPageModel) {
  const f = m.filter;
  const choices = m.vocabulary.fields.filter((field) => field.kind === 'choice' && !field.retired);
  return html`${
    m.vocabulary.categories.length
      ? html`<div><label for="filter-category">Category</label><select id="filter-category" name="category"><option value="">Any category</option>
${m.vocabulary.categories.map((c) => html`<option value="${c.name}" ${selected(f.category === c.name)}>${c.name}</option>`)}</select></div>`
      : ''
  }${choices.map(
    (
      field,
      n,
    ) => html`<div><label for="filter-field-${n}">${field.name}</label><select id="filter-field-${n}" name="${FIELD_FILTER_PREFIX}${field.name}"><option value="">Any</option>
${field.options.map((o) => html`<option value="${o}" ${selected(f.fields?.[field.name] === o)}>${o}</option>`)}</select></div>`,
  )}`;
}

/** The columns of the project's vocabulary on a desk: the category (when the project has any) and each active field. */
function vocabularyColumns(m: ProjectPageModel) {
  return {
    category: m.vocabulary.categories.length > 0,
    fields: m.vocabulary.fields.filter((field) => !field.retired).map((field) => field.name),
  };
}

function filterForm(m: ProjectPageModel) {
  const f = m.filter;
  return html`<form method="get" action="/projects/${m.project.id}" class="card filters" aria-label="Filter items">
<div><label for="filter-q">Text</label><input id="filter-q" type="search" name="q" value="${f.q ?? ''}" placeholder="Words in items, comments, answers"></div>
<div><label for="filter-status">Item status</label><select id="filter-status" name="status"><option value="">Any status</option>
${ITEM_STATUSES.map((s) => html`<option value="${s}" ${selected(f.status === s)}>${s.replace(/_/g, ' ')}</option>`)}</select></div>
<div><label for="filter-participant">Participant</label><select id="filter-participant" name="participant"><option value="">Anyone</option>
${m.members.map((u) => html`<option value="${u.id}" ${selected(f.participant === u.id)}>${u.name}</option>`)}</select></div>
${vocabularyFilters(m)}
<div><label for="filter-company">Company</label><select id="filter-company" name="company"><option value="">Any company</option>
${m.companies.map((c) => html`<option value="${c.id}" ${selected(f.company === c.id)}>${c.name}</option>`)}</select></div>
<div><label for="filter-ball">Ball in court</label><select id="filter-ball" name="ball"><option value="">Anyone</option>
${BALL_IN_COURT.map((b) => html`<option value="${b}" ${selected(f.ball === b)}>${BALL_LABELS[b]}</option>`)}</select></div>
<div><label for="filter-sort">Sort by</label><select id="filter-sort" name="sort">
${ITEM_SORTS.map((k) => html`<option value="${k}" ${selected(f.sort === k)}>${SORT_LABELS[k]}</option>`)}</select></div>
<div><label class="inline" for="filter-mine"><input id="filter-mine" type="checkbox" name="mine" value="1" ${checked(f.mine)}> Assigned to me</label>
<label class="inline" for="filter-overdue"><input id="filter-overdue" type="checkbox" name="overdue" value="1" ${checked(f.overdue)}> Overdue</label></div>
${dashboardFilter(f)}<div class="actions"><button type="submit">Filter</button><a href="/projects/${m.project.id}">Clear</a></div>
</form>`;
}

/**
 * The filters a dashboard's figure opens the list with (open, raised or accepted in a week): named above the
 * button and kept while the other filters change; "Clear" drops them.
 */
function dashboardFilter(f: ItemFilter) {
  const kept = [
    f.open ? { name: 'open', value: '1', words: 'Open items only' } : null,
    f.raised ? { name: 'raised', value: f.raised, words: `Raised in the week of ${f.raised}` } : null,
    f.accepted
      ? { name: 'accepted', value: f.accepted, words: f.accepted === 'all' ? 'Accepted' : `Accepted in the week of ${f.accepted}` }
      : null,
  ].filter((k) => k !== null);
  if (kept.length === 0) return '';
  return html`<p class="muted" data-testid="dashboard-filter">${kept.map((k, i) => html`${i ? ', ' : ''}${k.words}`)}
${kept.map((k) => html`<input type="hidden" name="${k.name}" value="${k.value}">`)}</p>`;
}

const filtered = (f: ItemFilter) =>
  f.status !== null ||
  f.mine ||
  f.overdue ||
  f.q !== null ||
  f.participant !== null ||
  !!f.category ||
  Object.keys(f.fields ?? {}).length > 0 ||
  f.company != null ||
  f.ball != null ||
  Boolean(f.open || f.raised || f.accepted);

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

const canBulk = (m: ProjectPageModel) => m.bulk.status || m.bulk.planning || m.bulk.participants;

/** One item row: its checkbox (for the bulk form), text, status, priority, deadline, participants; `where` when sorted. */
function itemRow(m: ProjectPageModel, row: ItemRow, picked: Set<string>, where: boolean) {
  const i = row.item;
  return html`<tr data-testid="item-row" data-item-id="${i.id}">${
    canBulk(m)
      ? html`<td class="select"><input type="checkbox" id="select-${i.id}" name="items" value="${i.id}" form="bulk" ${checked(picked.has(String(i.id)))}>
<label for="select-${i.id}" class="sr-only">Select “${i.text}”</label></td>`
      : ''
  }<td class="text"><a href="/items/${i.id}">${i.text}</a>${i.requires_answer ? html` <span class="muted">(answer required)</span>` : ''}</td>
${where ? html`<td data-label="Where">${row.section.name} › ${row.checklist.name}</td>` : ''}
<td data-label="Status">${badge(i.status)}</td><td data-label="Priority">${i.priority}</td><td data-label="Deadline">${deadline(i, m.today)}</td>
<td data-label="Participants" data-testid="item-participants">${i.participants.length ? i.participants.map((p) => p.name).join(', ') : html`<span class="muted">—</span>`}</td>
<td data-label="Company" data-testid="item-company">${i.responsible_company?.name ?? html`<span class="muted">—</span>`}</td>
<td data-label="Ball in court" data-testid="item-ball-in-court" data-value="${i.ball_in_court}">${ballInCourtLabel(i.ball_in_court, i.responsible_company)}</td>${vocabularyCells(m, i)}</tr>`;
}

function vocabularyHeads(m: ProjectPageModel) {
  const columns = vocabularyColumns(m);
  return html`${columns.category ? html`<th scope="col">Category</th>` : ''}${columns.fields.map((name) => html`<th scope="col">${name}</th>`)}`;
}

function vocabularyCells(m: ProjectPageModel, i: { category: string | null; fields: Record<string, string> }) {
  const columns = vocabularyColumns(m);
  const empty = html`<span class="muted">—</span>`;
  return html`${columns.category ? html`<td data-label="Category" data-testid="item-category">${i.category ?? empty}</td>` : ''}${columns.fields.map(
    (name) => html`<td data-label="${name}">${i.fields[name] ?? empty}</td>`,
  )}`;
}

function itemTable(m: ProjectPageModel, rows: ItemRow[], picked: Set<string>, where: boolean, caption: SafeHtml | null) {
  return html`<table>${caption ? html`<caption class="sr-only">${caption}</caption>` : ''}<thead><tr>${canBulk(m) ? html`<th scope="col" class="select"><span class="sr-only">Select</span></th>` : ''}<th scope="col">Item</th>${
    where ? html`<th scope="col">Where</th>` : ''
  }<th scope="col">Status</th><th scope="col">Priority</th><th scope="col">Deadline</th><th scope="col">Participants</th><th scope="col">Company</th><th scope="col">Ball in court</th>${vocabularyHeads(m)}</tr></thead>
<tbody>${rows.map((row) => itemRow(m, row, picked, where))}</tbody></table>`;
}

/**
 * One page of items: in tree order under the section and checklist headings they belong to; sorted, one
 * flat list (a group per checklist would sort only within it), each row saying where the item is.
 */
function itemRows(m: ProjectPageModel) {
  if (m.rows.length === 0)
    return html`<p class="muted" data-testid="no-items">${filtered(m.filter) ? 'No item matches these filters.' : 'No items.'}</p>`;
  const state = new FormState('bulk', m.failure);
  const picked = new Set(state.failed ? [m.failure!.values.items ?? []].flat() : []);
  if (m.filter.sort !== 'tree') {
    return html`<h2 id="items-title">Items by ${SORT_LABELS[m.filter.sort].replace(/ \(.*\)$/, '').toLowerCase()}</h2>${itemTable(m, m.rows, picked, true, null)}`;
  }
  const groups: { key: number; title: SafeHtml; rows: ItemRow[] }[] = [];
  for (const row of m.rows) {
    const last = groups.at(-1);
    if (last && last.key === row.checklist.id) last.rows.push(row);
    else groups.push({ key: row.checklist.id, title: html`${row.section.name} › ${row.checklist.name}`, rows: [row] });
  }
  return groups.map((g) => html`<h2>${g.title}</h2>${itemTable(m, g.rows, picked, false, null)}`);
}

/**
 * The bulk form: the rows' checkboxes belong to it (`form="bulk"`); each select left on "Keep" changes
 * nothing. Participants are added or removed one person at a time, never replaced (a crew differs per item).
 */
function bulkForm(m: ProjectPageModel) {
  if (!canBulk(m) || m.rows.length === 0) return '';
  const state = new FormState('bulk', m.failure);
  const back = filterQuery(m.filter, m.page);
  const option = (field: string, value: string, label: string) =>
    html`<option value="${value}" ${selected(state.value(field) === value)}>${label}</option>`;
  return html`<form id="bulk" method="post" action="/projects/${m.project.id}/bulk${back}" class="card filters" aria-labelledby="bulk-title">
<h2 id="bulk-title">Change the selected items</h2>
${csrfField(m.session)}${writeKeyField()}
${state.summary({
  items: ['bulk-title', 'Items'],
  status: ['bulk-status', 'New status'],
  priority: ['bulk-priority', 'New priority'],
  deadline: ['bulk-deadline', 'New deadline'],
  change: ['bulk-title', 'Change'],
  add_participant: ['bulk-add-participant', 'Add participant'],
  remove_participant: ['bulk-remove-participant', 'Remove participant'],
  category: ['bulk-category', 'New category'],
  company: ['bulk-company', 'New company'],
})}
<p class="muted" id="bulk-help">Tick items in the list above, choose what to change, then apply. Each item is changed on its own: one you may not change is left as it is and named in the summary.</p>
${state.message('items', 'bulk-items')}${state.message('change', 'bulk-change')}
<div><label for="bulk-status">New status</label><select id="bulk-status" name="status" ${state.aria('status', 'bulk-status')}>${option('status', '', 'Keep')}
${ITEM_STATUSES.map((v) => option('status', v, v.replace(/_/g, ' ')))}</select>${state.message('status', 'bulk-status')}</div>
${
  m.bulk.participants && m.vocabulary.categories.length
    ? html`<div><label for="bulk-category">New category</label><select id="bulk-category" name="category" ${state.aria('category', 'bulk-category')}>${option('category', '', 'Keep')}${option('category', 'none', 'No category')}
${m.vocabulary.categories.map((c) => option('category', String(c.id), c.name))}</select>${state.message('category', 'bulk-category')}</div>`
    : ''
}
${
  m.bulk.planning
    ? html`<div><label for="bulk-priority">New priority</label><select id="bulk-priority" name="priority" ${state.aria('priority', 'bulk-priority')}>${option('priority', '', 'Keep')}
${PRIORITIES.map((v) => option('priority', v, v))}</select>${state.message('priority', 'bulk-priority')}</div>
<div><label for="bulk-deadline">New deadline</label><input id="bulk-deadline" type="date" name="deadline" value="${state.value('deadline')}" ${state.aria('deadline', 'bulk-deadline')}>${state.message('deadline', 'bulk-deadline')}
<label class="inline" for="bulk-clear-deadline"><input id="bulk-clear-deadline" type="checkbox" name="clear_deadline" value="1" ${checked(state.checked('clear_deadline', false))}> Clear the deadline</label></div>`
    : ''
}
${
  m.bulk.participants
    ? html`<div><label for="bulk-add-participant">Add participant</label><select id="bulk-add-participant" name="add_participant" ${state.aria('add_participant', 'bulk-add-participant')}>${option('add_participant', '', 'Nobody')}
${m.members.map((u) => option('add_participant', String(u.id), u.name))}</select>${state.message('add_participant', 'bulk-add-participant')}</div>
<div><label for="bulk-remove-participant">Remove participant</label><select id="bulk-remove-participant" name="remove_participant" ${state.aria('remove_participant', 'bulk-remove-participant')}>${option('remove_participant', '', 'Nobody')}
${m.members.map((u) => option('remove_participant', String(u.id), u.name))}</select>${state.message('remove_participant', 'bulk-remove-participant')}</div>
<div><label for="bulk-company">New company</label><select id="bulk-company" name="company" ${state.aria('company', 'bulk-company')}>${option('company', '', 'Keep')}${option('company', 'none', 'No company')}
${m.choosableCompanies.map((c) => option('company', String(c.id), c.name))}</select>${state.message('company', 'bulk-company')}</div>`
    : ''
}
<div class="actions"><button type="submit" aria-describedby="bulk-help">Apply to selected</button></div>
</form>`;
}

/** What the last bulk change did: counts, then each refused item with its reason. */
function bulkSummaryBlock(m: ProjectPageModel) {
  const summary = m.bulkSummary;
  if (!summary) return '';
  const texts = new Map(m.sections.flatMap((s) => s.checklists.flatMap((c) => c.items.map((i) => [i.id, i.text] as const))));
  const counts = [`${summary.changed.length} changed`];
  if (summary.unchanged.length) counts.push(`${summary.unchanged.length} already so`);
  counts.push(`${summary.refused.length} refused${summary.refused.length ? ':' : '.'}`);
  return html`<section class="notice bulk-summary" role="status" data-testid="bulk-summary" aria-label="Bulk change summary">
<p><strong>${counts.join('; ')}</strong></p>
${
  summary.refused.length
    ? html`<ul>${summary.refused.map((r) => {
        const text = texts.get(r.id);
        return html`<li data-testid="bulk-refused">${text === undefined ? `#${r.id}` : html`<a href="/items/${r.id}">#${r.id} ‘${text}’</a>`} — ${REFUSALS[r.code] ?? `The change was refused (${r.code})`}</li>`;
      })}</ul>`
    : ''
}
</section>`;
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
<p class="project-links"><a href="/projects/${p.id}/plans" data-testid="plans-link">Plans</a> · <a href="/projects/${p.id}/dashboard">Dashboard</a></p>
${reportLinks(p.id, filterQuery(m.filter))}
</section>
${m.structureLinks ?? ''}
${m.companyLinks ?? ''}
${bulkSummaryBlock(m)}
${
  m.sections.length
    ? html`${filterForm(m)}${contents(m)}${itemRows(m)}${pager(
        `/projects/${p.id}`,
        (n) => filterQuery(m.filter, n),
        m,
        (n) => plural(n, 'item'),
      )}${bulkForm(m)}`
    : html`<p class="muted">This project has no sections yet.</p>`
}`,
  }).value;
}
