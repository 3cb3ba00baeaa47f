import type { UserRole } from '../../domain/values.js';
import { formatDay, formatMoment, message, storedLanguage } from '../../i18n/i18n.js';
import { escalate } from './escalate.js';
import { addDays, DAY_MS, localTime } from './local-time.js';
import { excerpt, type NotificationKind, quoted } from './notification-kinds.js';
import { deliveries, insertNotifications, type NotificationsDeps, visibility } from './notification-delivery.js';
import type { NewNotification } from './notifications.repository.js';

/** The hour of the daily digest, in each user's time zone. */
const DIGEST_HOUR = 7;

/**
 * The scheduled pass (every node, every minute): deadline reminders, token expiry notices, digests due.
 * Unique keys make it idempotent: two nodes running it at once tell nobody twice.
 */
export async function runScheduled(
  deps: NotificationsDeps,
): Promise<{ reminders: number; tokens: number; escalations: number; digests: number }> {
  const { repo } = deps;
  const now = deps.clock.now();
  const reminders = await deadlineReminders(deps, now);
  const notices = await tokenNotices(deps, now);
  const pending = [...reminders.map((r) => r.row), ...notices];
  const existing = await repo.existingKeys(pending.map((r) => ({ userId: r.user_id, key: r.key })));
  const fresh = pending.filter((r) => !existing.has(`${r.user_id} ${r.key}`));
  const roles = new Map(reminders.map((r) => [r.row, r.role]));
  const { sees } = await visibility(
    deps,
    fresh.flatMap((r) => (r.item_id != null && roles.has(r) ? [{ userId: r.user_id, itemId: r.item_id }] : [])),
  );
  const visible = fresh.filter((r) => r.item_id == null || sees({ id: r.user_id, role: roles.get(r)! }, r.item_id));
  const modeOf = await deliveries(deps, [...new Set(visible.map((r) => r.user_id))]);
  await insertNotifications(
    deps,
    visible.map((r) => ({ ...r, delivery: modeOf(r.user_id, r.kind as NotificationKind) })),
  );
  const escalations = await escalate(deps, now);
  const digests = deps.emailEnabled ? await queueDigests(deps, now) : 0;
  return {
    reminders: visible.filter((r) => r.item_id != null).length,
    tokens: visible.filter((r) => r.token_id != null).length,
    escalations,
    digests,
  };
}

/** Deadlines: tomorrow and overdue in the participant's time zone; overdue ones looked at for a week. */
async function deadlineReminders({ repo }: NotificationsDeps, now: Date): Promise<{ row: NewNotification; role: UserRole }[]> {
  const today = now.toISOString().slice(0, 10);
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
  return reminders;
}

/** Notices of API tokens expiring within a week, and again within a day. */
async function tokenNotices({ repo }: NotificationsDeps, now: Date): Promise<NewNotification[]> {
  const tokens = await repo.expiringTokens(now.toISOString(), new Date(now.getTime() + 7 * DAY_MS).toISOString());
  return tokens.map((t) => {
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
}

/** Queues the digest of each user whose digest hour it is now; returns how many were queued. */
async function queueDigests(deps: NotificationsDeps, now: Date): Promise<number> {
  let digests = 0;
  for (const user of await deps.repo.digestWaiting()) {
    const local = localTime(now, user.time_zone);
    if (local.hour !== DIGEST_HOUR) continue;
    if (await deps.repo.queueDigest(user.id, `digest:${user.id}:${local.date}`, now.toISOString())) digests++;
  }
  if (digests) deps.onQueued?.();
  return digests;
}
