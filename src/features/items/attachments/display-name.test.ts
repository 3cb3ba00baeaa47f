import { describe, expect, it } from 'vitest';
import { displayName, MAX_DISPLAY_NAME } from './attachments.service.js';

// Over HTTP, busboy already cuts names at the last slash and skips parts whose name holds CR or LF;
// displayName must hold on its own for every other way a name arrives.
describe('displayName', () => {
  it('keeps only the last path segment, and never `.` or `..`', () => {
    expect(displayName('../../etc/passwd.png')).toBe('passwd.png');
    expect(displayName('C:\\Users\\ann\\Desktop\\tag.jpg')).toBe('tag.jpg');
    expect(displayName('photos/')).toBe('image');
    expect(displayName('a/..')).toBe('image');
    expect(displayName('.')).toBe('image');
    expect(displayName('...')).toBe('image');
    expect(displayName('.hidden.png')).toBe('.hidden.png');
  });

  it('drops control characters, line separators, lone surrogates and bidirectional controls', () => {
    expect(displayName('a\u0000b\r\nc\td\u0007\u001b[0m\u007f.png')).toBe('abcd[0m.png');
    expect(displayName('a\u0085b\u009bc.png')).toBe('abc.png');
    expect(displayName('a\u2028b\u2029c.png')).toBe('abc.png');
    expect(displayName('photo\u202egnp.exe')).toBe('photognp.exe');
    expect(displayName('\u2066a\u2069\u200e\u200f\u061cb.png')).toBe('ab.png');
    expect(displayName('a\ud800b.png')).toBe('ab.png');
    // Whole characters are kept: accents, other scripts, emoji (a surrogate pair), joiners inside emoji.
    expect(displayName('Проверка ё 😀 👩‍🔧.jpg')).toBe('Проверка ё 😀 👩‍🔧.jpg');
  });

  it('trims, and falls back to "image" when nothing displayable is left', () => {
    expect(displayName('  spaced.png  ')).toBe('spaced.png');
    expect(displayName('')).toBe('image');
    expect(displayName('\u0000\u0001 \u202e')).toBe('image');
  });

  it('keeps at most 255 code points, never half of a surrogate pair', () => {
    expect(displayName('a'.repeat(1000))).toBe('a'.repeat(MAX_DISPLAY_NAME));
    const emoji = displayName('😀'.repeat(300));
    expect(Array.from(emoji)).toHaveLength(MAX_DISPLAY_NAME);
    expect(emoji).toBe('😀'.repeat(MAX_DISPLAY_NAME));
    expect(displayName(`${'a'.repeat(254)} b`)).toBe('a'.repeat(254));
  });
});
