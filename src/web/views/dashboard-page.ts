import type { DashboardOverview, ProjectFigures } from '../../features/dashboard/dashboard.service.js';
import type { WebSession } from '../../features/sessions/sessions.service.js';
import { ITEM_STATUSES } from '../../domain/values.js';
import { html, type SafeHtml } from '../html.js';
import { crumbs, page } from '../layout.js';
import { barChart, weeklyChart } from './charts.js';

const statusLabel = (s: string) => s.charAt(0).toUpperCase() + s.slice(1).replace(/_/g, ' ');

/** Days with one decimal, or a dash when nothing was accepted. */
const days = (value: number | null) => (value === null ? '—' : value.toFixed(1));

/** The project list filtered as a figure counts (worklists' filters: open, overdue, status, raised, accepted). */
const listOf = (projectId: number, query: string) => `/projects/${projectId}?${query}`;

/** The headline numbers, each a link to what it counts. */
function headline(f: Omit<ProjectFigures, 'project'>, link: (query: string) => string): SafeHtml {
  const figure = (label: string, value: string, href: string) => html`<li><a href="${href}"><strong>${value}</strong> ${label}</a></li>`;
  return html`<ul class="figures card" data-testid="dashboard-figures">
${figure('open', f.open.toLocaleString('en'), link('open=1'))}
${figure('overdue', f.overdue.toLocaleString('en'), link('overdue=1'))}
${figure('accepted', f.accepted.toLocaleString('en'), link('accepted=all'))}
${figure('median days from raised to accepted', days(f.medianDaysToAccept), link('accepted=all'))}
</ul>`;
}

/** A project's "Dashboard" tab: its figures, of the items the user sees. */
export function projectDashboardView(m: { session: WebSession; figures: ProjectFigures }): SafeHtml {
  const f = m.figures;
  const link = (query: string) => listOf(f.project.id, query);
  return page({
    title: `Dashboard · ${f.project.name}`,
    session: m.session,
    path: `/projects/${f.project.id}/dashboard`,
    body: html`${crumbs([
      { href: '/projects', label: 'Projects' },
      { href: `/projects/${f.project.id}`, label: f.project.name },
    ])}
<h1>Dashboard</h1>
<p class="muted">${f.total.toLocaleString('en')} items you can see in this project. Every figure opens the list of the items it counts.</p>
${headline(f, link)}
<div class="charts">
${barChart(
  'status',
  'Items by status',
  ITEM_STATUSES.map((s) => ({ label: statusLabel(s), value: f.byStatus[s], href: link(`status=${s}`) })),
)}
${weeklyChart(
  'weeks',
  'Raised and closed per week',
  f.weeks.map((w) => ({
    week: w.week,
    raised: { label: `Raised in the week of ${w.week}`, value: w.raised, href: link(`raised=${w.week}`) },
    closed: { label: `Accepted in the week of ${w.week}`, value: w.accepted, href: link(`accepted=${w.week}`) },
  })),
)}
</div>`,
  });
}

/** `/dashboard`: every active project the user sees, side by side, and the totals. */
export function dashboardView(m: { session: WebSession; overview: DashboardOverview }): SafeHtml {
  const { projects, totals } = m.overview;
  return page({
    title: 'Dashboard',
    session: m.session,
    path: '/dashboard',
    body: html`<h1>Dashboard</h1>
<p class="muted">${projects.length.toLocaleString('en')} active projects, ${totals.total.toLocaleString('en')} items you can see. Totals open the table by project below; every other figure opens the list of the items it counts.</p>
${headline(totals, () => '#projects')}
${
  projects.length
    ? html`<div class="charts">
${barChart(
  'open',
  'Open items by project',
  projects.map((p) => ({ label: p.project.name, value: p.open, href: listOf(p.project.id, 'open=1') })),
)}
${barChart(
  'overdue',
  'Overdue items by project',
  projects.map((p) => ({ label: p.project.name, value: p.overdue, href: listOf(p.project.id, 'overdue=1') })),
)}
</div>
<h2 id="projects">By project</h2>
<table data-testid="dashboard-projects"><thead><tr><th scope="col">Project</th>${ITEM_STATUSES.map(
        (s) => html`<th scope="col">${statusLabel(s)}</th>`,
      )}<th scope="col">Overdue</th><th scope="col">Accepted</th><th scope="col">Median days to accept</th></tr></thead>
<tbody>${projects.map(
        (p) => html`<tr><th scope="row"><a href="/projects/${p.project.id}/dashboard">${p.project.name}</a></th>
${ITEM_STATUSES.map((s) => html`<td data-label="${statusLabel(s)}"><a href="${listOf(p.project.id, `status=${s}`)}">${p.byStatus[s].toLocaleString('en')}</a></td>`)}
<td data-label="Overdue"><a href="${listOf(p.project.id, 'overdue=1')}">${p.overdue.toLocaleString('en')}</a></td>
<td data-label="Accepted"><a href="${listOf(p.project.id, 'accepted=all')}">${p.accepted.toLocaleString('en')}</a></td>
<td data-label="Median days to accept"><a href="${listOf(p.project.id, 'accepted=all')}">${days(p.medianDaysToAccept)}</a></td></tr>`,
      )}</tbody></table>`
    : html`<p class="muted">You are not a member of an active project.</p>`
}`,
  });
}
