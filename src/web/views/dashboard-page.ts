import { BALL_IN_COURT } from '../../domain/ball-in-court.js';
import type { DashboardOverview, ProjectFigures } from '../../features/dashboard/dashboard.service.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import { ITEM_STATUSES } from '../../domain/values.js';
import { formatNumber, type Language, type Translate } from '../../i18n/i18n.js';
import { html, type SafeHtml } from '../html.js';
import { crumbs, languageOf, page } from '../layout.js';
import { type Bar, barChart, weeklyChart } from './charts.js';

/** The project list filtered as a figure counts (worklists' filters: open, overdue, status, raised, accepted). */
const listOf = (projectId: number, query: string) => `/projects/${projectId}?${query}`;

/** How the dashboard writes in the page's language: its words, numbers and days (one decimal, a dash for none). */
function writer(session: WebSession) {
  const { language, t } = languageOf(session);
  return {
    language,
    t,
    n: (value: number) => formatNumber(language, value),
    days: (value: number | null) => (value === null ? '—' : formatNumber(language, value, 1)),
    status: (s: (typeof ITEM_STATUSES)[number]) => t(`status.${s}`),
    ball: (b: (typeof BALL_IN_COURT)[number]) => t(`dashboard.ball.${b}`),
    company: (name: string | null) => name ?? t('dashboard.noCompany'),
    category: (name: string | null) => name ?? t('dashboard.noCategory'),
  };
}

type Writer = ReturnType<typeof writer>;

/** The list filters of the ball in court, company and category figures (none for "no company", "no category"). */
const ballQuery = (b: string) => `ball=${b}`;
const companyQuery = (id: number | null) => (id === null ? null : `company=${id}`);
const categoryQuery = (name: string | null) => (name === null ? null : `category=${encodeURIComponent(name)}`);

/** The bars of ball in court, company and category (docs/design.md §23), each to `link` of its filter. */
function splitBars(w: Writer, f: Omit<ProjectFigures, 'project'>, link: (query: string | null) => string | null) {
  return {
    ball: BALL_IN_COURT.map((b) => ({ label: w.ball(b), value: f.byBall[b], href: link(ballQuery(b)) })),
    company: f.byCompany.map((c) => ({ label: w.company(c.name), value: c.count, href: link(companyQuery(c.id)) })),
    category: f.byCategory.map((c) => ({ label: w.category(c.name), value: c.count, href: link(categoryQuery(c.name)) })),
  };
}

/** The three charts of `splitBars`. */
function splitCharts(w: Writer, bars: ReturnType<typeof splitBars>, words: ReturnType<typeof chartWords>): SafeHtml {
  return html`${barChart('ball', w.t('dashboard.byBall'), bars.ball, words)}
${barChart('company', w.t('dashboard.byCompany'), bars.company, words)}
${barChart('category', w.t('dashboard.byCategory'), bars.category, words)}`;
}

/** The headline numbers, each a link to what it counts. */
function headline(w: Writer, f: Omit<ProjectFigures, 'project'>, link: (query: string) => string): SafeHtml {
  const figure = (label: string, value: string, href: string) => html`<li><a href="${href}"><strong>${value}</strong> ${label}</a></li>`;
  return html`<ul class="figures card" data-testid="dashboard-figures">
${figure(w.t('dashboard.open'), w.n(f.open), link('open=1'))}
${figure(w.t('dashboard.overdue'), w.n(f.overdue), link('overdue=1'))}
${figure(w.t('dashboard.accepted'), w.n(f.accepted), link('accepted=all'))}
${figure(w.t('dashboard.medianDays'), w.days(f.medianDaysToAccept), link('accepted=all'))}
</ul>`;
}

/** The charts' own words (legend, table headings) and numbers, in the page's language. */
const chartWords = (language: Language, t: Translate) => ({
  number: (value: number) => formatNumber(language, value),
  raised: t('chart.raised'),
  closed: t('chart.closed'),
  closedAccepted: t('chart.closedAccepted'),
  weekOf: t('chart.weekOf'),
});

/** A project's "Dashboard" tab: its figures, of the items the user sees. */
export function projectDashboardView(m: { session: WebSession; figures: ProjectFigures }): SafeHtml {
  const f = m.figures;
  const w = writer(m.session);
  const { t } = w;
  const link = (query: string) => listOf(f.project.id, query);
  const words = chartWords(w.language, t);
  return page({
    title: `${t('dashboard.title')} · ${f.project.name}`,
    session: m.session,
    path: `/projects/${f.project.id}/dashboard`,
    body: html`${crumbs([
      { href: '/projects', label: t('nav.projects') },
      { href: `/projects/${f.project.id}`, label: f.project.name },
    ])}
<h1>${t('dashboard.title')}</h1>
<p class="muted">${t('dashboard.projectLead', { count: f.total })}</p>
${headline(w, f, link)}
<div class="charts">
${barChart(
  'status',
  t('dashboard.byStatus'),
  ITEM_STATUSES.map((s) => ({ label: w.status(s), value: f.byStatus[s], href: link(`status=${s}`) })),
  words,
)}
${weeklyChart(
  'weeks',
  t('dashboard.weekly'),
  f.weeks.map((week) => ({
    week: week.week,
    raised: { label: t('dashboard.raisedInWeek', { week: week.week }), value: week.raised, href: link(`raised=${week.week}`) },
    closed: { label: t('dashboard.acceptedInWeek', { week: week.week }), value: week.accepted, href: link(`accepted=${week.week}`) },
  })),
  words,
)}
${splitCharts(
  w,
  splitBars(w, f, (query) => (query === null ? null : link(query))),
  words,
)}
</div>`,
  });
}

