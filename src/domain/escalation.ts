import { invalidField } from '../i18n/reasons.js';

/**
 * The escalation ladder of a project (docs/design.md §21): while an item stays overdue and open, its participants
 * are reminded every `everyDays` days, and from day `managersAfterDays` of being overdue the project's managers
 * as well. Day 1 is the first day after the deadline, counted in the recipient's time zone (their midnight starts
 * it); the steps fall on the days N, 2N, 3N, … and on day M. Pure: no I/O.
 */
export interface EscalationLadder {
  everyDays: number;
  managersAfterDays: number;
}

/** The defaults of a ladder switched on (docs/design.md §21). */
export const DEFAULT_LADDER: EscalationLadder = { everyDays: 2, managersAfterDays: 7 };
export const MAX_EVERY_DAYS = 30;
export const MAX_MANAGERS_AFTER_DAYS = 365;

/** A whole number of days from a form or the CLI, within [1, max] (422 beside `key` otherwise). */
function wholeDays(key: string, value: string | number | undefined, max: number): number {
  const text = String(value ?? '').trim();
  if (!/^\d{1,4}$/.test(text)) throw invalidField(key, 'reason.days', { max });
  const days = Number(text);
  if (days < 1 || days > max) throw invalidField(key, 'reason.days', { max });
  return days;
}

/** A ladder as given (`every_days`, `managers_after_days`), checked. */
export function escalationLadder(input: { everyDays?: string | number; managersAfterDays?: string | number }): EscalationLadder {
  return {
    everyDays: wholeDays('every_days', input.everyDays, MAX_EVERY_DAYS),
    managersAfterDays: wholeDays('managers_after_days', input.managersAfterDays, MAX_MANAGERS_AFTER_DAYS),
  };
}

const DAY_MS = 86_400_000;

/** Days from `deadline` to `today` (both YYYY-MM-DD): 1 the day after the deadline, 0 or less when not overdue. */
export function daysOverdue(deadline: string, today: string): number {
  return Math.round((Date.parse(`${today}T00:00:00Z`) - Date.parse(`${deadline}T00:00:00Z`)) / DAY_MS);
}

/**
 * The step of the ladder due on day `days` of being overdue: the latest step day at or before it (a pass that
 * missed a day tells the latest step only, not every one missed), and whether the managers are told at it; null
 * before the first step.
 */
export function escalationStep(ladder: EscalationLadder, days: number): { step: number; managers: boolean } | null {
  const { everyDays, managersAfterDays } = ladder;
  const regular = Math.floor(days / everyDays) * everyDays;
  const step = days >= managersAfterDays ? Math.max(regular, managersAfterDays) : regular;
  return step >= 1 ? { step, managers: step >= managersAfterDays } : null;
}
