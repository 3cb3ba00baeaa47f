/** The benchmark's outputs: the Markdown table, the target checks, the SVG chart of the ratios. */
import { availableParallelism, cpus, freemem, totalmem } from 'node:os';
import type { LoadResult } from './load.js';

export interface ScenarioResult extends LoadResult {
  name: string;
  description: string;
  /** requests/s ÷ the run's Fastify ceiling (the median of its measurements); null for the ceilings themselves. */
  ratio: number | null;
  /** The Fastify ceiling measured just before the scenario (requests/s). */
  ceiling_rps?: number;
  /** Time the server still needed after the run to answer what was queued (ms). */
  drain_ms?: number;
  /** The same requests over one connection: latency without queueing. */
  single?: LoadResult;
}

export interface Target {
  scenario: string;
  what: string;
  limit: string;
  value: number | null;
  pass: boolean | null;
}

const fmt = (n: number | null | undefined, digits = 0) => (n === null || n === undefined ? '–' : n.toFixed(digits));

export function markdownTable(results: ScenarioResult[]): string {
  const lines = [
    '| scenario | req/s | p50 ms | p95 ms | p99 ms | p99.9 ms | Fastify ceiling req/s (just before) | ratio to Fastify (the run’s median ceiling) | server CPU µs / request | event loop delay ms (p99 / max) | server RSS MB (end / peak) | errors / non-2xx |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    lines.push(
      `| ${r.name} | ${fmt(r.requests_per_s)} | ${fmt(r.latency_ms.p50, 2)} | ${fmt(r.latency_ms.p95, 2)} | ${fmt(r.latency_ms.p99, 2)} | ${fmt(r.latency_ms.p99_9, 2)} | ${fmt(r.ceiling_rps)} | ` +
        `${r.ratio === null ? '(ceiling)' : fmt(r.ratio, 2)} | ${fmt(r.server_cpu_us_per_request)} | ${r.event_loop ? `${fmt(r.event_loop.p99_ms, 1)} / ${fmt(r.event_loop.max_ms, 1)}` : '–'} | ${fmt(r.rss_mb_end)} / ${fmt(r.rss_mb_peak)} | ${r.errors + r.timeouts} / ${r.non_2xx} |`,
    );
  }
  return lines.join('\n');
}

/**
 * What a ratio target leaves one request: the server's event loop is one core, so answering
 * `ratio × ceiling` requests/s allows at most 1 s ÷ (ratio × ceiling) of CPU per request.
 */
export function budgetTable(results: ScenarioResult[], targets: Record<string, number>, ceilingRps: number): string {
  const lines = [
    '| scenario | target ratio | Fastify ceiling req/s | CPU budget µs / request at the target | measured server CPU µs / request | over budget |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const [name, ratio] of Object.entries(targets)) {
    const r = results.find((x) => x.name === name);
    if (!r || !ceilingRps) continue;
    const budget = 1e6 / (ratio * ceilingRps);
    const used = r.server_cpu_us_per_request;
    lines.push(
      `| ${name} | ${ratio} | ${fmt(ceilingRps)} | ${fmt(budget)} | ${fmt(used)} | ${used === null ? '–' : `×${fmt(used / budget, 1)}`} |`,
    );
  }
  return lines.join('\n');
}

export function singleConnectionTable(results: ScenarioResult[]): string {
  const rows = results.filter((r) => r.single);
  if (rows.length === 0) return '';
  const lines = ['| scenario, 1 connection | req/s | p50 ms | p95 ms | p99 ms |', '|---|---:|---:|---:|---:|'];
  for (const r of rows) {
    const s = r.single!;
    lines.push(
      `| ${r.name} | ${fmt(s.requests_per_s)} | ${fmt(s.latency_ms.p50, 2)} | ${fmt(s.latency_ms.p95, 2)} | ${fmt(s.latency_ms.p99, 2)} |`,
    );
  }
  return lines.join('\n');
}

export function targetsTable(targets: Target[]): string {
  const lines = ['| target | limit | measured | met |', '|---|---:|---:|---|'];
  for (const t of targets) {
    lines.push(
      `| ${t.scenario}: ${t.what} | ${t.limit} | ${t.value === null ? '–' : fmt(t.value, 2)} | ${t.pass === null ? 'not measured' : t.pass ? 'yes' : '**no**'} |`,
    );
  }
  return lines.join('\n');
}

const escapeXml = (s: string) => s.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);

/** Horizontal bars of each scenario's ratio to the Fastify ceiling, with the target marks. Hand-written SVG. */
export function ratioChart(results: ScenarioResult[], targets: Record<string, number>, title: string): string {
  const rows = results.filter((r) => r.ratio !== null);
  const barHeight = 22;
  const gap = 8;
  const left = 190;
  const width = 720;
  const plot = width - left - 70;
  const top = 48;
  const height = top + rows.length * (barHeight + gap) + 40;
  const max = Math.max(1, ...rows.map((r) => r.ratio ?? 0));
  const x = (ratio: number) => left + (ratio / max) * plot;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${left}" y="20" font-size="14" font-weight="bold">${escapeXml(title)}</text>`,
    `<text x="${left}" y="36" fill="#555">requests/s ÷ bare Fastify ceiling measured just before; black ticks: targets</text>`,
  ];
  for (const tick of [0, 0.25, 0.5, 0.75, 1].filter((t) => t <= max)) {
    parts.push(
      `<line x1="${x(tick)}" y1="${top - 4}" x2="${x(tick)}" y2="${height - 30}" stroke="#ddd"/>`,
      `<text x="${x(tick)}" y="${height - 16}" text-anchor="middle" fill="#555">${tick}</text>`,
    );
  }
  rows.forEach((r, i) => {
    const y = top + i * (barHeight + gap);
    const target = targets[r.name];
    const met = target === undefined || (r.ratio ?? 0) >= target;
    parts.push(
      `<text x="${left - 8}" y="${y + barHeight / 2 + 4}" text-anchor="end">${escapeXml(r.name)}</text>`,
      `<rect x="${left}" y="${y}" width="${Math.max(1, x(r.ratio ?? 0) - left)}" height="${barHeight}" fill="${met ? '#3b7dd8' : '#d8623b'}"/>`,
      `<text x="${x(r.ratio ?? 0) + 6}" y="${y + barHeight / 2 + 4}">${fmt(r.ratio, 2)}</text>`,
    );
    if (target !== undefined) {
      parts.push(`<line x1="${x(target)}" y1="${y - 3}" x2="${x(target)}" y2="${y + barHeight + 3}" stroke="#000" stroke-width="2"/>`);
    }
  });
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}

/** What the results were measured on. */
export function machine() {
  return {
    nproc: availableParallelism(),
    cpu: cpus()[0]?.model ?? 'unknown',
    memory_total_gb: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    memory_free_gb: Math.round((freemem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}
