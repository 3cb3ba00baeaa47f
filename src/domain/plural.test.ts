import { describe, expect, it } from 'vitest';
import { plural, pluralForm } from './plural.js';

describe('plural', () => {
  it('chooses the form by the count’s plural category: 1 item, 0 items, 2 items', () => {
    expect(plural(1, 'item')).toBe('1 item');
    expect(plural(0, 'item')).toBe('0 items');
    expect(plural(2, 'change')).toBe('2 changes');
    expect(plural(1, 'minute')).toBe('1 minute');
    expect(pluralForm(21, 'photo')).toBe('photos');
  });
});
