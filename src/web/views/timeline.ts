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
  /** Put in words only for the entries shown (a long history has thousands). */
  what: () => SafeHtml;
}

type Change<T = unknown> = { from: T; to: T };

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

type NamedImage = { original_name: string; url?: string; annotates?: number | null; stage?: string | null; caption?: string | null };

/** Photos by their names, each linked to its image (which checks access like every download). */
const imageNames = (list: NamedImage[]) =>
  html`${list.map(
    (a, i) =>
      html`${i ? ', ' : ''}${a.url ? html`<a href="${a.url}" target="_blank" rel="noopener">${a.original_name}</a>` : a.original_name}`,
  )}`;

/** "with 2 photos: crack.jpg, frame.jpg", or nothing. */
const withPhotos = (list: NamedImage[] | undefined) =>
  list?.length ? html` with ${plural(list.length, 'photo')}: ${imageNames(list)}` : '';

/**
 * "added 2 photos (defect): “Crack by the door”", or "marked up a photo (defect)" (docs/design.md §22): the stage when
 * they share one, the captions quoted.
 */
function photosAdded(list: NamedImage[], noun: 'photo' | 'picture'): SafeHtml {
  const stages = [...new Set(list.map((a) => a.stage ?? null))];
  const stage = stages.length === 1 && stages[0] ? ` (${stages[0]})` : '';
  const captions = list.map((a) => a.caption).filter(Boolean);
  const what =
    list.length === 1 && list[0]!.annotates ? html`marked up a ${noun}${stage}` : html`added ${plural(list.length, noun)}${stage}`;
  return html`${what}${captions.length ? `: ${captions.map(quote).join(', ')}` : ''}`;
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
      if (changes.location) parts.push(placeChange(changes.location as Change<Place | null>));
      // docs/design.md §21: the category and the custom field values, by name.
      const shown = (value: unknown) => (value === null || value === undefined ? '—' : String(value));
      if (changes.category) parts.push(html`set the category: ${shown(changes.category.from)} → ${shown(changes.category.to)}`);
      for (const [field, change] of Object.entries((changes.fields ?? {}) as unknown as Record<string, Change>)) {
        parts.push(html`set ${field}: ${shown(change.from)} → ${shown(change.to)}`);
      }
      if (changes.responsible_company) parts.push(companyChange(changes.responsible_company as Change<{ name: string } | null>));
      return html`${parts.map((p, i) => html`${i ? '; ' : ''}${p}`)}`;
    }
    case 'item.disputed':
      return html`disputed the item: ${quote(d.reason)}`;
    case 'item.dispute_resolved':
      return html`resolved the dispute: ${quote(d.note)}`;
    case 'item.links_replaced':
      return html`replaced the document links (${plural((d.document_links as unknown[]).length, 'link')})`;
    case 'item.attachments_added':
      return photosAdded(d.attachments as NamedImage[], 'photo');
    case 'comment.created':
      return html`commented: ${quote((d.comment as { text: string }).text)}`;
    case 'answer.created': {
      const answer = d.answer as { text: string; attachments?: NamedImage[] };
      return html`answered: ${quote(answer.text)}${withPhotos(answer.attachments)}`;
    }
    case 'answer.attachments_added':
      return html`${photosAdded(d.attachments as NamedImage[], 'picture')} to an answer: ${imageNames(d.attachments as NamedImage[])}`;
    case 'attachment.updated': {
      const photo = d.attachment as NamedImage;
      const changes = d.changes as Record<string, Change<string | null>>;
      const parts = [
        changes.stage ? `stage ${label(changes.stage.from)} → ${label(changes.stage.to)}` : '',
        changes.caption ? (changes.caption.to ? `caption ${quote(changes.caption.to)}` : 'removed the caption') : '',
      ].filter(Boolean);
      return html`changed the photo ${imageNames([photo])}: ${parts.join('; ')}`;
    }
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

