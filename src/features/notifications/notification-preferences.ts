import { invalidField } from '../../i18n/reasons.js';
import type { RecordAudit } from '../audit/audit.service.js';
import { DELIVERY_MODES, type DeliveryMode, isNotificationKind, NOTIFICATION_KINDS, type NotificationKind } from './notification-kinds.js';
import type { NotificationsDeps } from './notification-delivery.js';

/** The user's mode per kind (every kind listed; `email` where nothing was chosen). */
export async function preferences({ repo }: NotificationsDeps, userId: number): Promise<Record<NotificationKind, DeliveryMode>> {
  const chosen = new Map((await repo.preferences(userId)).map((r) => [r.kind, r.mode as DeliveryMode]));
  return Object.fromEntries(NOTIFICATION_KINDS.map((k) => [k, chosen.get(k) ?? 'email'])) as Record<NotificationKind, DeliveryMode>;
}

/** Sets the mode of every kind given; an unknown kind or mode changes nothing (422). */
export async function setPreferences(
  deps: NotificationsDeps,
  userId: number,
  modes: Record<string, string>,
  recordAudit?: RecordAudit,
): Promise<void> {
  const current = await preferences(deps, userId);
  for (const [kind, mode] of Object.entries(modes)) {
    if (!isNotificationKind(kind)) throw invalidField('kind', 'reason.notificationKind', { kind });
    if (!(DELIVERY_MODES as readonly string[]).includes(mode))
      throw invalidField(kind, 'reason.mustBeOneOf', { values: DELIVERY_MODES.join(', ') });
    current[kind] = mode as DeliveryMode;
  }
  const chosen = Object.entries(current).map(([kind, mode]) => ({ kind, mode }));
  await deps.repo.transaction(async (trx) => {
    await deps.repo.setPreferences(userId, chosen, trx);
    await recordAudit?.(trx);
  });
}
