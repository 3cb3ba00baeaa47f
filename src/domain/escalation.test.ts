import { describe, expect, it } from 'vitest';
import { daysOverdue, escalationLadder, escalationStep } from './escalation.js';

describe('the escalation ladder', () => {
  it('counts days overdue from the day after the deadline', () => {
    expect(daysOverdue('2030-03-01', '2030-03-01')).toBe(0);
    expect(daysOverdue('2030-03-01', '2030-03-02')).toBe(1);
    expect(daysOverdue('2030-02-27', '2030-03-06')).toBe(7);
    expect(daysOverdue('2030-03-30', '2030-04-02')).toBe(3); // across a change of summer time: dates, not hours
  });

  it('steps every N days, and on day M to the managers as well; a missed day tells the latest step only', () => {
    const ladder = { everyDays: 2, managersAfterDays: 5 };
    const steps = Array.from({ length: 10 }, (_, i) => escalationStep(ladder, i));
    expect(steps.map((s) => s && `${s.step}${s.managers ? 'm' : ''}`)).toEqual([null, null, '2', '2', '4', '5m', '6m', '6m', '8m', '8m']);
    expect(escalationStep({ everyDays: 1, managersAfterDays: 1 }, 1)).toEqual({ step: 1, managers: true });
    expect(escalationStep(ladder, -3)).toBeNull();
  });

  it('takes whole numbers of days in range, and names the field of any other', () => {
    expect(escalationLadder({ everyDays: '3', managersAfterDays: ' 10 ' })).toEqual({ everyDays: 3, managersAfterDays: 10 });
    for (const [everyDays, managersAfterDays, field] of [
      ['0', '7', 'every_days'],
      ['2.5', '7', 'every_days'],
      ['31', '7', 'every_days'],
      ['', '7', 'every_days'],
      ['2', '-1', 'managers_after_days'],
      ['2', '366', 'managers_after_days'],
      ['2', 'seven', 'managers_after_days'],
    ] as const) {
      expect(() => escalationLadder({ everyDays, managersAfterDays }), `${everyDays} ${managersAfterDays}`).toThrow(
        expect.objectContaining({ status: 422, details: [expect.objectContaining({ field })] }),
      );
    }
  });
});
