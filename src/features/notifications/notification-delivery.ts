import type { Transaction } from 'kysely';
import type { Clock } from '../../shared/clock.js';
import type { Database } from '../../db/tables.js';
import { type Actor, can } from '../../domain/policy.js';
import type { UserRole } from '../../domain/values.js';
import type { ItemsService } from '../items/items.service.js';
import { toMembership } from '../projects/projects.repository.js';
import type { DeliveryMode, NotificationKind } from './notification-kinds.js';
import type { NewNotification, NotificationsRepository } from './notifications.repository.js';

/** What every use case of notifications is given (features/notifications/notifications.service.ts wires it). */
export interface NotificationsDeps {
  repo: NotificationsRepository;
  items: ItemsService;
  clock: Clock;
  /** False without SMTP_URL: every notification is for the web only. */
  emailEnabled: boolean;
  /** Called when emails were queued (the email sender's wake-up). */
  onQueued?: () => void;
}

export const unique = <T>(values: Iterable<T>): T[] => [...new Set(values)];

/** A membership read with other facts: a null role when the person is known not to be a member of the project. */
export interface MembershipFact {
  user_id: number;
  project_id: number;
  role: string | null;
  section_ids: string | null;
  checklist_ids: string | null;
  /** docs/design.md §20: limited to the items of their company (`company_id`). */
  company_items_only?: number | null;
  company_id?: number | null;
}

/** What the access policy needs to know of an item, and its text. */
export type ItemFact = Awaited<ReturnType<NotificationsRepository['itemFacts']>>[number];

/** How each (user, kind) goes out, from the users' preferences (default: email). */
export async function deliveries(
  deps: NotificationsDeps,
  userIds: readonly number[],
): Promise<(userId: number, kind: NotificationKind) => DeliveryMode> {
  const rows = await deps.repo.modes(userIds);
  const chosen = new Map(rows.map((r) => [`${r.user_id} ${r.kind}`, r.mode as DeliveryMode]));
  return (userId, kind) => {
    const mode = chosen.get(`${userId} ${kind}`) ?? 'email';
    return deps.emailEnabled ? mode : 'web';
  };
}

/**
 * Whether each user may read each item now: the access policy (`can`, the function the items service asks)
 * over facts read for the whole batch, instead of three queries per person and item. `known`: memberships
 * already read with the other facts (a null role: known not to be a member); the others are read here, only
 * for the users who need one; `knownItems`: items already read with the other facts (the others are read
 * here). Also gives each item's text (null for an item that is gone).
 */
export async function visibility(
  { repo }: NotificationsDeps,
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

/** Inserts the notifications, in `trx` when given, and wakes the email sender when emails were queued. */
export async function insertNotifications(deps: NotificationsDeps, rows: NewNotification[], trx?: Transaction<Database>): Promise<void> {
  const { repo, emailEnabled } = deps;
  if (rows.length === 0) return;
  const queued = trx ? await repo.insert(trx, rows, emailEnabled) : await repo.transaction((t) => repo.insert(t, rows, emailEnabled));
  if (queued > 0) deps.onQueued?.();
}

/** Whether the user may read the item now, through the items service (a 404 there: no). */
export async function canSeeItem({ items }: NotificationsDeps, user: Actor, itemId: number): Promise<boolean> {
  return items.access(user, itemId).then(
    () => true,
    (err: unknown) => {
      if ((err as { status?: number }).status === 404) return false;
      throw err;
    },
  );
}