/** "gave the item to Sparks Ltd", "took the item from Sparks Ltd" (docs/design.md §20). */
function companyChange(change: Change<{ name: string } | null>): SafeHtml {
  if (change.to) return html`gave the item to ${change.to.name}${change.from ? html` (it was ${change.from.name})` : ''}`;
  return change.from ? html`took the item from ${change.from.name}` : html``;
}

interface Place {
  plan_id: number;
  plan_name: string;
}

/** "placed the item on Floor 3", "moved its pin on Floor 3", "removed it from Floor 3" (docs/design.md §19). */
function placeChange(change: Change<Place | null>): SafeHtml {
  const plan = (p: Place) => html`<a href="/plans/${p.plan_id}">${p.plan_name}</a>`;
  if (!change.to) return change.from ? html`removed the item from ${plan(change.from)}` : html``;
  if (change.from?.plan_id === change.to.plan_id) return html`moved its pin on ${plan(change.to)}`;
  return html`placed the item on ${plan(change.to)}`;
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
    case 'disputed':
      return html`disputed the item: ${quote(h.note)}`;
    case 'dispute_resolved':
      return html`resolved the dispute: ${quote(h.note)}`;
    case 'company_changed':
      return h.note ? html`gave the item to ${h.note}` : html`took the item from its company`;
    case 'location_changed':
      return h.note ? html`placed the item on ${h.note}` : html`removed the item from its plan`;
    default:
      return html`changed the status: ${statusChange(h.from, h.to)}`;
  }
}

/** How many entries the timeline shows at once (the newest first screenful; "Show earlier" pages back). */
export const TIMELINE_PER_PAGE = 30;

/**
 * The item's timeline (docs/design.md §14): every kind of change, who made it and when, oldest first; one screenful
 * of TIMELINE_PER_PAGE entries (`paging.page`, 1 the newest), with links to the one before and back to the newest.
 */
export function timeline(m: TimelineModel, zone: string | null = null, paging: { page: number; address: string } | null = null): SafeHtml {
  const firstEvent = m.events[0]?.at ?? null;
  const entries: Entry[] = [
    ...m.history
      .filter((h) => firstEvent === null || h.at < firstEvent)
      .map((h) => ({ at: h.at, who: h.user?.name ?? null, what: () => fromHistory(h) })),
    ...m.events.map((e) => ({ at: e.at, who: e.actor?.name ?? null, what: () => describe(e, m.names) })),
  ];
  const page = paging ? Math.max(1, Math.min(paging.page, Math.ceil(entries.length / TIMELINE_PER_PAGE))) : 1;
  const end = paging ? entries.length - (page - 1) * TIMELINE_PER_PAGE : entries.length;
  const start = paging ? Math.max(0, end - TIMELINE_PER_PAGE) : 0;
  const shown = entries.slice(start, end);
  return html`<section class="card" aria-labelledby="timeline-title" id="timeline">
<h2 id="timeline-title">Timeline</h2>
${
  entries.length
    ? // Folded, as the item page opens on its work controls (docs/design.md §16); open when a screenful was asked for.
      html`<details class="fold" ${page > 1 ? html`open` : ''}><summary>Show the timeline (${entries.length})</summary>
${paging && start > 0 ? html`<p class="pager"><a href="${paging.address}?timeline=${page + 1}#timeline" data-testid="timeline-earlier">Show earlier entries</a> <span class="muted">(${start} more)</span></p>` : ''}
<ol class="timeline">${shown.map(
        (e) =>
          html`<li data-testid="timeline-entry"><span class="when muted">${time(e.at, '—', zone)}</span> · <strong>${e.who ?? 'system'}</strong> ${e.what()}</li>`,
      )}</ol>
${paging && page > 1 ? html`<p class="pager"><a href="${paging.address}#timeline" data-testid="timeline-latest">Show the latest entries</a></p>` : ''}</details>`
    : html`<p class="muted">Nothing has happened to this item yet.</p>`
}
</section>`;
}
