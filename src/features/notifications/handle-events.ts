import type { Transaction } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { UserRole } from '../../domain/values.js';
import { type Language, storedLanguage } from '../../i18n/i18n.js';
import type { ConsumedEvent } from '../events/outbox-consumer.js';
import { type EventFacts, eventText, excerpt, factsNeeded, type NotificationKind, quoted, recipientsOf } from './notification-kinds.js';
import {
  deliveries,
  insertNotifications,
  type ItemFact,
  type MembershipFact,
  type NotificationsDeps,
  unique,
  visibility,
} from './notification-delivery.js';
import type { NewNotification } from './notifications.repository.js';

interface Recipient {
  id: number;
  role: UserRole;
  active: number;
}

interface Candidate {
  event: ConsumedEvent;
  needs: Set<keyof EventFacts>;
}

interface Told {
  event: ConsumedEvent;
  userId: number;
  kind: NotificationKind;
}

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

const answerIdOf = (e: ConsumedEvent) => Number((e.data as { answer_id?: unknown }).answer_id);

/**
 * The outbox consumer's batch: who is told of each event (the rules), checked against what they may see
 * now (the policy through the items service); returns the writes, run with the cursor's move.
 */
export async function handleEvents(
  deps: NotificationsDeps,
  events: readonly ConsumedEvent[],
): Promise<(trx: Transaction<Database>) => Promise<void>> {
  // The facts each event's rule reads; an event that can tell nobody (a status change to `in_progress`)
  // costs no read at all, and a fact is read only for the events whose rule asks for it.
  const candidates: Candidate[] = [];
  for (const event of events) {
    if (event.item_id === null) continue;
    const needs = factsNeeded(event);
    if (needs) candidates.push({ event, needs });
  }
  if (candidates.length === 0) return async () => {};
  const facts = await readFacts(deps, candidates);
  const told = whoIsTold(candidates, facts);
  if (told.length === 0) return async () => {};
  const rows = await notificationsOf(deps, told, facts);
  return async (trx) => insertNotifications(deps, rows, trx);
}

/** The participants, managers and answer authors the candidates' rules ask for, with what was read alongside. */
async function readFacts({ repo }: NotificationsDeps, candidates: readonly Candidate[]) {
  const wanted = (fact: keyof EventFacts, pick: (e: ConsumedEvent) => number) =>
    unique(candidates.filter((c) => c.needs.has(fact)).map((c) => pick(c.event)));
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
  return {
    known,
    accounts,
    knownItems,
    participantsOf: groupIds(participants, (p) => p.item_id),
    managersOf: groupIds(managers, (m) => m.project_id),
    authorOf: new Map(authors.map((a) => [a.id, a.author_id])),
  };
}

type Facts = Awaited<ReturnType<typeof readFacts>>;

/** Each (event, person, kind) the rules tell, before the policy is asked. */
function whoIsTold(candidates: readonly Candidate[], facts: Facts): Told[] {
  const told: Told[] = [];
  for (const { event } of candidates) {
    const recipients = recipientsOf(event, {
      participantIds: facts.participantsOf.get(event.item_id!) ?? [],
      managerIds: facts.managersOf.get(event.project_id) ?? [],
      answerAuthorId: facts.authorOf.get(answerIdOf(event)) ?? null,
    });
    for (const [userId, kind] of recipients) told.push({ event, userId, kind });
  }
  return told;
}

/** The notifications of those told who are active and may see the item, each in its recipient's language. */
async function notificationsOf(
  deps: NotificationsDeps,
  told: readonly Told[],
  { known, accounts, knownItems }: Facts,
): Promise<NewNotification[]> {
  const userIds = unique(told.map((t) => t.userId));
  // Each text is written in its recipient's language (docs/decisions.md, "Languages"): read with the accounts.
  const languages = new Map<number, Language>();
  const [, modeOf, visible] = await Promise.all([
    deps.repo.users(userIds).then((rows) => {
      for (const u of rows) {
        languages.set(u.id, storedLanguage(u.language, u.browser_language));
        if (!accounts.has(u.id)) accounts.set(u.id, u as Recipient);
      }
    }),
    deliveries(deps, userIds),
    visibility(
      deps,
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
  return rows;
}
