/**
 * Secrets that a client puts where they do not belong — an API token in the URL or the User-Agent, a
 * password in a query parameter — must not travel on into the audit table or the logs, which more
 * people read than the token's owner. Applied to every request string that is recorded.
 */

export const REDACTED = '[REDACTED]';

// The token format (DESIGN.md §4) is `plk_` + 36 base62 characters; a shorter run after the prefix is
// still most of a secret (a mistyped or cut token), and the underscore may arrive percent-encoded.
const TOKEN_LIKE = /plk(?:_|%5[Ff])[0-9A-Za-z]{8,}/g;

// Values of query parameters whose name says they hold a secret.
const SECRET_PARAMETER = /([?&;](?:password|passwd|pwd|secret|token|access_token|api_key|apikey|authorization|auth)=)[^&;#]*/gi;

/** `text` with token-shaped strings and secret query parameters replaced by `[REDACTED]`. */
export function redactSecrets(text: string): string {
  return text.replace(TOKEN_LIKE, `plk_${REDACTED}`).replace(SECRET_PARAMETER, `$1${REDACTED}`);
}

/** For a raw query string without its leading `?`. */
export function redactQuery(query: string): string {
  return redactSecrets(`?${query}`).slice(1);
}