/**
 * The across-projects tables of ball in court, companies and categories: a row per project and value, each count a
 * link to that project's list filtered so (a plain number where no filter lists it: no company, no category).
 */
function splitTables(w: Writer, projects: readonly ProjectFigures[]): SafeHtml {
  const { t } = w;
  const count = (label: string, value: number, query: string | null, projectId: number) =>
    html`<td data-label="${label}">${query === null ? w.n(value) : html`<a href="${listOf(projectId, query)}">${w.n(value)}</a>`}</td>`;
  const project = (p: ProjectFigures) => html`<th scope="row"><a href="/projects/${p.project.id}/dashboard">${p.project.name}</a></th>`;
  const items = t('dashboard.itemsColumn');
  return html`<h2 id="ball">${t('dashboard.ballByProject')}</h2>
<table data-testid="dashboard-ball"><thead><tr><th scope="col">${t('dashboard.project')}</th>${BALL_IN_COURT.map(
    (b) => html`<th scope="col">${w.ball(b)}</th>`,
  )}</tr></thead>
<tbody>${projects.map(
    (p) => html`<tr>${project(p)}${BALL_IN_COURT.map((b) => count(w.ball(b), p.byBall[b], ballQuery(b), p.project.id))}</tr>`,
  )}</tbody></table>
<h2 id="companies">${t('dashboard.companiesByProject')}</h2>
<table data-testid="dashboard-companies"><thead><tr><th scope="col">${t('dashboard.project')}</th><th scope="col">${t(
    'dashboard.companyColumn',
  )}</th><th scope="col">${items}</th></tr></thead>
<tbody>${projects.flatMap((p) =>
    p.byCompany.map(
      (c) =>
        html`<tr>${project(p)}<td data-label="${t('dashboard.companyColumn')}">${w.company(c.name)}</td>${count(items, c.count, companyQuery(c.id), p.project.id)}</tr>`,
    ),
  )}</tbody></table>
<h2 id="categories">${t('dashboard.categoriesByProject')}</h2>
<table data-testid="dashboard-categories"><thead><tr><th scope="col">${t('dashboard.project')}</th><th scope="col">${t(
    'dashboard.categoryColumn',
  )}</th><th scope="col">${items}</th></tr></thead>
<tbody>${projects.flatMap((p) =>
    p.byCategory.map(
      (c) =>
        html`<tr>${project(p)}<td data-label="${t('dashboard.categoryColumn')}">${w.category(c.name)}</td>${count(items, c.count, categoryQuery(c.name), p.project.id)}</tr>`,
    ),
  )}</tbody></table>`;
}

/** `/dashboard`: every active project the user sees, side by side, and the totals. */
export function dashboardView(m: { session: WebSession; overview: DashboardOverview }): SafeHtml {
  const { projects, totals } = m.overview;
  const w = writer(m.session);
  const { t } = w;
  const words = chartWords(w.language, t);
  // Across projects, a bar of ball in court, company or category opens its table by project below.
  const anchored = (anchor: string, list: readonly Bar[]) => list.map((b) => ({ ...b, href: anchor }));
  const totalBars = splitBars(w, totals, () => null);
  const acrossBars = {
    ball: anchored('#ball', totalBars.ball),
    company: anchored('#companies', totalBars.company),
    category: anchored('#categories', totalBars.category),
  };
  const cell = (label: string, href: string, value: string) => html`<td data-label="${label}"><a href="${href}">${value}</a></td>`;
  return page({
    title: t('dashboard.title'),
    session: m.session,
    path: '/dashboard',
    body: html`<h1>${t('dashboard.title')}</h1>
<p class="muted">${t('dashboard.overviewLead', { projects: projects.length, count: totals.total })}</p>
${headline(w, totals, () => '#projects')}
${
  projects.length
    ? html`<div class="charts">
${barChart(
  'open',
  t('dashboard.openByProject'),
  projects.map((p) => ({ label: p.project.name, value: p.open, href: listOf(p.project.id, 'open=1') })),
  words,
)}
${barChart(
  'overdue',
  t('dashboard.overdueByProject'),
  projects.map((p) => ({ label: p.project.name, value: p.overdue, href: listOf(p.project.id, 'overdue=1') })),
  words,
)}
${splitCharts(w, acrossBars, words)}
</div>
<h2 id="projects">${t('dashboard.byProject')}</h2>
<table data-testid="dashboard-projects"><thead><tr><th scope="col">${t('dashboard.project')}</th>${ITEM_STATUSES.map(
        (s) => html`<th scope="col">${w.status(s)}</th>`,
      )}<th scope="col">${t('dashboard.overdueColumn')}</th><th scope="col">${t('dashboard.acceptedColumn')}</th><th scope="col">${t(
        'dashboard.medianColumn',
      )}</th></tr></thead>
<tbody>${projects.map(
        (p) => html`<tr><th scope="row"><a href="/projects/${p.project.id}/dashboard">${p.project.name}</a></th>
${ITEM_STATUSES.map((s) => cell(w.status(s), listOf(p.project.id, `status=${s}`), w.n(p.byStatus[s])))}
${cell(t('dashboard.overdueColumn'), listOf(p.project.id, 'overdue=1'), w.n(p.overdue))}
${cell(t('dashboard.acceptedColumn'), listOf(p.project.id, 'accepted=all'), w.n(p.accepted))}
${cell(t('dashboard.medianColumn'), listOf(p.project.id, 'accepted=all'), w.days(p.medianDaysToAccept))}</tr>`,
      )}</tbody></table>
${splitTables(w, projects)}`
    : html`<p class="muted">${t('dashboard.noProjects')}</p>`
}`,
  });
}
