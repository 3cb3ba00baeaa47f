import { type Language, resolveLanguage } from '../i18n/i18n.js';
import { createHmac, randomBytes } from 'node:crypto';
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { canAdminister } from '../domain/policy.js';
import { ApiError } from '../shared/errors.js';
import { isSecure, sessionCookieName, sessionUserCookieName } from '../features/sessions/session-cookie.js';
import { sameSecret, SESSION_LIFETIME_MS, type SessionsService, type WebSession } from '../features/sessions/sessions.service.js';
import type { Config } from '../shared/config.js';
import { formOf } from './form.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in web session, resolved from the cookie (web routes only). */
    webSession: WebSession | null;
    /** The language the page answers in (src/i18n). */
    language: Language;
  }
  interface FastifyContextConfig {
    /** Who may open a web route: `public` (anyone), `user` (signed in, the default), `admin`. */
    web?: 'public' | 'user' | 'admin';
    /** The route checks its own CSRF token (the sign-in form, which has no session yet). */
    ownCsrf?: boolean;
  }
}

/** Thrown by the guard: the error handler answers it with a redirect to the sign-in page. */
export class SignInRequired extends Error {}

const csrfFailed = () =>
  new ApiError(403, 'csrf_failed', 'This form has expired or did not come from this site. Reload the page and try again.');

function loginCookieName(baseUrl: string) {
  return isSecure(baseUrl) ? '__Host-punchlist_login' : 'punchlist_login';
}

/**
 * Session loading, the access guard and the CSRF check of every web route. POSTs carry `_csrf`: the
 * session's token, compared in constant time; the sign-in form uses a signed double-submit cookie.
 */
export function webSessions(app: FastifyInstance, deps: { sessions: SessionsService; config: Pick<Config, 'baseUrl'> }) {
  const { sessions, config } = deps;
  app.decorateRequest('webSession', null);
  app.decorateRequest('language', 'en');

  app.addHook('onRequest', async (request) => {
    if (request.url.startsWith('/assets/')) return;
    request.webSession = await sessions.resolve(request.cookies[sessionCookieName(config.baseUrl)]);
    // The page's language (docs/design.md §23): the user's choice, else the browser's; English when neither is ours.
    request.language = resolveLanguage(request.webSession?.chosenLanguage, request.headers['accept-language']);
    if (request.webSession) request.webSession.language = request.language;
  });

  // The readable cookie naming the user follows the session as the server sees it (ended elsewhere, or expired):
  // the service worker reads it offline (web/static/sw.js).
  app.addHook('onSend', async (request, reply) => {
    if (request.url.startsWith('/assets/')) return;
    const name = sessionUserCookieName(config.baseUrl);
    const marked = request.cookies[name];
    const user = request.webSession ? String(request.webSession.user.id) : undefined;
    // Signing in or out sets it with the session cookie (written by @fastify/cookie's onSend, registered first).
    const setHere = [reply.getHeader('set-cookie') ?? []].flat().some((cookie) => String(cookie).startsWith(`${name}=`));
    if (marked === user || setHere) return;
    if (user) reply.setCookie(name, user, userCookieOptions(config.baseUrl, request.webSession!.expiresAt));
    else reply.setCookie(name, '', { ...cookieOptions(config.baseUrl, 0), httpOnly: false });
  });

  app.addHook('preHandler', async (request) => {
    const access = request.routeOptions.config.web ?? 'user';
    if (access === 'public') return;
    const session = request.webSession;
    if (!session) throw new SignInRequired();
    if (access === 'admin' && !canAdminister(session.user)) throw new ApiError(403, 'forbidden', 'This page is reserved to administrators');
    if (request.method === 'POST' && !request.routeOptions.config.ownCsrf) checkCsrf(session, formOf(request).get('_csrf'));
  });
}

/** A form's `_csrf` must be its session's token (compared in constant time). */
export function checkCsrf(session: WebSession, submitted: string | null | undefined): void {
  if (!sameSecret(submitted ?? '', session.csrfToken)) throw csrfFailed();
}

export function sessionOf(request: FastifyRequest): WebSession {
  if (!request.webSession) throw new SignInRequired();
  return request.webSession;
}

/** Every cookie of the web: HttpOnly, SameSite=Lax, for the whole site, Secure over https. */
function cookieOptions(baseUrl: string, maxAgeSeconds: number | null): CookieSerializeOptions {
  return {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: isSecure(baseUrl),
    ...(maxAgeSeconds !== null && { maxAge: maxAgeSeconds }),
  };
}

/** The session cookie and, beside it, the readable cookie that names its user (session-cookie.ts). */
export function setSessionCookie(reply: FastifyReply, baseUrl: string, value: string, session: Pick<WebSession, 'user'>) {
  reply.setCookie(sessionCookieName(baseUrl), value, cookieOptions(baseUrl, SESSION_LIFETIME_MS / 1000));
  reply.setCookie(sessionUserCookieName(baseUrl), String(session.user.id), {
    ...cookieOptions(baseUrl, SESSION_LIFETIME_MS / 1000),
    httpOnly: false,
  });
}

export function clearSessionCookie(reply: FastifyReply, baseUrl: string) {
  reply.setCookie(sessionCookieName(baseUrl), '', cookieOptions(baseUrl, 0));
  reply.setCookie(sessionUserCookieName(baseUrl), '', { ...cookieOptions(baseUrl, 0), httpOnly: false });
}

/** Readable by the page and its worker, and gone when the session expires (never later than a session's lifetime). */
function userCookieOptions(baseUrl: string, expiresAt: string): CookieSerializeOptions {
  const seconds = Math.floor((Date.parse(expiresAt) - Date.now()) / 1000);
  return { ...cookieOptions(baseUrl, Math.min(Math.max(seconds, 60), SESSION_LIFETIME_MS / 1000)), httpOnly: false };
}

/** The sign-in form's CSRF token: an HMAC of a random cookie, so no server state exists before sign-in. */
export function loginCsrf(request: FastifyRequest, reply: FastifyReply, secret: string, baseUrl: string): string {
  const name = loginCookieName(baseUrl);
  let nonce = request.cookies[name];
  if (!nonce || !/^[A-Za-z0-9_-]{22,64}$/.test(nonce)) {
    nonce = randomBytes(24).toString('base64url');
    reply.setCookie(name, nonce, cookieOptions(baseUrl, null));
  }
  return createHmac('sha256', secret).update(`login:${nonce}`).digest('base64url');
}

export function checkLoginCsrf(request: FastifyRequest, secret: string, baseUrl: string): boolean {
  const nonce = request.cookies[loginCookieName(baseUrl)];
  if (!nonce) return false;
  const expected = createHmac('sha256', secret).update(`login:${nonce}`).digest('base64url');
  return sameSecret(formOf(request).get('_csrf') ?? '', expected);
}
