/**
 * The web session cookie, shared by the web interface and the attachment downloads (which accept the
 * session as well as a bearer token). Over https the name carries the `__Host-` prefix, so that the
 * browser only accepts it Secure, for the whole host, from this host.
 */
export function sessionCookieName(baseUrl: string): string {
  return isSecure(baseUrl) ? '__Host-punchlist_session' : 'punchlist_session';
}

export function isSecure(baseUrl: string): boolean {
  return baseUrl.startsWith('https://');
}

/**
 * The response header naming the signed-in user (web session) of a page or a photo: the service worker keeps
 * only such answers, in that user's caches, and learns from its absence that nobody is signed in (docs/design.md §16).
 */
export const SESSION_USER_HEADER = 'x-punchlist-user';

/**
 * A cookie beside the session's, readable by scripts and the service worker: the signed-in user's id, set and
 * cleared with the session cookie and expiring with it. It proves nothing (the server never reads it); it lets
 * the worker see, without a network, that this browser's session ended or changed hands.
 */
export function sessionUserCookieName(baseUrl: string): string {
  return isSecure(baseUrl) ? '__Host-punchlist_user' : 'punchlist_user';
}
