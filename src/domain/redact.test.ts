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

  it('removes the values of query parameters named for secrets, and keeps the rest', () => {
    expect(redactQuery('id=1&password=hunter2&q=a&Access_Token=abc;secret=s')).toBe('id=1&password=[REDACTED]&q=a&Access_Token=[REDACTED];secret=[REDACTED]');
    expect(redactQuery('token=')).toBe('token=[REDACTED]');
    expect(redactQuery('id=1000&limit=5')).toBe('id=1000&limit=5');
    expect(redactSecrets('/login?next=/x&pwd=p')).toBe('/login?next=/x&pwd=[REDACTED]');
  });
});
