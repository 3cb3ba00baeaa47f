/**
 * Secrets that a client puts where they do not belong — an API token in the URL or the User-Agent, a
 * password in a query parameter — must not travel on into the audit table or the logs, which more
 * people read than the token's owner. Applied to every request string that is recorded. Matching
 * happens as if the text were percent-decoded: `%70%6C%6B%5F…` is a token too, and is redacted.
 */

const REDACTED = '[REDACTED]';

/** `ch` literally or percent-encoded (either case of hex digits). */
function literalOrEncoded(ch: string): string {
  const hex = ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0');
  const digit = (d: string) => (/[A-F]/.test(d) ? `[${d}${d.toLowerCase()}]` : d);
  const escaped = /[A-Za-z0-9]/.test(ch) ? ch : `\\${ch}`;
  return `(?:${escaped}|%${digit(hex[0]!)}${digit(hex[1]!)})`;
}

// A base62 character, literal or percent-encoded (%30-%39, %41-%5A, %61-%7A).
const BASE62 = '(?:[0-9A-Za-z]|%(?:3[0-9]|4[1-9A-Fa-f]|5[0-9Aa]|6[1-9A-Fa-f]|7[0-9Aa]))';

// The token format (docs/design.md §4) is `plk_` + 36 base62 characters; a shorter run after the prefix is
// still most of a secret (a mistyped or cut token).
const TOKEN_LIKE = new RegExp(`${[...'plk_'].map(literalOrEncoded).join('')}${BASE62}{8,}`, 'g');

// Names of query parameters that hold a secret (compared after percent-decoding).
const SECRET_NAMES = new Set([
  'password',
  'passwd',
  'pwd',
  'secret',
  'token',
  'access_token',
  'api_key',
  'apikey',
  'authorization',
  'auth',
]);

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

// An invitation's link carries its secret in the path (docs/design.md §20): `/invitations/<secret>`.
const INVITATION_LINK = /(\/invitations\/)[^/?#\s]+/g;

/**
 * `text` with token-shaped strings (literal or percent-encoded) replaced by `plk_[REDACTED]`, and an invitation
 * link's secret by `[REDACTED]`.
 */
function redactTokens(text: string): string {
  return text.replace(TOKEN_LIKE, `plk_${REDACTED}`).replace(INVITATION_LINK, `$1${REDACTED}`);
}

/** For a raw query string without its leading `?`: tokens, and the values of parameters named like secrets. */
export function redactQuery(query: string): string {
  return query
    .split(/([&;])/)
    .map((part) => {
      const equals = part.indexOf('=');
      if (equals < 0) return redactTokens(part);
      const name = decoded(part.slice(0, equals)).trim().toLowerCase();
      return SECRET_NAMES.has(name) ? `${part.slice(0, equals + 1)}${REDACTED}` : redactTokens(part);
    })
    .join('');
}

/** A path, a full URL or a header value: tokens anywhere, and secret parameters of a query part. */
export function redactSecrets(text: string): string {
  const question = text.indexOf('?');
  if (question < 0) return redactTokens(text);
  return `${redactTokens(text.slice(0, question))}?${redactQuery(text.slice(question + 1))}`;
}
