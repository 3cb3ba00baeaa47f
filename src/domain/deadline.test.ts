import { describe, expect, it } from 'vitest';
import { earliestToday, formDeadline, normalizeDeadline } from './inputs.js';

describe('the deadline rule', () => {
  const now = new Date('2030-05-10T08:00:00Z');

  it('takes a real date with spaces around it, and clears with empty or null', () => {
    expect(normalizeDeadline(' 2030-05-11 ')).toBe('2030-05-11');
    expect(normalizeDeadline('')).toBeNull();
    expect(normalizeDeadline(null)).toBeNull();
    expect(() => normalizeDeadline('2030-02-30')).toThrow(/real date/);
  });

  it('refuses from a form a date passed everywhere (UTC−12), keeps the one already set, and requires one where asked', () => {
    expect(earliestToday(now)).toBe('2030-05-09');
    expect(formDeadline('2030-05-09', { now })).toBe('2030-05-09');
    expect(() => formDeadline('2030-05-08', { now })).toThrow(/today or later \(2030-05-09 or after\)/);
    expect(formDeadline('2020-01-01', { now, kept: '2020-01-01' })).toBe('2020-01-01');
    expect(() => formDeadline(' ', { now, required: true })).toThrow(/give a date/);
    expect(formDeadline('', { now })).toBeNull();
  });
});
