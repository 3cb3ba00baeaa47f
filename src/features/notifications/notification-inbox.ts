import type { Actor } from '../../domain/policy.js';
import { notFound } from '../../shared/errors.js';
import type { RecordAudit } from '../audit/audit.service.js';
import { canSeeItem, type NotificationsDeps } from './notification-delivery.js';
import type { NotificationRow } from './notifications.repository.js';

// A person's notifications as the web and the CLI read and mark them.

export async function listNotifications({ repo }: NotificationsDeps, userId: number, limit = 200): Promise<NotificationRow[]> {
  return repo.listOf(userId, limit);
}

/** Marks the user's notification read and returns where it leads (404 when it is not theirs). */
export async function openNotification({ repo, clock }: NotificationsDeps, userId: number, id: number): Promise<NotificationRow> {
  const row = await repo.find(id);
  if (!row || row.user_id !== userId) throw notFound('The notification');
  await repo.markRead(userId, id, clock.now().toISOString());
  return row;
}

export async function markAllRead({ repo, clock }: NotificationsDeps, userId: number, recordAudit?: RecordAudit): Promise<void> {
  await repo.transaction(async (trx) => {
    await repo.markRead(userId, null, clock.now().toISOString(), trx);
    await recordAudit?.(trx);
  });
}

/** Whether the user's current address failed at its last email (refused for good, or given up after 24 h). */
export async function failingAddress(
  { repo }: NotificationsDeps,
  user: { id: number; email: string },
): Promise<{ error: string; at: string } | null> {
  const last = await repo.lastFinishedEmail(user.id);
  if (!last || last.state === 'sent' || last.to_address !== user.email) return null;
  return { error: last.last_error ?? 'the mail server refused it', at: last.finished_at ?? '' };
}

/** Whether the recipient may see what a notification is about now (the email sender asks before sending). */
export async function canSeeNotification(deps: NotificationsDeps, user: Actor, n: Pick<NotificationRow, 'item_id'>): Promise<boolean> {
  return n.item_id === null ? true : canSeeItem(deps, user, n.item_id);
}
