import type { Insertable, Transaction } from 'kysely';
import type { Clock } from '../../shared/clock.js';
import type { Database, EscalationStepsTable } from '../../db/tables.js';
import { daysOverdue, escalationStep } from '../../domain/escalation.js';
import { type Actor, can } from '../../domain/policy.js';
import type { UserRole } from '../../domain/values.js';
import { notFound } from '../../shared/errors.js';
import { invalidField } from '../../i18n/reasons.js';
import { formatDay, formatMoment, type Language, message, storedLanguage } from '../../i18n/i18n.js';
import type { RecordAudit } from '../audit/audit.service.js';
import type { ConsumedEvent } from '../events/outbox-consumer.js';
import type { ItemsService } from '../items/items.service.js';
import { toMembership } from '../projects/projects.repository.js';
import {
  DELIVERY_MODES,
  type DeliveryMode,
  type EventFacts,
  eventText,
  excerpt,
  factsNeeded,
  isNotificationKind,
  NOTIFICATION_KINDS,
  type NotificationKind,
  quoted,
  recipientsOf,
} from './notification-kinds.js';
import type { NewNotification, NotificationRow, NotificationsRepository } from './notifications.repository.js';

const DAY_MS = 86_400_000;

/** The date (YYYY-MM-DD) and hour (0–23) at `at` in an IANA time zone; UTC when none or unknown. */
function localTime(at: Date, timeZone: string | null): { date: string; hour: number } {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-CA', {
      timeZone: timeZone ?? 'UTC',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      hourCycle: 'h23',
    }).formatToParts(at);
  } catch {
    return localTime(at, 'UTC');
  }
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '00';
  return { date: `${part('year')}-${part('month')}-${part('day')}`, hour: Number(part('hour')) % 24 };
}

const unique = <T>(values: Iterable<T>): T[] => [...new Set(values)];

/** Rows of (key, user_id) as lists of user ids by key. */
function groupIds<R extends { user_id: number }>(rows: readonly R[], keyOf: (row: R) => number): Map<number, number[]> {
  const byKey = new Map<number, number[]>();
  for (const row of rows) {
    const list = byKey.get(keyOf(row));
    if (list) list.push(row.user_id);
    else byKey.set(keyOf(row), [row.user_id]);
  }
  return byKey;
}

const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** The hour of the daily digest, in each user's time zone. */
const DIGEST_HOUR = 7;

/** A membership read with other facts: a null role when the person is known not to be a member of the project. */
interface MembershipFact {
  user_id: number;
  project_id: number;
  role: string | null;
  section_ids: string | null;
  checklist_ids: string | null;
  /** docs/design.md §20: limited to the items of their company (`company_id`). */
  company_items_only?: number | null;
  company_id?: number | null;
}

interface Recipient {
  id: number;
  role: UserRole;
  active: number;
}

/** What the access policy needs to know of an item, and its text. */
type ItemFact = Awaited<ReturnType<NotificationsRepository['itemFacts']>>[number];

/**
 * Notifications (docs/design.md §15): made from the events by the outbox consumer (`handleEvents`), by the
 * scheduled pass (deadlines, token expiry, digests) and by a direct call where no event exists (an OAuth
 * client connected, a webhook disabled); read and marked in the web and the CLI.
 */
