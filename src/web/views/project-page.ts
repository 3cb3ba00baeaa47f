import { ITEM_STATUSES, PRIORITIES } from '../../domain/values.js';
import type { ProjectCard } from '../../features/projects/projects.service.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import type { BulkAbilities, BulkOutcome } from '../../features/items/index.js';
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
import { badge, crumbs, csrfField, languageOf, page, writeKeyField } from '../layout.js';
import type { MessageKey, Translate } from '../../i18n/i18n.js';
import type { FormFailure } from '../web-write.js';
import { checked, FormState, selected } from './forms.js';
import { reportLinks } from './report-links.js';
import { BALL_IN_COURT, type BallInCourt } from '../../domain/ball-in-court.js';

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

const SORT_LABELS: Record<ItemSort, MessageKey> = {
  tree: 'project.sort.tree',
  deadline: 'project.sort.deadline',
  priority: 'project.sort.priority',
  status: 'project.sort.status',
  updated: 'project.sort.updated',
  company: 'project.sort.company',
};

/** "Items by …", the heading of a sorted list. */
const SORTED_TITLES: Record<ItemSort, MessageKey> = {
  tree: 'project.itemsBy.tree',
  deadline: 'project.itemsBy.deadline',
  priority: 'project.itemsBy.priority',
  status: 'project.itemsBy.status',
  updated: 'project.itemsBy.updated',
  company: 'project.itemsBy.company',
};

const BALL_LABELS: Record<BallInCourt, MessageKey> = { company: 'project.ball.company', review: 'web.ball.review', none: 'web.ball.none' };

/** Why an item of a bulk change was left as it was, by the error's code. */
const REFUSALS: Record<string, MessageKey> = {
  forbidden: 'project.bulk.refused.forbidden',
  not_found: 'project.bulk.refused.notFound',
};

/** Whose move an item waits on, in the page's language (domain/ball-in-court.ts decides; a company's name as it is). */
export function ballLabel(t: Translate, value: BallInCourt, company: { name: string } | null): string {
  if (value === 'none') return t('web.ball.none');
  if (value === 'review') return t('web.ball.review');
  return company ? company.name : t('web.ball.participants');
}

/** A status, priority or similar value in the page's language (web.json), as the lists show it. */
export const priorityLabel = (t: Translate, value: string) => t(`priority.${value}` as MessageKey);
export const statusLabel = (t: Translate, value: string) => t(`badge.${value}` as MessageKey);

export function progress(card: ProjectCard, t: Translate) {
  const { done, total, percent } = card.progress;
  return html`<progress max="100" value="${percent}" aria-label="${t('web.percentDone', { percent })}"></progress> ${percent}% <span class="muted">(${done}/${total})</span>`;
}

/** A deadline, marked when it has passed on an item not done. */
export function deadline(item: { deadline: string | null; status: string }, today: string, t: Translate) {
  if (item.deadline === null) return '—';
  return html`${item.deadline}${item.deadline < today && item.status !== 'done' ? html` <span class="badge s-blocked">${t('badge.overdue')}</span>` : ''}`;
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
  t: Translate,
) {
  if (p.pages <= 1) return html`<p class="muted">${counted(p.total)}.</p>`;
  return html`<nav class="pager" aria-label="${t('web.pages')}">
${p.page > 1 ? html`<a href="${base}${query(p.page - 1)}" rel="prev">${t('web.previous')}</a>` : ''}
<span>${t('web.pageOf', { page: p.page, pages: p.pages })} <span class="muted">(${counted(p.total)})</span></span>
${p.page < p.pages ? html`<a href="${base}${query(p.page + 1)}" rel="next">${t('web.next')}</a>` : ''}
</nav>`;
}

