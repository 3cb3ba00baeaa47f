import { describe, expect, it } from 'vitest';
import { generateToken } from './token-format.js';
import { redactQuery, redactSecrets } from './redact.js';

describe('redactSecrets', () => {
  const token = generateToken();

  it('removes token-shaped strings anywhere, whole or cut, plain or with the underscore encoded', () => {
    expect(redactSecrets(`/api/external/v1/${token}`)).toBe('/api/external/v1/plk_[REDACTED]');
    expect(redactSecrets(`bot ${token.slice(0, 20)} x`)).toBe('bot plk_[REDACTED] x');
    expect(redactSecrets(`a=${token.replace('_', '%5F')}`)).toBe('a=plk_[REDACTED]');
    expect(redactSecrets('plk_short')).toBe('plk_short');
  });

  it('removes an invitation link’s secret from its path (docs/design.md §20)', () => {
    const secret = 'Ab3_-x'.repeat(7) + 'z';
    expect(redactSecrets(`/invitations/${secret}`)).toBe('/invitations/[REDACTED]');
    expect(redactSecrets(`http://site.test/invitations/${secret}?a=1`)).toBe('http://site.test/invitations/[REDACTED]?a=1');
    expect(redactSecrets('/projects/1/invite')).toBe('/projects/1/invite');
  });

  it('removes the values of query parameters named for secrets, and keeps the rest', () => {
    expect(redactQuery('id=1&password=hunter2&q=a&Access_Token=abc;secret=s')).toBe(
      'id=1&password=[REDACTED]&q=a&Access_Token=[REDACTED];secret=[REDACTED]',
    );
    expect(redactQuery('token=')).toBe('token=[REDACTED]');
    expect(redactQuery('id=1000&limit=5')).toBe('id=1000&limit=5');
    expect(redactSecrets('/login?next=/x&pwd=p')).toBe('/login?next=/x&pwd=[REDACTED]');
  });

  it('matches after percent-decoding: a token written wholly or partly as %XX, either case, and encoded parameter names', () => {
    const encodeAll = (text: string, upper: boolean) =>
      [...text].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')[upper ? 'toUpperCase' : 'toLowerCase']()}`).join('');
    for (const upper of [true, false]) {
      const encoded = encodeAll(token, upper);
      expect(redactSecrets(`/api/external/v1/items/get.php?id=1&x=${encoded}`), encoded).toBe(
        '/api/external/v1/items/get.php?id=1&x=plk_[REDACTED]',
      );
      expect(redactQuery(`q=${encoded}`)).toBe('q=plk_[REDACTED]');
      expect(redactSecrets(`agent ${encoded}`)).toBe('agent plk_[REDACTED]');
    }
    const mixed = `%70lk%5f${token.slice(4, 10)}${encodeAll(token.slice(10), true)}`;
    expect(redactSecrets(`/p/${mixed}`)).toBe('/p/plk_[REDACTED]');
    expect(redactQuery('%70assword=hunter2&%54OKEN=abc&pass+word=x')).toBe('%70assword=[REDACTED]&%54OKEN=[REDACTED]&pass+word=x');
    expect(redactQuery('q=%E2%9C%93&id=%ZZ')).toBe('q=%E2%9C%93&id=%ZZ');
  });
});
