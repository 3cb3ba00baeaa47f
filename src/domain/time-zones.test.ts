import { describe, expect, it } from 'vitest';
import { canonicalTimeZone, timeZoneChoices, wallTimeToUtc, zonedTime } from './time-zones.js';

describe('time zones', () => {
  it('offers UTC first, then the IANA zones', () => {
    const zones = timeZoneChoices();
    expect(zones[0]).toBe('UTC');
    expect(zones).toContain('Europe/Berlin');
    expect(new Set(zones).size).toBe(zones.length);
  });

  it('accepts zone names in their canonical spelling and refuses anything else', () => {
    expect(canonicalTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('Etc/UTC')).toBe('UTC');
    expect(canonicalTimeZone(' America/New_York ')).toBe('America/New_York');
    for (const bad of ['', null, undefined, 'Mars/Olympus', 'Europe/Berlin; drop table', 'x'.repeat(65), '../etc']) {
      expect(canonicalTimeZone(bad)).toBeNull();
    }
  });

  it('reads a wall-clock time in a zone as its UTC instant', () => {
    expect(wallTimeToUtc('2026-01-15T13:30', 'Europe/Berlin')).toBe('2026-01-15T12:30:00.000Z');
    expect(wallTimeToUtc('2026-07-15T14:30', 'Europe/Berlin')).toBe('2026-07-15T12:30:00.000Z');
    expect(wallTimeToUtc('2026-01-16T08:30', 'Asia/Tokyo')).toBe('2026-01-15T23:30:00.000Z');
    expect(wallTimeToUtc('2026-01-15T12:30', null)).toBe('2026-01-15T12:30:00.000Z');
    // 02:30 does not exist in Berlin on 29 March 2026 (clocks go from 02:00 to 03:00).
    expect(wallTimeToUtc('2026-03-29T02:30', 'Europe/Berlin')).toMatch(/^2026-03-29T0[01]:30:00.000Z$/);
    for (const bad of ['2026-02-30T10:00', '2026-01-15 12:30', '', 'yesterday'])
      expect(wallTimeToUtc(bad, 'Europe/Berlin')).toBeUndefined();
  });

  it('writes a time in the zone with its offset, and in UTC without one', () => {
    expect(zonedTime('2026-01-15T12:30:45.000Z', 'Europe/Berlin')).toBe('2026-01-15 13:30 GMT+1');
    expect(zonedTime('2026-07-15T12:30:45.000Z', 'Europe/Berlin')).toBe('2026-07-15 14:30 GMT+2');
    expect(zonedTime('2026-01-15T23:30:00.000Z', 'Asia/Tokyo')).toBe('2026-01-16 08:30 GMT+9');
    expect(zonedTime('2026-01-15T12:30:45.000Z', 'Asia/Tehran')).toBe('2026-01-15 16:00 GMT+3:30');
    expect(canonicalTimeZone('Asia/Kolkata')).toMatch(/^Asia\/(Kolkata|Calcutta)$/);
    expect(zonedTime('2026-01-15T12:30:45.000Z', null)).toBe('2026-01-15 12:30 UTC');
    expect(zonedTime('2026-01-15T12:30:45.000Z', 'Europe/Berlin', true)).toBe('2026-01-15 13:30:45 GMT+1');
    expect(zonedTime('2026-01-15T12:30:45.000Z', null, true)).toBe('2026-01-15 12:30:45 UTC');
    expect(zonedTime('2026-01-15T12:30:45.000Z', 'UTC')).toBe('2026-01-15 12:30 UTC');
    expect(zonedTime('2026-01-15T12:30:45.000Z', 'Nowhere/Nothing')).toBe('2026-01-15 12:30 UTC');
  });
});
