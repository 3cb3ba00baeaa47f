import type { EventView } from '../../features/events/events.service.js';
import { html, type SafeHtml } from '../html.js';
import { badge, time } from '../layout.js';
import { plural } from '../../domain/plural.js';

export interface TimelineModel {
  events: EventView[];
  names: { users: Map<number, string>; checklists: Map<number, string> };
  /** The item's status history: it covers what the events no longer do (they are kept EVENT_RETENTION_DAYS). */
  history: { kind: string; from: string | null; to: string | null; at: string; user: { name: string } | null; note: string | null }[];
}

interface Entry {
  at: string;
  who: string | null;
  what: SafeHtml;
}

type Change = { from: unknown; to: unknown };

const label = (value: unknown) => (value === null || value === undefined || value === '' ? '—' : String(value).replace(/_/g, ' '));
const quote = (text: unknown) => {
  const chars = [...String(text ?? '')];
  return `“${chars.length > 140 ? `${chars.slice(0, 140).join('')}…` : chars.join('')}”`;
};

function statusChange(from: unknown, to: unknown): SafeHtml {
  return html`${from ? html`${badge(String(from))} → ` : ''}${badge(String(to))}`;
}

function participantsChange(change: { from: number[]; to: number[] }, users: Map<number, string>): SafeHtml {
  const name = (id: number) => users.get(id) ?? `user ${id}`;
  const added = change.to.filter((id) => !change.from.includes(id)).map(name);
  const removed = change.from.filter((id) => !change.to.includes(id)).map(name);
  return html`${added.length ? `added ${added.join(', ')} as participants` : ''}${added.length && removed.length ? '; ' : ''}${
    removed.length ? `removed ${removed.join(', ')} from the participants` : ''
  }`;
}

/** What one event says, in words. */
function describe(e: EventView, names: TimelineModel['names']): SafeHtml {
  const d = e.data as Record<string, unknown>;
  switch (e.type) {
    case 'item.created': {
      const item = d.item as { participants?: { name: string }[]; attachments?: unknown[] };
      const extra = [
        item.participants?.length ? `for ${item.participants.map((p) => p.name).join(', ')}` : '',
        item.attachments?.length ? `with ${plural(item.attachments.length, 'photo')}` : '',
      ].filter(Boolean);
      return html`raised the item${extra.length ? ` ${extra.join(', ')}` : ''}`;
    }
    case 'item.status_changed':
      return html`changed the status: ${statusChange(d.from, d.to)}`;
    case 'item.planning_changed': {
      const from = d.from as Record<string, unknown>;
      const to = d.to as Record<string, unknown>;
      const parts = (['deadline', 'priority', 'requires_answer'] as const)
        .filter((k) => from[k] !== to[k])
        .map(
          (k) =>
            `${k === 'requires_answer' ? 'answer required' : k} ${label(k === 'requires_answer' ? (from[k] ? 'yes' : 'no') : from[k])} → ${label(k === 'requires_answer' ? (to[k] ? 'yes' : 'no') : to[k])}`,
        );
      return html`changed the planning: ${parts.join('; ')}`;
    }
    case 'item.updated': {
      const changes = d.changes as Record<string, Change>;
      const parts: SafeHtml[] = [];
      if (changes.text) parts.push(html`changed the text from ${quote(changes.text.from)} to ${quote(changes.text.to)}`);
      if (changes.description) parts.push(html`edited the description`);
      if (changes.participants) parts.push(participantsChange(changes.participants as { from: number[]; to: number[] }, names.users));
      if (changes.checklist) {
        const name = (id: unknown) => names.checklists.get(Number(id)) ?? `checklist ${String(id)}`;
        parts.push(html`moved the item from “${name(changes.checklist.from)}” to “${name(changes.checklist.to)}”`);
      }
      if (changes.position)
        parts.push(html`moved the item ${Number(changes.position.to) < Number(changes.position.from) ? 'up' : 'down'} in its checklist`);
      return html`${parts.map((p, i) => html`${i ? '; ' : ''}${p}`)}`;
    }
    case 'item.links_replaced':
      return html`replaced the document links (${plural((d.document_links as unknown[]).length, 'link')})`;
    case 'item.attachments_added':
      return html`added ${plural((d.attachments as unknown[]).length, 'photo')}`;
    case 'comment.created':
      return html`commented: ${quote((d.comment as { text: string }).text)}`;
    case 'answer.created':
      return html`answered: ${quote((d.answer as { text: string }).text)}`;
    case 'answer.attachments_added':
      return html`added ${plural((d.attachments as unknown[]).length, 'picture')} to an answer`;
    case 'answer.reviewed':
      return html`${d.to === 'approved' ? 'approved' : d.to === 'rejected' ? 'rejected' : 'reviewed'} an answer`;
    case 'item.verdict_set':
      return d.to === null ? html`cleared the verdict` : html`set the verdict: ${badge(String(d.to))}`;
    case 'item.returned_to_rework':
      return html`returned the item to rework${d.from !== d.to ? html` (it was ${badge(String(d.from))})` : ''}: ${quote(d.reason)}, due ${label(d.rework_deadline)}`;
    default:
      return html`${label(e.type)}`;
  }
}

/** A status-history entry older than the events still kept. */
function fromHistory(h: TimelineModel['history'][number]): SafeHtml {
  switch (h.kind) {
    case 'created':
      return html`raised the item`;
    case 'returned_to_rework':
      return html`returned the item to rework${h.from !== h.to ? html` (it was ${badge(h.from)})` : ''}${h.note ? `: ${quote(h.note)}` : ''}`;
    case 'verdict_set':
      return h.note === 'cleared' ? html`cleared the verdict` : html`set the verdict: ${badge(h.note)}`;
    default:
      return html`changed the status: ${statusChange(h.from, h.to)}`;
  }
}

/** The item's timeline (DESIGN.md §14): every kind of change, who made it and when, oldest first. */
export function timeline(m: TimelineModel, zone: string | null = null): SafeHtml {
  const firstEvent = m.events[0]?.at ?? null;
  const entries: Entry[] = [
    ...m.history
      .filter((h) => firstEvent === null || h.at < firstEvent)
      .map((h) => ({ at: h.at, who: h.user?.name ?? null, what: fromHistory(h) })),
    ...m.events.map((e) => ({ at: e.at, who: e.actor?.name ?? null, what: describe(e, m.names) })),
  ];
  return html`<section class="card" aria-labelledby="timeline-title" id="timeline">
<h2 id="timeline-title">Timeline</h2>
${
  entries.length
    ? // Folded, as the item page opens on its work controls (DESIGN.md §16).
      html`<details class="fold"><summary>Show the timeline (${entries.length})</summary><ol class="timeline">${entries.map(
        (e) =>
          html`<li data-testid="timeline-entry"><span class="when muted">${time(e.at, '—', zone)}</span> · <strong>${e.who ?? 'system'}</strong> ${e.what}</li>`,
      )}</ol></details>`
    : html`<p class="muted">Nothing has happened to this item yet.</p>`
}
</section>`;
}
