import { isCalendarDate } from './values.js';

/**
 * Time zones (docs/design.md §14): IANA names such as `Europe/Berlin`, as the runtime's Intl knows them. A name is
 * kept in the spelling Intl resolves it to (`europe/berlin` → `Europe/Berlin`, `Etc/UTC` → `UTC`); an alias a
 * browser reports and the list lacks (`Asia/Calcutta`) is accepted too and offered beside the list.
 */
let listed: readonly string[] | undefined;

/** The zones offered in the Profile: UTC first, then every zone Intl supports, alphabetically. */
export function timeZoneChoices(): readonly string[] {
  listed ??= ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')];
  return listed;
}

let byLowerCase: Map<string, string> | undefined;

/** The canonical name of a time zone, or null when `value` is not one (bounded: at most 64 characters). */
export function canonicalTimeZone(value: string | null | undefined): string | null {
  const name = value?.trim() ?? '';
  if (!name || name.length > 64 || !/^[A-Za-z0-9_+\-/]+$/.test(name)) return null;
  // A listed name keeps its spelling (Intl resolves some to older aliases: Asia/Kolkata → Asia/Calcutta).
  byLowerCase ??= new Map(timeZoneChoices().map((z) => [z.toLowerCase(), z]));
  const listedName = byLowerCase.get(name.toLowerCase());
  if (listedName) return listedName;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
    return resolved === 'Etc/UTC' || resolved === 'Etc/GMT' ? 'UTC' : resolved;
  } catch {
    return null;
  }
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** `iso` written as "YYYY-MM-DD HH:MM[:SS] <offset>" in `zone`; UTC (written "UTC") without one or with an unknown one. */
export function zonedTime(iso: string, zone: string | null, seconds = false): string {
  const date = new Date(iso);
  const utc = () => `${iso.slice(0, seconds ? 19 : 16).replace('T', ' ')} UTC`;
  if (!zone || zone === 'UTC' || Number.isNaN(date.getTime())) return utc();
  const key = `${zone}${seconds ? ':s' : ''}`;
  let format = formats.get(key);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat('en-GB', {
        timeZone: zone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        ...(seconds ? { second: '2-digit' } : {}),
        hourCycle: 'h23',
        timeZoneName: 'shortOffset',
      });
    } catch {
      return utc();
    }
    formats.set(key, format);
  }
  const part = Object.fromEntries(format.formatToParts(date).map((p) => [p.type, p.value]));
  return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute}${seconds ? `:${part.second}` : ''} ${part.timeZoneName}`;
}

/** How far `zone`'s wall clock is ahead of UTC at `date`, in milliseconds. */
function offsetAt(date: Date, zone: string): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
      .formatToParts(date)
      .map((p) => [p.type, Number(p.value)]),
  );
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return wall - Math.floor(date.getTime() / 1000) * 1000;
}

/**
 * A wall-clock time `YYYY-MM-DDTHH:MM` (a `datetime-local` input) read in `zone` (UTC without one), as an ISO
 * instant; undefined when malformed. A time skipped by a clock change resolves to the instant after it.
 */
export function wallTimeToUtc(value: string, zone: string | null): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value)) return undefined;
  const asUtc = Date.parse(`${value}:00Z`);
  if (Number.isNaN(asUtc) || !isCalendarDate(value.slice(0, 10))) return undefined;
  if (!zone || zone === 'UTC' || canonicalTimeZone(zone) === null) return new Date(asUtc).toISOString();
  const first = asUtc - offsetAt(new Date(asUtc), zone);
  return new Date(asUtc - offsetAt(new Date(first), zone)).toISOString();
}
