import type { Transaction } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { Actor } from '../../domain/policy.js';
import type { RecordAudit } from '../audit/audit.service.js';
import type { ConsumedEvent } from '../events/outbox-consumer.js';
import { handleEvents } from './handle-events.js';
import type { NotificationsDeps } from './notification-delivery.js';
import { canSeeNotification, failingAddress, listNotifications, markAllRead, openNotification } from './notification-inbox.js';
import { preferences, setPreferences } from './notification-preferences.js';
import { type DirectNotification, notifyDirect } from './notify-direct.js';
import type { NotificationRow } from './notifications.repository.js';
import { runScheduled } from './run-scheduled.js';

export type { NotificationsDeps } from './notification-delivery.js';

/**
 * Notifications (docs/design.md §15): made from the events by the outbox consumer (`handleEvents`), by the
 * scheduled pass (deadlines, token expiry, digests) and by a direct call where no event exists (an OAuth
 * client connected, a webhook disabled); read and marked in the web and the CLI. Each use case is a function
 * of its own file, given `deps`.
 */
export function createNotificationsService(deps: NotificationsDeps) {
  return {
    handleEvents: (events: readonly ConsumedEvent[]): Promise<(trx: Transaction<Database>) => Promise<void>> => handleEvents(deps, events),
    notifyDirect: (input: DirectNotification) => notifyDirect(deps, input),
    runScheduled: () => runScheduled(deps),
    list: (userId: number, limit?: number): Promise<NotificationRow[]> => listNotifications(deps, userId, limit),
    unreadCount: (userId: number) => deps.repo.unreadCount(userId),
    open: (userId: number, id: number) => openNotification(deps, userId, id),
    markAllRead: (userId: number, recordAudit?: RecordAudit) => markAllRead(deps, userId, recordAudit),
    preferences: (userId: number) => preferences(deps, userId),
    setPreferences: (userId: number, modes: Record<string, string>, recordAudit?: RecordAudit) =>
      setPreferences(deps, userId, modes, recordAudit),
    failingAddress: (user: { id: number; email: string }) => failingAddress(deps, user),
    canSee: (user: Actor, n: Pick<NotificationRow, 'item_id'>) => canSeeNotification(deps, user, n),
  };
}

export type NotificationsService = ReturnType<typeof createNotificationsService>;
