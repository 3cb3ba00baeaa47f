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

/** The value of one cookie of a `Cookie` header (the first one of that name), or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export interface CookieOptions {
  maxAgeSeconds: number | null;
  secure: boolean;
}

/** A `Set-Cookie` value: HttpOnly, SameSite=Lax, Path=/, Secure over https; `maxAgeSeconds: 0` deletes it. */
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (options.maxAgeSeconds !== null) parts.push(`Max-Age=${options.maxAgeSeconds}`);
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}
