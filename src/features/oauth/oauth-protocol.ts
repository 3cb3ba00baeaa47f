import { createHash, randomBytes } from 'node:crypto';
import { isScope, type Scope } from '../../domain/scopes.js';

/**
 * The pure rules of the OAuth 2.1 profile Punchlist implements (docs/design.md §12): redirect URIs (RFC 8252,
 * MCP authorization), PKCE S256 (RFC 7636), scope strings (RFC 6749 §3.3), the secrets' formats.
 */

/** An error of the token, registration or revocation endpoint, in the RFC 6749 §5.2 / RFC 7591 §3.2.2 shape. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);
export const MAX_REDIRECT_URIS = 10;
export const MAX_URI_LENGTH = 2000;

export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** 32 random bytes, base64url (43 characters), with a prefix saying what the secret is (secret scanners). */
export const randomSecret = (prefix: string) => prefix + randomBytes(32).toString('base64url');

/** The PKCE S256 challenge of a verifier: BASE64URL(SHA-256(ASCII(verifier))). */
export const s256 = (verifier: string) => createHash('sha256').update(verifier, 'ascii').digest('base64url');

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
export const isCodeVerifier = (value: string) => /^[A-Za-z0-9._~-]{43,128}$/.test(value);

/** An S256 challenge is the base64url of 32 bytes: exactly 43 characters. */
export const isS256Challenge = (value: string) => /^[A-Za-z0-9_-]{43}$/.test(value);

/** C0 controls and DEL: never in a URI, a name or anything shown on the consent page. */
export const hasControlCharacter = (value: string) => [...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

/**
 * Why a redirect URI cannot be registered, or null when it can: absolute, no fragment, no credentials;
 * https, or http on a loopback host (any port: native clients listen on a port of their choosing).
 */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > MAX_URI_LENGTH) return `must be at most ${MAX_URI_LENGTH} characters`;
  if (/\s/.test(uri) || hasControlCharacter(uri)) return 'must not contain spaces or control characters';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URL';
  }
  if (uri.includes('#')) return 'must not contain a fragment';
  if (url.username || url.password) return 'must not contain credentials';
  if (url.protocol === 'https:') return url.hostname ? null : 'must name a host';
  if (url.protocol === 'http:')
    return LOOPBACK_HOSTS.has(url.hostname) ? null : 'must use https (http only on 127.0.0.1, [::1] or localhost)';
  return 'must use https (http only on 127.0.0.1, [::1] or localhost)';
}

/**
 * Whether a redirect URI of an authorization request is one the client registered: the exact string,
 * except that on an http loopback URI the port is ignored (RFC 8252 §7.3).
 */
export function redirectUriMatches(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  if (redirectUriProblem(requested) !== null) return false;
  const asked = new URL(requested);
  if (asked.protocol !== 'http:' || !LOOPBACK_HOSTS.has(asked.hostname)) return false;
  return registered.some((candidate) => {
    const url = new URL(candidate);
    if (url.protocol !== 'http:' || url.hostname !== asked.hostname) return false;
    url.port = asked.port;
    return url.href === asked.href && sameAfterHost(candidate, requested);
  });
}

/** The part after the authority, as written (URL parsing normalizes paths; matching must not). */
function sameAfterHost(a: string, b: string): boolean {
  const rest = (uri: string) => uri.replace(/^http:\/\/(\[[^\]]*\]|[^/:?]*)(:[0-9]*)?/i, '');
  return rest(a) === rest(b);
}

/** The scope names of a space-separated scope string; an unknown name is an error (RFC 6749 §3.3). */
export function parseScopeString(value: string): { scopes: Scope[]; unknown: string[] } {
  const names = [...new Set(value.split(' ').filter(Boolean))];
  return { scopes: names.filter(isScope), unknown: names.filter((n) => !isScope(n)) };
}