/** The filters of the project's vocabulary (docs/design.md §21): "Category", and each active choice field by its name. */
function vocabularyFilters(m: ProjectPageModel, t: Translate) {
  const f = m.filter;
  const choices = m.vocabulary.fields.filter((field) => field.kind === 'choice' && !field.retired);
  return html`${
    m.vocabulary.categories.length
      ? html`<div><label for="filter-category">${t('project.category')}</label><select id="filter-category" name="category"><option value="">${t('project.anyCategory')}</option>
${m.vocabulary.categories.map((c) => html`<option value="${c.name}" ${selected(f.category === c.name)}>${c.name}</option>`)}</select></div>`
      : ''
  }${choices.map(
    (
      field,
      n,
    ) => html`<div><label for="filter-field-${n}">${field.name}</label><select id="filter-field-${n}" name="${FIELD_FILTER_PREFIX}${field.name}"><option value="">${t('project.any')}</option>
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

function filterForm(m: ProjectPageModel, t: Translate) {
  const f = m.filter;
  return html`<form method="get" action="/projects/${m.project.id}" class="card filters" aria-label="${t('project.filter.label')}">
<div><label for="filter-q">${t('project.filter.text')}</label><input id="filter-q" type="search" name="q" value="${f.q ?? ''}" placeholder="${t('project.filter.textHint')}"></div>
<div><label for="filter-status">${t('project.filter.status')}</label><select id="filter-status" name="status"><option value="">${t('project.filter.anyStatus')}</option>
${ITEM_STATUSES.map((s) => html`<option value="${s}" ${selected(f.status === s)}>${statusLabel(t, s)}</option>`)}</select></div>
<div><label for="filter-participant">${t('project.participant')}</label><select id="filter-participant" name="participant"><option value="">${t('project.anyone')}</option>
${m.members.map((u) => html`<option value="${u.id}" ${selected(f.participant === u.id)}>${u.name}</option>`)}</select></div>
${vocabularyFilters(m, t)}
<div><label for="filter-company">${t('project.company')}</label><select id="filter-company" name="company"><option value="">${t('project.anyCompany')}</option>
${m.companies.map((c) => html`<option value="${c.id}" ${selected(f.company === c.id)}>${c.name}</option>`)}</select></div>
<div><label for="filter-ball">${t('project.ballInCourt')}</label><select id="filter-ball" name="ball"><option value="">${t('project.anyone')}</option>
${BALL_IN_COURT.map((b) => html`<option value="${b}" ${selected(f.ball === b)}>${t(BALL_LABELS[b])}</option>`)}</select></div>
<div><label for="filter-sort">${t('project.filter.sortBy')}</label><select id="filter-sort" name="sort">
${ITEM_SORTS.map((k) => html`<option value="${k}" ${selected(f.sort === k)}>${t(SORT_LABELS[k])}</option>`)}</select></div>
<div><label class="inline" for="filter-mine"><input id="filter-mine" type="checkbox" name="mine" value="1" ${checked(f.mine)}> ${t('project.filter.mine')}</label>
<label class="inline" for="filter-overdue"><input id="filter-overdue" type="checkbox" name="overdue" value="1" ${checked(f.overdue)}> ${t('project.filter.overdue')}</label></div>
${dashboardFilter(f, t)}<div class="actions"><button type="submit">${t('project.filter.submit')}</button><a href="/projects/${m.project.id}">${t('project.filter.clear')}</a></div>
</form>`;
}

/**
 * The filters a dashboard's figure opens the list with (open, raised or accepted in a week): named above the
 * button and kept while the other filters change; "Clear" drops them.
 */
function dashboardFilter(f: ItemFilter, t: Translate) {
  const kept = [
    f.open ? { name: 'open', value: '1', words: t('project.filter.openOnly') } : null,
    f.raised ? { name: 'raised', value: f.raised, words: t('project.filter.raisedIn', { week: f.raised }) } : null,
    f.accepted
      ? {
          name: 'accepted',
          value: f.accepted,
          words: f.accepted === 'all' ? t('project.filter.accepted') : t('project.filter.acceptedIn', { week: f.accepted }),
        }
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
function contents(m: ProjectPageModel, t: Translate) {
  const showMatching = filtered(m.filter);
  return html`<details class="card" open><summary>${t('project.sort.tree')}</summary>
<ul class="tree">${m.sections.map(
    (s) => html`<li><strong>${s.name}</strong>
<ul>${s.checklists.map((c) => {
      const n = m.counts.get(c.id)!;
      return html`<li data-testid="checklist-count">${c.name} <span class="counts">— ${t('project.tree.done', { done: n.done, items: n.items })}${showMatching ? html`, ${t('project.tree.shown', { count: n.matching })}` : ''}</span></li>`;
    })}</ul></li>`,
  )}</ul></details>`;
}

const canBulk = (m: ProjectPageModel) => m.bulk.status || m.bulk.planning || m.bulk.participants;

/** One item row: its checkbox (for the bulk form), text, status, priority, deadline, participants; `where` when sorted. */
function itemRow(m: ProjectPageModel, row: ItemRow, picked: Set<string>, where: boolean, t: Translate) {
  const i = row.item;
  return html`<tr data-testid="item-row" data-item-id="${i.id}">${
    canBulk(m)
      ? html`<td class="select"><input type="checkbox" id="select-${i.id}" name="items" value="${i.id}" form="bulk" ${checked(picked.has(String(i.id)))}>
<label for="select-${i.id}" class="sr-only">${t('project.select')} “${i.text}”</label></td>`
      : ''
  }<td class="text"><a href="/items/${i.id}">${i.text}</a>${i.requires_answer ? html` <span class="muted">(${t('project.answerRequired')})</span>` : ''}</td>
${where ? html`<td data-label="${t('project.where')}">${row.section.name} › ${row.checklist.name}</td>` : ''}
<td data-label="${t('project.status')}">${badge(i.status, '—', t)}</td><td data-label="${t('project.priority')}">${priorityLabel(t, i.priority)}</td><td data-label="${t('project.deadline')}">${deadline(i, m.today, t)}</td>
<td data-label="${t('project.participants')}" data-testid="item-participants">${i.participants.length ? i.participants.map((p) => p.name).join(', ') : html`<span class="muted">—</span>`}</td>
<td data-label="${t('project.company')}" data-testid="item-company">${i.responsible_company?.name ?? html`<span class="muted">—</span>`}</td>
<td data-label="${t('project.ballInCourt')}" data-testid="item-ball-in-court" data-value="${i.ball_in_court}">${ballLabel(t, i.ball_in_court, i.responsible_company)}</td>${vocabularyCells(m, i, t)}</tr>`;
}

function vocabularyHeads(m: ProjectPageModel, t: Translate) {
  const columns = vocabularyColumns(m);
  return html`${columns.category ? html`<th scope="col">${t('project.category')}</th>` : ''}${columns.fields.map((name) => html`<th scope="col">${name}</th>`)}`;
}

function vocabularyCells(m: ProjectPageModel, i: { category: string | null; fields: Record<string, string> }, t: Translate) {
  const columns = vocabularyColumns(m);
  const empty = html`<span class="muted">—</span>`;
  return html`${columns.category ? html`<td data-label="${t('project.category')}" data-testid="item-category">${i.category ?? empty}</td>` : ''}${columns.fields.map(
    (name) => html`<td data-label="${name}">${i.fields[name] ?? empty}</td>`,
  )}`;
}

function itemTable(m: ProjectPageModel, rows: ItemRow[], picked: Set<string>, where: boolean, caption: SafeHtml | null, t: Translate) {
  return html`<table>${caption ? html`<caption class="sr-only">${caption}</caption>` : ''}<thead><tr>${canBulk(m) ? html`<th scope="col" class="select"><span class="sr-only">${t('project.select')}</span></th>` : ''}<th scope="col">${t('project.item')}</th>${
    where ? html`<th scope="col">${t('project.where')}</th>` : ''
  }<th scope="col">${t('project.status')}</th><th scope="col">${t('project.priority')}</th><th scope="col">${t('project.deadline')}</th><th scope="col">${t('project.participants')}</th><th scope="col">${t('project.company')}</th><th scope="col">${t('project.ballInCourt')}</th>${vocabularyHeads(m, t)}</tr></thead>
<tbody>${rows.map((row) => itemRow(m, row, picked, where, t))}</tbody></table>`;
}

/**
 * One page of items: in tree order under the section and checklist headings they belong to; sorted, one
 * flat list (a group per checklist would sort only within it), each row saying where the item is.
 */
function itemRows(m: ProjectPageModel, t: Translate) {
  if (m.rows.length === 0)
    return html`<p class="muted" data-testid="no-items">${filtered(m.filter) ? t('project.noMatch') : t('project.noItems')}</p>`;
  const state = new FormState('bulk', m.failure);
  const picked = new Set(state.failed ? [m.failure!.values.items ?? []].flat() : []);
  if (m.filter.sort !== 'tree') {
    return html`<h2 id="items-title">${t(SORTED_TITLES[m.filter.sort])}</h2>${itemTable(m, m.rows, picked, true, null, t)}`;
  }
  const groups: { key: number; title: SafeHtml; rows: ItemRow[] }[] = [];
  for (const row of m.rows) {
    const last = groups.at(-1);
    if (last && last.key === row.checklist.id) last.rows.push(row);
    else groups.push({ key: row.checklist.id, title: html`${row.section.name} › ${row.checklist.name}`, rows: [row] });
  }
  return groups.map((g) => html`<h2>${g.title}</h2>${itemTable(m, g.rows, picked, false, null, t)}`);
}

/**
 * The bulk form: the rows' checkboxes belong to it (`form="bulk"`); each select left on "Keep" changes
 * nothing. Participants are added or removed one person at a time, never replaced (a crew differs per item).
 */
function bulkForm(m: ProjectPageModel, t: Translate) {
  if (!canBulk(m) || m.rows.length === 0) return '';
  const state = new FormState('bulk', m.failure);
  const back = filterQuery(m.filter, m.page);
  const option = (field: string, value: string, label: string) =>
    html`<option value="${value}" ${selected(state.value(field) === value)}>${label}</option>`;
  return html`<form id="bulk" method="post" action="/projects/${m.project.id}/bulk${back}" class="card filters" aria-labelledby="bulk-title">
<h2 id="bulk-title">${t('project.bulk.title')}</h2>
${csrfField(m.session)}${writeKeyField()}
${state.summary({
  items: ['bulk-title', t('project.bulk.items')],
  status: ['bulk-status', t('project.bulk.status')],
  priority: ['bulk-priority', t('project.bulk.priority')],
  deadline: ['bulk-deadline', t('project.bulk.deadline')],
  change: ['bulk-title', t('project.bulk.change')],
  add_participant: ['bulk-add-participant', t('project.bulk.addParticipant')],
  remove_participant: ['bulk-remove-participant', t('project.bulk.removeParticipant')],
  category: ['bulk-category', t('project.bulk.category')],
  company: ['bulk-company', t('project.bulk.company')],
})}
<p class="muted" id="bulk-help">${t('project.bulk.help')}</p>
${state.message('items', 'bulk-items')}${state.message('change', 'bulk-change')}
<div><label for="bulk-status">${t('project.bulk.status')}</label><select id="bulk-status" name="status" ${state.aria('status', 'bulk-status')}>${option('status', '', t('project.bulk.keep'))}
${ITEM_STATUSES.map((v) => option('status', v, statusLabel(t, v)))}</select>${state.message('status', 'bulk-status')}</div>
${
  m.bulk.participants && m.vocabulary.categories.length
    ? html`<div><label for="bulk-category">${t('project.bulk.category')}</label><select id="bulk-category" name="category" ${state.aria('category', 'bulk-category')}>${option('category', '', t('project.bulk.keep'))}${option('category', 'none', t('project.bulk.noCategory'))}
${m.vocabulary.categories.map((c) => option('category', String(c.id), c.name))}</select>${state.message('category', 'bulk-category')}</div>`
    : ''
}
${
  m.bulk.planning
    ? html`<div><label for="bulk-priority">${t('project.bulk.priority')}</label><select id="bulk-priority" name="priority" ${state.aria('priority', 'bulk-priority')}>${option('priority', '', t('project.bulk.keep'))}
${PRIORITIES.map((v) => option('priority', v, priorityLabel(t, v)))}</select>${state.message('priority', 'bulk-priority')}</div>
<div><label for="bulk-deadline">${t('project.bulk.deadline')}</label><input id="bulk-deadline" type="date" name="deadline" value="${state.value('deadline')}" ${state.aria('deadline', 'bulk-deadline')}>${state.message('deadline', 'bulk-deadline')}
<label class="inline" for="bulk-clear-deadline"><input id="bulk-clear-deadline" type="checkbox" name="clear_deadline" value="1" ${checked(state.checked('clear_deadline', false))}> ${t('project.bulk.clearDeadline')}</label></div>`
    : ''
}
${
  m.bulk.participants
    ? html`<div><label for="bulk-add-participant">${t('project.bulk.addParticipant')}</label><select id="bulk-add-participant" name="add_participant" ${state.aria('add_participant', 'bulk-add-participant')}>${option('add_participant', '', t('project.bulk.nobody'))}
${m.members.map((u) => option('add_participant', String(u.id), u.name))}</select>${state.message('add_participant', 'bulk-add-participant')}</div>
<div><label for="bulk-remove-participant">${t('project.bulk.removeParticipant')}</label><select id="bulk-remove-participant" name="remove_participant" ${state.aria('remove_participant', 'bulk-remove-participant')}>${option('remove_participant', '', t('project.bulk.nobody'))}
${m.members.map((u) => option('remove_participant', String(u.id), u.name))}</select>${state.message('remove_participant', 'bulk-remove-participant')}</div>
<div><label for="bulk-company">${t('project.bulk.company')}</label><select id="bulk-company" name="company" ${state.aria('company', 'bulk-company')}>${option('company', '', t('project.bulk.keep'))}${option('company', 'none', t('project.bulk.noCompany'))}
${m.choosableCompanies.map((c) => option('company', String(c.id), c.name))}</select>${state.message('company', 'bulk-company')}</div>`
    : ''
}
<div class="actions"><button type="submit" aria-describedby="bulk-help">${t('project.bulk.apply')}</button></div>
</form>`;
}

/** What the last bulk change did: counts, then each refused item with its reason. */
function bulkSummaryBlock(m: ProjectPageModel, t: Translate) {
  const summary = m.bulkSummary;
  if (!summary) return '';
  const texts = new Map(m.sections.flatMap((s) => s.checklists.flatMap((c) => c.items.map((i) => [i.id, i.text] as const))));
  const counts = [t('project.bulk.changed', { count: summary.changed.length })];
  if (summary.unchanged.length) counts.push(t('project.bulk.unchanged', { count: summary.unchanged.length }));
  counts.push(t('project.bulk.refusedCount', { count: summary.refused.length }) + (summary.refused.length ? ':' : '.'));
  return html`<section class="notice bulk-summary" role="status" data-testid="bulk-summary" aria-label="${t('project.bulk.summary')}">
<p><strong>${counts.join('; ')}</strong></p>
${
  summary.refused.length
    ? html`<ul>${summary.refused.map((r) => {
        const text = texts.get(r.id);
        return html`<li data-testid="bulk-refused">${text === undefined ? `#${r.id}` : html`<a href="/items/${r.id}">#${r.id} ‘${text}’</a>`} — ${REFUSALS[r.code] ? t(REFUSALS[r.code]!) : t('project.bulk.refused.other', { code: r.code })}</li>`;
      })}</ul>`
    : ''
}
</section>`;
}

export function projectPageView(m: ProjectPageModel): string {
  const p = m.project;
  const { t } = languageOf(m.session);
  return page({
    title: p.name,
    session: m.session,
    path: '/projects',
    notice: m.notice,
    body: html`${crumbs([{ href: p.archived ? '/projects?archived=1' : '/projects', label: t('nav.projects') }], t)}
<h1>${p.name} ${p.archived ? html`<span class="badge s-expired">${t('badge.archived')}</span>` : ''}</h1>
<section class="card" aria-label="${t('project.summary')}">
${p.description ? html`<p class="text">${p.description}</p>` : ''}
<dl class="facts">
<dt>${t('project.deadline')}</dt><dd>${p.deadline ?? '—'}</dd>
<dt>${t('project.progress')}</dt><dd>${progress(p, t)}</dd>
<dt>${t('project.items')}</dt><dd>${t('project.counters', { ...p.counters })}</dd>
<dt>${t('project.verdict')}</dt><dd data-testid="project-verdict">${badge(p.verdict, '—', t)}</dd>
</dl>
${m.verdictForm ?? ''}
<p class="project-links"><a href="/projects/${p.id}/plans" data-testid="plans-link">${t('project.plans')}</a> · <a href="/projects/${p.id}/dashboard">${t('nav.dashboard')}</a></p>
${reportLinks(p.id, filterQuery(m.filter), t)}
</section>
${m.structureLinks ?? ''}
${m.companyLinks ?? ''}
${bulkSummaryBlock(m, t)}
${
  m.sections.length
    ? html`${filterForm(m, t)}${contents(m, t)}${itemRows(m, t)}${pager(
        `/projects/${p.id}`,
        (n) => filterQuery(m.filter, n),
        m,
        (n) => t('web.items', { count: n }),
        t,
      )}${bulkForm(m, t)}`
    : html`<p class="muted">${t('project.noSections')}</p>`
}`,
  }).value;
}
