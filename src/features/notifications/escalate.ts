import type { Insertable } from 'kysely';
import type { EscalationStepsTable } from '../../db/tables.js';
import { daysOverdue, escalationStep } from '../../domain/escalation.js';
import type { UserRole } from '../../domain/values.js';
import { message, storedLanguage } from '../../i18n/i18n.js';
import { excerpt } from './notification-kinds.js';
import { deliveries, insertNotifications, type NotificationsDeps, unique, visibility } from './notification-delivery.js';
import type { NewNotification } from './notifications.repository.js';
import { addDays, localTime } from './local-time.js';

type Candidate = Awaited<ReturnType<NotificationsDeps['repo']['escalationCandidates']>>[number];

interface DueStep {
  row: NewNotification;
  role: UserRole;
  step: Insertable<EscalationStepsTable>;
}

/**
 * The escalation ladders (docs/design.md §21, kind `overdue_escalated`): each person's step due now, counted in
 * their time zone; a step already told is skipped, the others are recorded (`escalation_steps`, unique per item,
 * deadline, step and person) in the transaction that makes their notifications, so that two nodes or a restart
 * tell nobody twice. Returns the number made.
 */
export async function escalate(deps: NotificationsDeps, now: Date): Promise<number> {
  const { repo } = deps;
  const candidates = await repo.escalationCandidates(addDays(now.toISOString().slice(0, 10), 1));
  if (candidates.length === 0) return 0;
  const told = await repo.escalationStepsOf(unique(candidates.map((c) => c.item_id)));
  const due = dueSteps(candidates, told, now);
  if (due.length === 0) return 0;
  const { sees } = await visibility(
    deps,
    due.map((d) => ({ userId: d.row.user_id, itemId: d.row.item_id! })),
  );
  const visible = due.filter((d) => sees({ id: d.row.user_id, role: d.role }, d.row.item_id!));
  const modeOf = await deliveries(deps, unique(visible.map((d) => d.row.user_id)));
  return repo.transaction(async (trx) => {
    const claimed = await repo.claimEscalationSteps(
      trx,
      visible.map((d) => d.step),
    );
    const rows = visible
      .filter((d) => claimed.has(`${d.step.item_id} ${d.step.deadline} ${d.step.step} ${d.step.user_id}`))
      .map((d) => ({ ...d.row, delivery: modeOf(d.row.user_id, 'overdue_escalated') }));
    await insertNotifications(deps, rows, trx);
    return rows.length;
  });
}

/** The step each candidate is due now and was not told yet (`told`: `item deadline step user` keys). */
function dueSteps(candidates: readonly Candidate[], told: ReadonlySet<string>, now: Date): DueStep[] {
  const due = new Map<string, DueStep>();
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
    due.set(id, { role: c.role as UserRole, step: stepOf(c, step.step, now), row: escalationRow(c, step.step, days, now) });
  }
  return [...due.values()];
}

function stepOf(c: Candidate, step: number, now: Date): Insertable<EscalationStepsTable> {
  return { item_id: c.item_id, deadline: c.deadline!, step, user_id: c.user_id, project_id: c.project_id, at: now.toISOString() };
}

function escalationRow(c: Candidate, step: number, days: number, now: Date): NewNotification {
  const language = storedLanguage(c.language, c.browser_language);
  const values = { item: excerpt(c.text, 120), days, deadline: c.deadline! };
  return {
    user_id: c.user_id,
    kind: 'overdue_escalated',
    key: `overdue_escalated:${c.item_id}:${c.deadline}:${step}`,
    event_id: null,
    project_id: c.project_id,
    item_id: c.item_id,
    token_id: null,
    text: message(language, c.manager ? 'vocab.escalation.textManager' : 'vocab.escalation.text', values),
    subject: `“${excerpt(c.text, 100)}”`,
    delivery: 'web',
    at: now.toISOString(),
  };
}
