import type { EventType } from '../../domain/values.js';
import { formatDay, type Language, message, type MessageKey, type MessageValues } from '../../i18n/i18n.js';

/**
 * The kinds of notification (docs/design.md §15): stable names, documented in docs/notifications.md, used by the
 * preferences, the CLI and the emails. A new kind is added at the end; none is renamed.
 */
export const NOTIFICATION_KINDS = [
  'participant_added',
  'returned_to_rework',
  'verdict_set',
  'answer_reviewed',
  'comment_created',
  'answer_created',
  'item_done',
  'item_blocked',
  'deadline_tomorrow',
  'deadline_overdue',
  'token_expiring',
  'oauth_client_connected',
  'webhook_disabled',
  'overdue_escalated',
  'dispute_raised',
  'dispute_resolved',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** What the Profile's "Notifications" block calls each kind. */
export const KIND_LABELS: Record<NotificationKind, string> = {
  participant_added: 'You are added to an item',
  returned_to_rework: 'Your item is returned to rework',
  verdict_set: 'A verdict on your item',
  answer_reviewed: 'A review of your answer',
  comment_created: 'A comment on your item',
  answer_created: 'An answer on your item (or in a project you manage)',
  item_done: 'An item of a project you manage is done',
  item_blocked: 'An item of a project you manage is blocked',
  deadline_tomorrow: 'Your item is due tomorrow',
  deadline_overdue: 'Your item is overdue',
  token_expiring: 'Your API token expires soon',
  oauth_client_connected: 'An application was connected to your account',
  webhook_disabled: 'Your webhook was disabled after failing',
  overdue_escalated: 'An item stays overdue (the escalation ladder)',
  dispute_raised: 'An item of a project you manage is disputed',
  dispute_resolved: 'A dispute on your item is resolved',
};

export const DELIVERY_MODES = ['email', 'digest', 'web'] as const;
export type DeliveryMode = (typeof DELIVERY_MODES)[number];
export const MODE_LABELS: Record<DeliveryMode, string> = { email: 'Email', digest: 'Daily digest', web: 'Web only' };

export function isNotificationKind(value: string): value is NotificationKind {
  return (NOTIFICATION_KINDS as readonly string[]).includes(value);
}

/** The facts the rules need about an event's item, read when the event is processed. */
export interface EventFacts {
  participantIds: readonly number[];
  /** Users with the `manager` role in the item's project (global admins only where they are such a member). */
  managerIds: readonly number[];
  /** answer.reviewed: the reviewed answer's author. */
  answerAuthorId?: number | null;
}

interface OutboxEvent {
  id: number;
  type: EventType;
  item_id: number | null;
  actor_id: number | null;
  data: unknown;
}

const idsOf = (value: unknown): number[] =>
  Array.isArray(value)
    ? value.map((v) => (typeof v === 'number' ? v : Number((v as { id?: unknown } | null)?.id))).filter((id) => Number.isInteger(id))
    : [];

/** Adds `ids` to `told` as `kind`, but the actor and those told already. */
function tellOnce(told: Map<number, NotificationKind>, actorId: number | null, ids: Iterable<number>, kind: NotificationKind): void {
  for (const id of ids) if (id !== actorId && !told.has(id)) told.set(id, kind);
}

/**
 * Who is told of an event, and as what (docs/design.md §15): one kind per person whatever the number of reasons
 * (a participant who also manages the project is told once), never the actor. Visibility is checked by the
 * caller, per person, when the notification is made.
 */
export function recipientsOf(event: OutboxEvent, facts: EventFacts): Map<number, NotificationKind> {
  const told = new Map<number, NotificationKind>();
  const actor = event.actor_id;
  const data = (event.data ?? {}) as Record<string, any>;
  switch (event.type) {
    case 'item.created':
      tellOnce(told, actor, idsOf(data.item?.participants), 'participant_added');
      break;
    case 'item.updated': {
      const change = data.changes?.participants;
      if (change) {
        const before = new Set(idsOf(change.from));
        tellOnce(
          told,
          actor,
          idsOf(change.to).filter((id) => !before.has(id)),
          'participant_added',
        );
      }
      break;
    }
    case 'item.returned_to_rework':
      tellOnce(told, actor, facts.participantIds, 'returned_to_rework');
      break;
    case 'item.verdict_set':
      tellOnce(told, actor, facts.participantIds, 'verdict_set');
      break;
    case 'answer.reviewed':
      if (facts.answerAuthorId != null) tellOnce(told, actor, [facts.answerAuthorId], 'answer_reviewed');
      break;
    case 'comment.created':
      tellOnce(told, actor, facts.participantIds, 'comment_created');
      break;
    case 'answer.created':
      tellOnce(told, actor, [...facts.participantIds, ...facts.managerIds], 'answer_created');
      break;
    // docs/design.md §20: a dispute goes to those who resolve it; its resolution to the item's executors and the disputer.
    case 'item.disputed':
      tellOnce(told, actor, facts.managerIds, 'dispute_raised');
      break;
    case 'item.dispute_resolved':
      tellOnce(told, actor, [...idsOf([data.by]), ...facts.participantIds], 'dispute_resolved');
      break;
    case 'item.status_changed':
      if (data.to === 'done') tellOnce(told, actor, facts.managerIds, 'item_done');
      if (data.to === 'blocked') tellOnce(told, actor, facts.managerIds, 'item_blocked');
      break;
    default:
      break;
  }
  return told;
}

/** What the probe of factsNeeded() saw the rule read (one probe for all: the rules run synchronously). */
const probed = new Set<keyof EventFacts>();
const probe: EventFacts = {
  get participantIds() {
    probed.add('participantIds');
    return [];
  },
  get managerIds() {
    probed.add('managerIds');
    return [];
  },
  get answerAuthorId() {
    probed.add('answerAuthorId');
    return null;
  },
};

/**
 * The facts the rule of `event` reads, found by running the rule on a probe (the rules stay the one source): null
 * when it can tell nobody whatever the facts (a status change to `in_progress`), so that the worker reads nothing
 * for it. An empty set: the event itself names whom to tell (the participants of a created item).
 */
export function factsNeeded(event: OutboxEvent): Set<keyof EventFacts> | null {
  probed.clear();
  const told = recipientsOf(event, probe);
  return probed.size === 0 && told.size === 0 ? null : new Set(probed);
}

/** The event types some rule tells somebody about: the notification worker skips the others unread. */
export const TOLD_TYPES = [
  'item.created',
  'item.updated',
  'item.returned_to_rework',
  'item.verdict_set',
  'answer.reviewed',
  'comment.created',
  'answer.created',
  'item.status_changed',
  'item.disputed',
  'item.dispute_resolved',
] as const satisfies readonly EventType[];

const excerpt = (value: unknown, max = 200): string => {
  const text = String(value ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  // No longer in UTF-16 units than `max`: no longer in characters either (most texts; no array of characters made).
  if (text.length <= max) return text;
  const chars = [...text];
  return chars.length > max ? chars.slice(0, max - 1).join('') + '…' : text;
};

/** A name or text quoted as the language quotes (“…”, «…», „…“): user content, an argument, never a message. */
export function quoted(language: Language, text: string): string {
  return message(language, 'notification.quoted', { text });
}

/**
 * The line people read (web list, email, CLI) for a notification an event caused, in the recipient's language
 * (`actorName` null: "Somebody" in it); names, texts and reasons are arguments, never parsed as a message.
 */
export function eventText(
  kind: NotificationKind,
  event: OutboxEvent,
  actorName: string | null,
  itemText: string,
  language: Language,
): string {
  const data = (event.data ?? {}) as Record<string, any>;
  const t = (key: MessageKey, values: MessageValues = {}) =>
    message(language, key, {
      actor: actorName ?? message(language, 'notification.somebody'),
      item: quoted(language, excerpt(itemText, 120)),
      ...values,
    });
  switch (kind) {
    case 'participant_added':
      return t('notification.participant_added');
    case 'returned_to_rework': {
      const deadline = typeof data.rework_deadline === 'string' ? formatDay(language, data.rework_deadline) : '—';
      return t('notification.returned_to_rework', { reason: excerpt(data.reason), deadline });
    }
    case 'verdict_set':
      return data.to ? t('notification.verdict_set', { verdict: String(data.to) }) : t('notification.verdict_cleared');
    case 'answer_reviewed':
      return t('notification.answer_reviewed', { verdict: data.to === 'approved' ? 'approved' : 'rejected' });
    case 'comment_created':
      return t('notification.comment_created', { text: excerpt(data.comment?.text) });
    case 'answer_created':
      return t('notification.answer_created', { text: excerpt(data.answer?.text) });
    case 'item_done':
      return t('notification.item_done');
    case 'item_blocked':
      return t('notification.item_blocked');
    case 'dispute_raised':
      return t('notification.dispute_raised', { reason: excerpt(data.reason) });
    case 'dispute_resolved':
      return t('notification.dispute_resolved', { note: excerpt(data.note), reassigned: data.company ? 'yes' : 'no' });
    default:
      return t('notification.changed');
  }
}

export { excerpt };
