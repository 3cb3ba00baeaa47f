import { html, type SafeHtml } from '../html.js';

/** A bar of a chart: what it counts, how many, and the list of exactly those items (none where no filter lists them). */
export interface Bar {
  label: string;
  value: number;
  href: string | null;
}

const WIDTH = 640;
const LABEL_WIDTH = 200;
const ROW = 28;

/** The words and numbers of a chart, in the page's language (views/dashboard-page.ts). */
export interface ChartWords {
  number(value: number): string;
  raised: string;
  closed: string;
  closedAccepted: string;
  weekOf: string;
}

/**
 * A horizontal bar chart drawn on the server (docs/design.md §23): an `svg` with `role="img"` named by its title,
 * and beside it a table of the same numbers, each a link to the list it counts (what a keyboard, a screen reader
 * and print use). A click or tap on a bar opens the same list (app.js, `data-href`): an image holds no controls
 * for assistive technology. Readable as it is sent without a script, and offline from the page's cache.
 */
export function barChart(id: string, title: string, bars: readonly Bar[], words: ChartWords): SafeHtml {
  const number = words.number;
  const max = Math.max(1, ...bars.map((b) => b.value));
  const height = Math.max(1, bars.length) * ROW + 8;
  const room = WIDTH - LABEL_WIDTH - 60;
  return html`<figure class="card chart" aria-labelledby="${id}-title">
<figcaption id="${id}-title"><h2>${title}</h2></figcaption>
<svg role="img" aria-labelledby="${id}-title" viewBox="0 0 ${WIDTH} ${height}" preserveAspectRatio="xMinYMin meet" data-testid="chart-${id}">
${bars.map((bar, i) => {
  const y = 4 + i * ROW;
  const width = bar.value === 0 ? 0 : Math.max(2, Math.round((bar.value / max) * room));
  const hit =
    bar.href === null ? html`<g data-value="${bar.value}">` : html`<g data-href="${bar.href}" data-value="${bar.value}" class="chart-hit">`;
  return html`${hit}<text x="${LABEL_WIDTH - 8}" y="${y + 18}" text-anchor="end" class="chart-label">${bar.label}</text><rect x="${LABEL_WIDTH}" y="${y + 4}" width="${width}" height="${ROW - 8}" class="chart-bar"></rect><text x="${LABEL_WIDTH + width + 6}" y="${y + 18}" class="chart-value">${number(bar.value)}</text></g>`;
})}
</svg>
<table class="chart-numbers"><caption class="sr-only">${title}</caption><tbody>
${bars.map(
  (bar) =>
    html`<tr><th scope="row">${bar.label}</th><td>${bar.href === null ? number(bar.value) : html`<a href="${bar.href}">${number(bar.value)}</a>`}</td></tr>`,
)}
</tbody></table>
</figure>`;
}

/** A week of the "raised and closed" chart. */
export interface WeekBars {
  week: string;
  raised: Bar & { href: string };
  closed: Bar & { href: string };
}

/** Two bars per week (raised, closed), oldest week first, each a link; the table beside has a row per week. */
export function weeklyChart(id: string, title: string, weeks: readonly WeekBars[], words: ChartWords): SafeHtml {
  const number = words.number;
  const max = Math.max(1, ...weeks.flatMap((w) => [w.raised.value, w.closed.value]));
  const height = 180;
  const plot = height - 40;
  const step = WIDTH / Math.max(1, weeks.length);
  const bar = (b: Bar, x: number, kind: string) => {
    const h = b.value === 0 ? 0 : Math.max(2, Math.round((b.value / max) * plot));
    return html`<g data-href="${b.href}" data-value="${b.value}" class="chart-hit"><rect x="${x}" y="${8 + plot - h}" width="${step * 0.32}" height="${h}" class="chart-bar ${kind}"></rect></g>`;
  };
  return html`<figure class="card chart" aria-labelledby="${id}-title">
<figcaption id="${id}-title"><h2>${title}</h2>
<p class="chart-legend"><span class="key raised"></span> ${words.raised} <span class="key closed"></span> ${words.closedAccepted}</p></figcaption>
<svg role="img" aria-labelledby="${id}-title" viewBox="0 0 ${WIDTH} ${height}" preserveAspectRatio="xMinYMin meet" data-testid="chart-${id}">
<line x1="0" x2="${WIDTH}" y1="${8 + plot}" y2="${8 + plot}" class="chart-axis"></line>
${weeks.map((w, i) => {
  const x = i * step + step * 0.14;
  return html`${bar(w.raised, x, 'raised')}${bar(w.closed, x + step * 0.36, 'closed')}<text x="${x + step * 0.34}" y="${height - 12}" text-anchor="middle" class="chart-label">${w.week.slice(5)}</text>`;
})}
</svg>
<table class="chart-numbers"><caption class="sr-only">${title}</caption>
<thead><tr><th scope="col">${words.weekOf}</th><th scope="col">${words.raised}</th><th scope="col">${words.closed}</th></tr></thead><tbody>
${weeks.map(
  (w) =>
    html`<tr><th scope="row">${w.week}</th><td><a href="${w.raised.href}">${number(w.raised.value)}</a></td><td><a href="${w.closed.href}">${number(w.closed.value)}</a></td></tr>`,
)}
</tbody></table>
</figure>`;
}
