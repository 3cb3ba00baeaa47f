import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { generateToken, hashToken, isWellFormedToken } from './token-format.js';

// docs/design.md §4, re-implemented here without the module: digits, upper case, lower case.
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Base62 of the CRC-32 of the 30 body characters, most significant digit first, zero-padded to 6. */
function expectedChecksum(body: string): string {
  let value = BigInt(crc32(Buffer.from(body, 'ascii')));
  const digits: string[] = [];
  while (value > 0n) {
    digits.unshift(ALPHABET[Number(value % 62n)]!);
    value /= 62n;
  }
  return digits.join('').padStart(6, '0');
}

const token = (body: string) => `plk_${body}${expectedChecksum(body)}`;

describe('token format', () => {
  it('generates 40 characters: plk_ + 36 base62 characters', () => {
    for (let i = 0; i < 200; i++) {
      const raw = generateToken();
      expect(raw).toHaveLength(40);
      expect(raw).toMatch(/^plk_[0-9A-Za-z]{36}$/);
    }
  });

  it('generates tokens whose last 6 characters are the CRC-32 of the 30 before them', () => {
    for (let i = 0; i < 200; i++) {
      const raw = generateToken();
      const body = raw.slice(4, 34);
      expect(raw.slice(34)).toBe(expectedChecksum(body));
      expect(isWellFormedToken(raw)).toBe(true);
    }
  });

  it('generates distinct tokens that use the whole alphabet', () => {
    const tokens = Array.from({ length: 500 }, generateToken);
    expect(new Set(tokens).size).toBe(tokens.length);
    const seen = new Set(tokens.flatMap((t) => [...t.slice(4, 34)]));
    expect([...seen].sort().join('')).toBe([...ALPHABET].sort().join(''));
  });

  it('accepts known vectors (CRC-32 and base62 computed outside the module)', () => {
    // Literal values cross-checked with Python's zlib.crc32 and a separate base62 routine.
    expect(crc32('0123456789ABCDEFGHIJabcdefghij')).toBe(4120704942);
    expect(expectedChecksum('0123456789ABCDEFGHIJabcdefghij')).toBe('4Us3aw');
    expect(expectedChecksum('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')).toBe('1yLcDB');
    expect(expectedChecksum('Zz11qqqqqqqqqqqqqqqqqqqqqqqqqq')).toBe('0ZsU70');
    expect(expectedChecksum('Yy717qqqqqqqqqqqqqqqqqqqqqqqqq')).toBe('00bWNO');
    expect(isWellFormedToken('plk_0123456789ABCDEFGHIJabcdefghij4Us3aw')).toBe(true);
    expect(isWellFormedToken('plk_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1yLcDB')).toBe(true);
    // Zero padding: small checksums keep their leading zeros.
    expect(isWellFormedToken('plk_Zz11qqqqqqqqqqqqqqqqqqqqqqqqqq0ZsU70')).toBe(true);
    expect(isWellFormedToken('plk_Yy717qqqqqqqqqqqqqqqqqqqqqqqqq00bWNO')).toBe(true);
    expect(isWellFormedToken('plk_Yy717qqqqqqqqqqqqqqqqqqqqqqqqqbWNO')).toBe(false);
  });

  it('rejects every one-character change of a valid token', () => {
    const raws = [token('0123456789ABCDEFGHIJabcdefghij'), generateToken(), generateToken()];
    for (const raw of raws) {
      expect(isWellFormedToken(raw)).toBe(true);
      for (let i = 0; i < raw.length; i++) {
        for (const replacement of ['0', 'z', 'A', '_', raw[i] === 'a' ? 'b' : 'a']) {
          if (replacement === raw[i]) continue;
          const changed = raw.slice(0, i) + replacement + raw.slice(i + 1);
          expect(isWellFormedToken(changed), `${changed} (position ${i})`).toBe(false);
        }
      }
    }
  });

  it('rejects a checksum computed the wrong way (little end first, other alphabet order)', () => {
    const body = '0123456789ABCDEFGHIJabcdefghij';
    const checksum = expectedChecksum(body);
    expect(isWellFormedToken(`plk_${body}${[...checksum].reverse().join('')}`)).toBe(false);
    const swapped = [...checksum].map((c) => (/[a-z]/.test(c) ? c.toUpperCase() : c.toLowerCase())).join('');
    expect(isWellFormedToken(`plk_${body}${swapped}`)).toBe(false);
  });

  it.each([
    ['empty', ''],
    ['prefix only', 'plk_'],
    ['upper-case prefix', token('0123456789ABCDEFGHIJabcdefghij').replace('plk_', 'PLK_')],
    ['one character short', token('0123456789ABCDEFGHIJabcdefghij').slice(0, 39)],
    ['one character more', `${token('0123456789ABCDEFGHIJabcdefghij')}0`],
    ['surrounding space', ` ${token('0123456789ABCDEFGHIJabcdefghij')}`],
    ['non-base62 body', token('0123456789ABCDEFGHIJabcdefghi-')],
    ['non-ASCII body', token('0123456789ABCDEFGHIJabcdefghiё')],
  ])('rejects %s', (_name, raw) => {
    expect(isWellFormedToken(raw)).toBe(false);
  });

  it('hashes with SHA-256, hex', () => {
    const raw = generateToken();
    expect(hashToken(raw)).toBe(createHash('sha256').update(raw, 'utf8').digest('hex'));
    expect(hashToken(raw)).toMatch(/^[0-9a-f]{64}$/);
  });
});
