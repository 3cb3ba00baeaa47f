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
