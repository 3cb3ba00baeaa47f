/**
 * Weeks as the dashboard counts them (docs/design.md §23): Monday to Sunday in UTC, named by their Monday
 * (YYYY-MM-DD). One definition, used by the dashboard's figures and by the project list's filters the figures
 * link to, so a figure and the list it opens always count the same items.
 */
const DAY_MS = 86_400_000;

/** The Monday (YYYY-MM-DD, UTC) of the week holding `iso` (a timestamp or a date). */
export function weekOf(iso: string): string {
  const day = new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso);
  const sinceMonday = (day.getUTCDay() + 6) % 7;
  return new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate()) - sinceMonday * DAY_MS).toISOString().slice(0, 10);
}

/** The `count` weeks ending with the one holding `today`, oldest first. */
export function lastWeeks(today: string, count: number): string[] {
  const current = Date.parse(`${weekOf(today)}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) => new Date(current - (count - 1 - i) * 7 * DAY_MS).toISOString().slice(0, 10));
}

/** A week's name as a query parameter: a Monday written YYYY-MM-DD; anything else is null. */
export function parseWeek(value: string | undefined): string | null {
  if (!value || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value) && weekOf(value) === value ? value : null;
}

/** Days between two timestamps, as a fraction. */
export const daysBetween = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / DAY_MS;

/** The median of `values` (null when there are none). */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
