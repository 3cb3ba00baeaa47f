import { PASSWORD, type UserKey } from '../helpers/workspace.js';

export interface WebResponse {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

/** A browser-like HTTP client for the web interface: a cookie jar, no redirect following, form posts. */
export class WebClient {
  readonly cookies = new Map<string, string>();

  constructor(
    readonly baseUrl: string,
    readonly headers: Record<string, string> = {},
  ) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private remember(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((s) => s.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (attributes.some((a) => /^max-age=0$/i.test(a)) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async request(path: string, init: RequestInit = {}): Promise<WebResponse> {
    const headers = new Headers({ ...this.headers, ...(init.headers as Record<string, string> | undefined) });
    if (this.cookies.size) headers.set('cookie', this.cookieHeader());
    const response = await fetch(this.baseUrl + path, { ...init, headers, redirect: 'manual' });
    this.remember(response);
    return { status: response.status, headers: response.headers, text: await response.text(), location: response.headers.get('location') };
  }

  get(path: string) {
    return this.request(path);
  }

  /** A form post; `_csrf` is taken from `csrfFrom` (a page's HTML) unless the fields carry it. */
  post(path: string, fields: Record<string, string | string[]>, csrfFrom?: string) {
    const body = new URLSearchParams();
    const csrf = csrfFrom === undefined ? undefined : csrfOf(csrfFrom);
    if (csrf !== undefined && !('_csrf' in fields)) body.append('_csrf', csrf);
    for (const [key, value] of Object.entries(fields)) for (const v of [value].flat()) body.append(key, v);
    return this.request(path, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  }

  /** A multipart form post (photo forms), `_csrf` from `csrfFrom` unless the form carries one. */
  postMultipart(path: string, form: FormData, csrfFrom?: string) {
    if (csrfFrom !== undefined && !form.has('_csrf')) form.append('_csrf', csrfOf(csrfFrom));
    return this.request(path, { method: 'POST', body: form });
  }

  /** Signs in through the form; throws unless it redirected. */
  async signIn(user: UserKey | string, password = PASSWORD): Promise<WebResponse> {
    const email = user.includes('@') ? user : `${user}@punchlist.test`;
    const login = await this.get('/login');
    const response = await this.post('/login', { email, password }, login.text);
    return response;
  }

  /** A page's CSRF token, for the next post. */
  async csrf(path = '/profile'): Promise<string> {
    return csrfOf((await this.get(path)).text);
  }
}

export function csrfOf(page: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(page);
  if (!match) throw new Error('no CSRF field on the page');
  return match[1]!;
}

export function decode(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** One signed-in client per workspace user, made on first use and reused (the server's URL is read then). */
export function signedInClients(baseUrl: () => string): (user: UserKey) => Promise<WebClient> {
  const clients = new Map<UserKey, WebClient>();
  return async (user) => {
    let web = clients.get(user);
    if (!web) {
      web = new WebClient(baseUrl());
      const response = await web.signIn(user);
      if (response.status !== 303) throw new Error(`${user} could not sign in: ${response.status}`);
      clients.set(user, web);
    }
    return web;
  };
}