export function createNotificationsService(deps: {
  repo: NotificationsRepository;
  items: ItemsService;
  clock: Clock;
  /** False without SMTP_URL: every notification is for the web only. */
  emailEnabled: boolean;
  /** Called when emails were queued (the email sender's wake-up). */
  onQueued?: () => void;
}) {
  const { repo, items, clock, emailEnabled } = deps;

  async function canSeeItem(user: Actor, itemId: number): Promise<boolean> {
    return items.access(user, itemId).then(
      () => true,
      (err: unknown) => {
        if ((err as { status?: number }).status === 404) return false;
        throw err;
      },
    );
  }

  /** How each (user, kind) goes out, from the users' preferences (default: email). */
  async function deliveries(userIds: readonly number[]): Promise<(userId: number, kind: NotificationKind) => DeliveryMode> {
    const rows = await repo.modes(userIds);
    const chosen = new Map(rows.map((r) => [`${r.user_id} ${r.kind}`, r.mode as DeliveryMode]));
    return (userId, kind) => {
      const mode = chosen.get(`${userId} ${kind}`) ?? 'email';
      return emailEnabled ? mode : 'web';
    };
  }

  /**
   * Whether each user may read each item now: the access policy (`can`, the function the items service asks)
   * over facts read for the whole batch, instead of three queries per person and item. `known`: memberships
   * already read with the other facts (a null role: known not to be a member); the others are read here, only
   * for the users who need one; `knownItems`: items already read with the other facts (the others are read
   * here). Also gives each item's text (null for an item that is gone).
   */
  async function visibility(
    pairs: readonly { userId: number; itemId: number }[],
    known: readonly MembershipFact[] = [],
    knownItems: ReadonlyMap<number, ItemFact> = new Map(),
  ) {
    const items = new Map(knownItems);
    const missing = unique(pairs.map((p) => p.itemId)).filter((id) => !items.has(id));
    for (const item of await repo.itemFacts(missing)) items.set(item.id, item);
    const members = new Map(known.map((m) => [`${m.user_id} ${m.project_id}`, m]));
    const unknown = pairs.filter((p) => {
      const item = items.get(p.itemId);
      return item !== undefined && !members.has(`${p.userId} ${item.project_id}`);
    });
    if (unknown.length > 0) {
      const projectIds = new Set(unknown.map((p) => items.get(p.itemId)!.project_id));
      const read = await repo.membershipsOf(unique(unknown.map((p) => p.userId)));
      for (const m of read) if (projectIds.has(m.project_id)) members.set(`${m.user_id} ${m.project_id}`, m);
    }
    return {
      textOf: (itemId: number): string | null => items.get(itemId)?.text ?? null,
      sees(user: { id: number; role: UserRole }, itemId: number): boolean {
        const item = items.get(itemId);
        if (!item) return false;
        const member = members.get(`${user.id} ${item.project_id}`);
        return can({ id: user.id, role: user.role }, 'read', {
          projectId: item.project_id,
          archived: item.archived === 1,
          membership: member?.role
            ? toMembership({ ...member, role: member.role, company_items_only: member.company_items_only ?? 0 })
            : null,
          sectionId: item.section_id,
          checklistId: item.checklist_id,
          participantIds: [],
          responsibleCompanyId: item.responsible_company_id,
        });
      },
    };
  }

  async function insert(rows: NewNotification[], trx?: Transaction<Database>): Promise<void> {
    if (rows.length === 0) return;
    const queued = trx ? await repo.insert(trx, rows, emailEnabled) : await repo.transaction((t) => repo.insert(t, rows, emailEnabled));
    if (queued > 0) deps.onQueued?.();
  }

  /**
   * The escalation ladders (docs/design.md §21, kind `overdue_escalated`): each person's step due now, counted in
   * their time zone; a step already told is skipped, the others are recorded (`escalation_steps`, unique per item,
   * deadline, step and person) in the transaction that makes their notifications, so that two nodes or a restart
   * tell nobody twice. Returns the number made.
   */
  async function escalate(now: Date): Promise<number> {
    const candidates = await repo.escalationCandidates(addDays(now.toISOString().slice(0, 10), 1));
    if (candidates.length === 0) return 0;
    const told = await repo.escalationStepsOf(unique(candidates.map((c) => c.item_id)));
    const due = new Map<string, { row: NewNotification; role: UserRole; step: Insertable<EscalationStepsTable> }>();
    // Today in each time zone, worked out once per zone (a formatter per person would cost more than the rest).
    const todayIn = new Map<string | null, string>();
    for (const c of candidates) {
      let today = todayIn.get(c.time_zone);
      if (today === undefined) todayIn.set(c.time_zone, (today = localTime(now, c.time_zone).date));
      const days = daysOverdue(c.deadline!, today);
      const step = escalationStep({ everyDays: c.every_days, managersAfterDays: c.managers_after_days }, days);
      if (!step || (c.manager && !step.managers)) continue;
      const id = `${c.item_id} ${c.deadline} ${step.step} ${c.user_id}`;
      // A participant who also manages the project is told once, as a participant.
      if (told.has(id) || (due.has(id) && c.manager)) continue;
      const language = storedLanguage(c.language, c.browser_language);
      const values = { item: excerpt(c.text, 120), days, deadline: c.deadline! };
      due.set(id, {
        role: c.role as UserRole,
        step: {
          item_id: c.item_id,
          deadline: c.deadline!,
          step: step.step,
          user_id: c.user_id,
          project_id: c.project_id,
          at: now.toISOString(),
        },
        row: {
          user_id: c.user_id,
          kind: 'overdue_escalated',
          key: `overdue_escalated:${c.item_id}:${c.deadline}:${step.step}`,
          event_id: null,
          project_id: c.project_id,
          item_id: c.item_id,
          token_id: null,
          text: message(language, c.manager ? 'vocab.escalation.textManager' : 'vocab.escalation.text', values),
          subject: `“${excerpt(c.text, 100)}”`,
          delivery: 'web',
          at: now.toISOString(),
        },
      });
    }
    if (due.size === 0) return 0;
    const { sees } = await visibility([...due.values()].map((d) => ({ userId: d.row.user_id, itemId: d.row.item_id! })));
    const visible = [...due.values()].filter((d) => sees({ id: d.row.user_id, role: d.role }, d.row.item_id!));
    const modeOf = await deliveries(unique(visible.map((d) => d.row.user_id)));
    return repo.transaction(async (trx) => {
      const claimed = await repo.claimEscalationSteps(
        trx,
        visible.map((d) => d.step),
      );
      const rows = visible
        .filter((d) => claimed.has(`${d.step.item_id} ${d.step.deadline} ${d.step.step} ${d.step.user_id}`))
        .map((d) => ({ ...d.row, delivery: modeOf(d.row.user_id, 'overdue_escalated') }));
      await insert(rows, trx);
      return rows.length;
    });
  }

  const service = {
    /**
     * The outbox consumer's batch: who is told of each event (the rules), checked against what they may see
     * now (the policy through the items service); returns the writes, run with the cursor's move.
     */
    async handleEvents(events: readonly ConsumedEvent[]): Promise<(trx: Transaction<Database>) => Promise<void>> {
      // The facts each event's rule reads; an event that can tell nobody (a status change to `in_progress`)
      // costs no read at all, and a fact is read only for the events whose rule asks for it.
      const candidates: { event: ConsumedEvent; needs: Set<keyof EventFacts> }[] = [];
      for (const event of events) {
        if (event.item_id === null) continue;
        const needs = factsNeeded(event);
        if (needs) candidates.push({ event, needs });
      }
      if (candidates.length === 0) return async () => {};
      const wanted = (fact: keyof EventFacts, pick: (e: ConsumedEvent) => number) =>
        unique(candidates.filter((c) => c.needs.has(fact)).map((c) => pick(c.event)));
      const answerIdOf = (e: ConsumedEvent) => Number((e.data as { answer_id?: unknown }).answer_id);
      const [participants, managers, authors] = await Promise.all([
        repo.participantsOf(wanted('participantIds', (e) => e.item_id!)),
        repo.managersOf(wanted('managerIds', (e) => e.project_id)),
        repo.answerAuthors(wanted('answerAuthorId', answerIdOf).filter(Number.isInteger)),
      ]);
      // The memberships, accounts and items read with the participants and the managers: those people and
      // items need no more reads.
      const known: MembershipFact[] = [...participants, ...managers];
      const accounts = new Map<number, Recipient>();
      for (const r of [...participants, ...managers])
        accounts.set(r.user_id, { id: r.user_id, role: r.user_role as UserRole, active: r.active });
      const knownItems = new Map<number, ItemFact>();
      for (const p of participants) {
        const { item_id: id, text, project_id, section_id, checklist_id, archived, responsible_company_id } = p;
        if (!knownItems.has(id)) knownItems.set(id, { id, text, project_id, section_id, checklist_id, archived, responsible_company_id });
      }
      const participantsOf = groupIds(participants, (p) => p.item_id);
      const managersOf = groupIds(managers, (m) => m.project_id);
      const authorOf = new Map(authors.map((a) => [a.id, a.author_id]));
      const told: { event: ConsumedEvent; userId: number; kind: NotificationKind }[] = [];
      for (const { event } of candidates) {
        const recipients = recipientsOf(event, {
          participantIds: participantsOf.get(event.item_id!) ?? [],
          managerIds: managersOf.get(event.project_id) ?? [],
          answerAuthorId: authorOf.get(answerIdOf(event)) ?? null,
        });
        for (const [userId, kind] of recipients) told.push({ event, userId, kind });
      }
      if (told.length === 0) return async () => {};
      const userIds = unique(told.map((t) => t.userId));
      // Each text is written in its recipient's language (docs/decisions.md, "Languages"): read with the accounts.
      const languages = new Map<number, Language>();
      const [, modeOf, visible] = await Promise.all([
        repo.users(userIds).then((rows) => {
          for (const u of rows) {
            languages.set(u.id, storedLanguage(u.language, u.browser_language));
            if (!accounts.has(u.id)) accounts.set(u.id, u as Recipient);
          }
        }),
        deliveries(userIds),
        visibility(
          told.map((t) => ({ userId: t.userId, itemId: t.event.item_id! })),
          known,
          knownItems,
        ),
      ]);
      const rows: NewNotification[] = [];
      for (const { event, userId, kind } of told) {
        const user = accounts.get(userId);
        if (!user || user.active !== 1 || !visible.sees(user, event.item_id!)) continue;
        // item.created carries the item (its text may have changed since): the event's own text first.
        const itemText = (event.data as { item?: { text?: string } }).item?.text ?? visible.textOf(event.item_id!) ?? `#${event.item_id}`;
        const language = languages.get(userId) ?? 'en';
        rows.push({
          user_id: userId,
          kind,
          key: `event:${event.id}`,
          event_id: event.id,
          project_id: event.project_id,
          item_id: event.item_id,
          token_id: null,
          text: eventText(kind, event, event.actor_name, itemText, language),
          subject: quoted(language, excerpt(itemText, 100)),
          delivery: modeOf(userId, kind),
          at: event.at,
        });
      }
      return async (trx) => insert(rows, trx);
    },

    /**
     * A notification without an event (an OAuth client connected, a webhook disabled): made at once, once per key,
     * its words written in the user's language.
     */
    async notifyDirect(input: {
      userId: number;
      kind: NotificationKind;
      key: string;
      words: (language: Language) => { text: string; subject: string };
      tokenId?: number | null;
    }) {
      const [modeOf, [user]] = await Promise.all([deliveries([input.userId]), repo.users([input.userId])]);
      const { text, subject } = input.words(storedLanguage(user?.language, user?.browser_language));
      await insert([
        {
          user_id: input.userId,
          kind: input.kind,
          key: input.key,
          event_id: null,
          project_id: null,
          item_id: null,
          token_id: input.tokenId ?? null,
          text,
          subject,
          delivery: modeOf(input.userId, input.kind),
          at: clock.now().toISOString(),
        },
      ]);
    },

    /**
     * The scheduled pass (every node, every minute): deadline reminders, token expiry notices, digests due.
     * Unique keys make it idempotent: two nodes running it at once tell nobody twice.
     */
    async runScheduled(): Promise<{ reminders: number; tokens: number; escalations: number; digests: number }> {
      const now = clock.now();
      const today = now.toISOString().slice(0, 10);
      // Deadlines: tomorrow and overdue in the participant's time zone; overdue ones looked at for a week.
      const candidates = await repo.deadlineCandidates(addDays(today, -8), addDays(today, 2));
      const reminders: { row: NewNotification; role: UserRole }[] = [];
      for (const c of candidates) {
        const local = localTime(now, c.time_zone).date;
        const kind: NotificationKind | null =
          c.deadline === addDays(local, 1) ? 'deadline_tomorrow' : c.deadline! < local ? 'deadline_overdue' : null;
        if (!kind) continue;
        const language = storedLanguage(c.language, c.browser_language);
        const item = quoted(language, excerpt(c.text, 120));
        const deadline = formatDay(language, c.deadline!);
        reminders.push({
          role: c.role as UserRole,
          row: {
            user_id: c.user_id,
            kind,
            key: `${kind}:${c.item_id}:${c.deadline}`,
            event_id: null,
            project_id: c.project_id,
            item_id: c.item_id,
            token_id: null,
            text: message(language, `notification.${kind}`, { item, deadline }),
            subject: quoted(language, excerpt(c.text, 100)),
            delivery: 'web',
            at: now.toISOString(),
          },
        });
      }
      const tokens = await repo.expiringTokens(now.toISOString(), new Date(now.getTime() + 7 * DAY_MS).toISOString());
      const notices: NewNotification[] = tokens.map((t) => {
        const oneDay = Date.parse(t.expires_at!) - now.getTime() <= DAY_MS;
        const language = storedLanguage(t.language, t.browser_language);
        const token = quoted(language, excerpt(t.name, 100));
        return {
          user_id: t.user_id,
          kind: 'token_expiring',
          key: `token_${oneDay ? '1d' : '7d'}:${t.id}`,
          event_id: null,
          project_id: null,
          item_id: null,
          token_id: t.id,
          text: message(language, 'notification.token_expiring', {
            token,
            soon: oneDay ? 'day' : 'week',
            at: formatMoment(language, t.expires_at!, t.time_zone),
          }),
          subject: message(language, 'notification.token_subject', { token }),
          delivery: 'web',
          at: now.toISOString(),
        };
      });
      const pending = [...reminders.map((r) => r.row), ...notices];
      const existing = await repo.existingKeys(pending.map((r) => ({ userId: r.user_id, key: r.key })));
      const fresh = pending.filter((r) => !existing.has(`${r.user_id} ${r.key}`));
      const roles = new Map(reminders.map((r) => [r.row, r.role]));
      const { sees } = await visibility(
        fresh.flatMap((r) => (r.item_id != null && roles.has(r) ? [{ userId: r.user_id, itemId: r.item_id }] : [])),
      );
      const visible = fresh.filter((r) => r.item_id == null || sees({ id: r.user_id, role: roles.get(r)! }, r.item_id));
      const modeOf = await deliveries([...new Set(visible.map((r) => r.user_id))]);
      await insert(visible.map((r) => ({ ...r, delivery: modeOf(r.user_id, r.kind as NotificationKind) })));
      const escalations = await escalate(now);
      let digests = 0;
      if (emailEnabled) {
        for (const user of await repo.digestWaiting()) {
          const local = localTime(now, user.time_zone);
          if (local.hour !== DIGEST_HOUR) continue;
          if (await repo.queueDigest(user.id, `digest:${user.id}:${local.date}`, now.toISOString())) digests++;
        }
        if (digests) deps.onQueued?.();
      }
      return {
        reminders: visible.filter((r) => r.item_id != null).length,
        tokens: visible.filter((r) => r.token_id != null).length,
        escalations,
        digests,
      };
    },

    async list(userId: number, limit = 200): Promise<NotificationRow[]> {
      return repo.listOf(userId, limit);
    },

    unreadCount: (userId: number) => repo.unreadCount(userId),

    /** Marks the user's notification read and returns where it leads (404 when it is not theirs). */
    async open(userId: number, id: number): Promise<NotificationRow> {
      const row = await repo.find(id);
      if (!row || row.user_id !== userId) throw notFound('The notification');
      await repo.markRead(userId, id, clock.now().toISOString());
      return row;
    },

    async markAllRead(userId: number, recordAudit?: RecordAudit): Promise<void> {
      await repo.transaction(async (trx) => {
        await repo.markRead(userId, null, clock.now().toISOString(), trx);
        await recordAudit?.(trx);
      });
    },

    /** The user's mode per kind (every kind listed; `email` where nothing was chosen). */
    async preferences(userId: number): Promise<Record<NotificationKind, DeliveryMode>> {
      const chosen = new Map((await repo.preferences(userId)).map((r) => [r.kind, r.mode as DeliveryMode]));
      return Object.fromEntries(NOTIFICATION_KINDS.map((k) => [k, chosen.get(k) ?? 'email'])) as Record<NotificationKind, DeliveryMode>;
    },

    /** Sets the mode of every kind given; an unknown kind or mode changes nothing (422). */
    async setPreferences(userId: number, modes: Record<string, string>, recordAudit?: RecordAudit): Promise<void> {
      const current = await service.preferences(userId);
      for (const [kind, mode] of Object.entries(modes)) {
        if (!isNotificationKind(kind)) throw invalidField('kind', 'reason.notificationKind', { kind });
        if (!(DELIVERY_MODES as readonly string[]).includes(mode))
          throw invalidField(kind, 'reason.mustBeOneOf', { values: DELIVERY_MODES.join(', ') });
        current[kind] = mode as DeliveryMode;
      }
      const chosen = Object.entries(current).map(([kind, mode]) => ({ kind, mode }));
      await repo.transaction(async (trx) => {
        await repo.setPreferences(userId, chosen, trx);
        await recordAudit?.(trx);
      });
    },

    /** Whether the user's current address failed at its last email (refused for good, or given up after 24 h). */
    async failingAddress(user: { id: number; email: string }): Promise<{ error: string; at: string } | null> {
      const last = await repo.lastFinishedEmail(user.id);
      if (!last || last.state === 'sent' || last.to_address !== user.email) return null;
      return { error: last.last_error ?? 'the mail server refused it', at: last.finished_at ?? '' };
    },

    /** Whether the recipient may see what a notification is about now (the email sender asks before sending). */
    async canSee(user: Actor, n: Pick<NotificationRow, 'item_id'>): Promise<boolean> {
      return n.item_id === null ? true : canSeeItem(user, n.item_id);
    },
  };
  return service;
}

export type NotificationsService = ReturnType<typeof createNotificationsService>;
