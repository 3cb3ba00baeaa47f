import type { EventView } from '../../features/events/events.service.js';
import { html, type SafeHtml } from '../html.js';
import { badge, time } from '../layout.js';
import type { Translate } from '../../i18n/i18n.js';
import { priorityLabel } from './project-page.js';
import { stageName } from './photos.js';

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

function statusChange(from: unknown, to: unknown, t: Translate): SafeHtml {
  return html`${from ? html`${badge(String(from), '—', t)} → ` : ''}${badge(String(to), '—', t)}`;
}

function participantsChange(change: { from: number[]; to: number[] }, users: Map<number, string>, t: Translate): SafeHtml {
  const name = (id: number) => users.get(id) ?? t('timeline.user', { id });
  const added = change.to.filter((id) => !change.from.includes(id)).map(name);
  const removed = change.from.filter((id) => !change.to.includes(id)).map(name);
  return html`${added.length ? t('timeline.participantsAdded', { names: added.join(', ') }) : ''}${added.length && removed.length ? '; ' : ''}${
    removed.length ? t('timeline.participantsRemoved', { names: removed.join(', ') }) : ''
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
const withPhotos = (list: NamedImage[] | undefined, t: Translate) =>
  list?.length ? html` ${t('timeline.withPhotos', { count: list.length })}: ${imageNames(list)}` : '';

/**
 * "added 2 photos (defect): “Crack by the door”", or "marked up a photo (defect)" (docs/design.md §22): the stage when
 * they share one, the captions quoted.
 */
function photosAdded(list: NamedImage[], noun: 'photo' | 'picture', t: Translate): SafeHtml {
  const stages = [...new Set(list.map((a) => a.stage ?? null))];
  const stage = stages.length === 1 && stages[0] ? ` (${stageName(stages[0], t)!.toLowerCase()})` : '';
  const captions = list.map((a) => a.caption).filter(Boolean);
  const what =
    list.length === 1 && list[0]!.annotates
      ? html`${t(noun === 'photo' ? 'timeline.markedUpPhoto' : 'timeline.markedUpPicture')}${stage}`
      : html`${t(noun === 'photo' ? 'timeline.addedPhotos' : 'timeline.addedPictures', { count: list.length })}${stage}`;
  return html`${what}${captions.length ? `: ${captions.map(quote).join(', ')}` : ''}`;
}

/** What one event says, in words. */
function describe(e: EventView, names: TimelineModel['names'], t: Translate): SafeHtml {
  const d = e.data as Record<string, unknown>;
  const yesNo = (value: unknown) => (value ? t('item.yes') : t('item.no'));
  const stage = (value: string | null) => label(stageName(value, t)?.toLowerCase());
  switch (e.type) {
    case 'item.created': {
      const item = d.item as { participants?: { name: string }[]; attachments?: unknown[] };
      const extra = [
        item.participants?.length ? t('timeline.for', { names: item.participants.map((p) => p.name).join(', ') }) : '',
        item.attachments?.length ? t('timeline.withPhotos', { count: item.attachments.length }) : '',
      ].filter(Boolean);
      return html`${t('timeline.raised')}${extra.length ? ` ${extra.join(', ')}` : ''}`;
    }
    case 'item.status_changed':
      return html`${t('timeline.status')} ${statusChange(d.from, d.to, t)}`;
    case 'item.planning_changed': {
      const from = d.from as Record<string, unknown>;
      const to = d.to as Record<string, unknown>;
      const parts = (['deadline', 'priority', 'requires_answer'] as const)
        .filter((k) => from[k] !== to[k])
        .map((k) => {
          if (k === 'requires_answer') return `${t('project.answerRequired')} ${yesNo(from[k])} → ${yesNo(to[k])}`;
          const value = (v: unknown) => (k === 'priority' && typeof v === 'string' ? priorityLabel(t, v) : label(v));
          return `${t(k === 'deadline' ? 'timeline.deadline' : 'timeline.priority')} ${value(from[k])} → ${value(to[k])}`;
        });
      return html`${t('timeline.planning')} ${parts.join('; ')}`;
    }
    case 'item.updated': {
      const changes = d.changes as Record<string, Change>;
      const parts: SafeHtml[] = [];
      if (changes.text) parts.push(html`${t('timeline.text', { from: quote(changes.text.from), to: quote(changes.text.to) })}`);
      if (changes.description) parts.push(html`${t('timeline.description')}`);
      if (changes.participants) parts.push(participantsChange(changes.participants as { from: number[]; to: number[] }, names.users, t));
      if (changes.checklist) {
        const name = (id: unknown) => names.checklists.get(Number(id)) ?? t('timeline.checklist', { id: String(id) });
        parts.push(html`${t('timeline.moved', { from: name(changes.checklist.from), to: name(changes.checklist.to) })}`);
      }
      if (changes.position)
        parts.push(html`${Number(changes.position.to) < Number(changes.position.from) ? t('timeline.movedUp') : t('timeline.movedDown')}`);
      if (changes.location) parts.push(placeChange(changes.location as Change<Place | null>, t));
      // docs/design.md §21: the category and the custom field values, by name.
      const shown = (value: unknown) => (value === null || value === undefined ? '—' : String(value));
      if (changes.category) parts.push(html`${t('timeline.category')} ${shown(changes.category.from)} → ${shown(changes.category.to)}`);
      for (const [field, change] of Object.entries((changes.fields ?? {}) as unknown as Record<string, Change>)) {
        parts.push(html`${t('timeline.field', { field })} ${shown(change.from)} → ${shown(change.to)}`);
      }
      if (changes.responsible_company) parts.push(companyChange(changes.responsible_company as Change<{ name: string } | null>, t));
      return html`${parts.map((p, i) => html`${i ? '; ' : ''}${p}`)}`;
    }
    case 'item.disputed':
      return html`${t('timeline.disputed')} ${quote(d.reason)}`;
    case 'item.dispute_resolved':
      return html`${t('timeline.resolved')} ${quote(d.note)}`;
    case 'item.links_replaced':
      return html`${t('timeline.links', { count: (d.document_links as unknown[]).length })}`;
    case 'item.attachments_added':
      return photosAdded(d.attachments as NamedImage[], 'photo', t);
    case 'comment.created':
      return html`${t('timeline.commented')} ${quote((d.comment as { text: string }).text)}`;
    case 'answer.created': {
      const answer = d.answer as { text: string; attachments?: NamedImage[] };
      return html`${t('timeline.answered')} ${quote(answer.text)}${withPhotos(answer.attachments, t)}`;
    }
    case 'answer.attachments_added':
      return html`${photosAdded(d.attachments as NamedImage[], 'picture', t)} ${t('timeline.toAnswer')} ${imageNames(d.attachments as NamedImage[])}`;
    case 'attachment.updated': {
      const photo = d.attachment as NamedImage;
      const changes = d.changes as Record<string, Change<string | null>>;
      const parts = [
        changes.stage ? `${t('timeline.stage')} ${stage(changes.stage.from)} → ${stage(changes.stage.to)}` : '',
        changes.caption
          ? changes.caption.to
            ? `${t('timeline.caption')} ${quote(changes.caption.to)}`
            : t('timeline.captionRemoved')
          : '',
      ].filter(Boolean);
      return html`${t('timeline.photoChanged')} ${imageNames([photo])}: ${parts.join('; ')}`;
    }
    case 'answer.reviewed':
      return html`${d.to === 'approved' ? t('timeline.answerApproved') : d.to === 'rejected' ? t('timeline.answerRejected') : t('timeline.answerReviewed')}`;
    case 'item.verdict_set':
      return d.to === null ? html`${t('timeline.verdictCleared')}` : html`${t('timeline.verdict')} ${badge(String(d.to), '—', t)}`;
    case 'item.returned_to_rework':
      return html`${t('timeline.rework')}${d.from !== d.to ? html` (${t('timeline.itWas')} ${badge(String(d.from), '—', t)})` : ''}: ${quote(d.reason)}, ${t('item.due', { date: label(d.rework_deadline) })}`;
    default:
      return html`${label(e.type)}`;
  }
}

/** "gave the item to Sparks Ltd", "took the item from Sparks Ltd" (docs/design.md §20). */
function companyChange(change: Change<{ name: string } | null>, t: Translate): SafeHtml {
  if (change.to)
    return html`${t('timeline.gaveTo', { company: change.to.name })}${change.from ? html` (${t('timeline.itWas')} ${change.from.name})` : ''}`;
  return change.from ? html`${t('timeline.tookFrom', { company: change.from.name })}` : html``;
}

interface Place {
  plan_id: number;
  plan_name: string;
}

/** "placed the item on Floor 3", "moved its pin on Floor 3", "removed it from Floor 3" (docs/design.md §19). */
function placeChange(change: Change<Place | null>, t: Translate): SafeHtml {
  const plan = (p: Place) => html`<a href="/plans/${p.plan_id}">${p.plan_name}</a>`;
  if (!change.to) return change.from ? html`${t('timeline.removedFrom')} ${plan(change.from)}` : html``;
  if (change.from?.plan_id === change.to.plan_id) return html`${t('timeline.pinMoved')} ${plan(change.to)}`;
  return html`${t('timeline.placedOn')} ${plan(change.to)}`;
}

/** A status-history entry older than the events still kept. */
function fromHistory(h: TimelineModel['history'][number], t: Translate): SafeHtml {
  switch (h.kind) {
    case 'created':
      return html`${t('timeline.raised')}`;
    case 'returned_to_rework':
      return html`${t('timeline.rework')}${h.from !== h.to ? html` (${t('timeline.itWas')} ${badge(h.from, '—', t)})` : ''}${h.note ? `: ${quote(h.note)}` : ''}`;
    case 'verdict_set':
      return h.note === 'cleared' ? html`${t('timeline.verdictCleared')}` : html`${t('timeline.verdict')} ${badge(h.note, '—', t)}`;
    case 'disputed':
      return html`${t('timeline.disputed')} ${quote(h.note)}`;
    case 'dispute_resolved':
      return html`${t('timeline.resolved')} ${quote(h.note)}`;
    case 'company_changed':
      return h.note ? html`${t('timeline.gaveTo', { company: h.note })}` : html`${t('timeline.tookFromCompany')}`;
    case 'location_changed':
      return h.note ? html`${t('timeline.placedOn')} ${h.note}` : html`${t('timeline.removedFromPlan')}`;
    default:
      return html`${t('timeline.status')} ${statusChange(h.from, h.to, t)}`;
  }
}

/** How many entries the timeline shows at once (the newest first screenful; "Show earlier" pages back). */
export const TIMELINE_PER_PAGE = 30;

/**
 * The item's timeline (docs/design.md §14): every kind of change, who made it and when, oldest first; one screenful
 * of TIMELINE_PER_PAGE entries (`paging.page`, 1 the newest), with links to the one before and back to the newest.
 */
export function timeline(m: TimelineModel, zone: string | null, paging: { page: number; address: string } | null, t: Translate): SafeHtml {
  const firstEvent = m.events[0]?.at ?? null;
  const entries: Entry[] = [
    ...m.history
      .filter((h) => firstEvent === null || h.at < firstEvent)
      .map((h) => ({ at: h.at, who: h.user?.name ?? null, what: () => fromHistory(h, t) })),
    ...m.events.map((e) => ({ at: e.at, who: e.actor?.name ?? null, what: () => describe(e, m.names, t) })),
  ];
  const page = paging ? Math.max(1, Math.min(paging.page, Math.ceil(entries.length / TIMELINE_PER_PAGE))) : 1;
  const end = paging ? entries.length - (page - 1) * TIMELINE_PER_PAGE : entries.length;
  const start = paging ? Math.max(0, end - TIMELINE_PER_PAGE) : 0;
  const shown = entries.slice(start, end);
  return html`<section class="card" aria-labelledby="timeline-title" id="timeline">
<h2 id="timeline-title">${t('timeline.title')}</h2>
${
  entries.length
    ? // Folded, as the item page opens on its work controls (docs/design.md §16); open when a screenful was asked for.
      html`<details class="fold" ${page > 1 ? html`open` : ''}><summary>${t('timeline.show', { count: entries.length })}</summary>
${paging && start > 0 ? html`<p class="pager"><a href="${paging.address}?timeline=${page + 1}#timeline" data-testid="timeline-earlier">${t('timeline.earlier')}</a> <span class="muted">(${t('item.more', { count: start })})</span></p>` : ''}
<ol class="timeline">${shown.map(
        (e) =>
          html`<li data-testid="timeline-entry"><span class="when muted">${time(e.at, '—', zone)}</span> · <strong>${e.who ?? t('timeline.system')}</strong> ${e.what()}</li>`,
      )}</ol>
${paging && page > 1 ? html`<p class="pager"><a href="${paging.address}#timeline" data-testid="timeline-latest">${t('timeline.latest')}</a></p>` : ''}</details>`
    : html`<p class="muted">${t('timeline.nothing')}</p>`
}
</section>`;
}
