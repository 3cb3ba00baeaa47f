import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import type { AppContext } from '../../context.js';
import { readCookie, sessionCookieName } from '../../features/sessions/session-cookie.js';
import { formOf } from '../form.js';
import { loginPageView } from '../views/login-page.js';
import { checkLoginCsrf, clearSessionCookie, loginCsrf, sessionOf, setSessionCookie } from '../session.js';

export const INVALID_CREDENTIALS = 'Invalid email or password.';

/**
 * Only a path of this site may follow sign-in (no open redirect). Browsers drop tabs and line breaks from
 * URLs and read `\\` as `/`, so `/\t/evil.example` or `/\\evil.example` would leave the site: only printable
 * ASCII without backslashes is kept (anything else, e.g. raw non-ASCII, could not be a Location header
 * either), and the path must resolve to this origin.
 */
export function safeNext(value: string | null | undefined): string {
  const fallback = '/projects';
  if (!value || !/^\/[\x21-\x7e]*$/.test(value) || value.includes('\\') || value.startsWith('//') || value.startsWith('/login'))
    return fallback;
  const base = 'http://punchlist.invalid';
  return new URL(value, base).origin === base ? value : fallback;
}

function loginPage(
  config: Pick<Config, 'sessionSecret' | 'baseUrl'>,
  request: FastifyRequest,
  reply: FastifyReply,
  options: { status?: number; error?: string | null; email?: string; next?: string } = {},
) {
  const csrf = loginCsrf(request, reply, config.sessionSecret, config.baseUrl);
  const next = safeNext(options.next);
  return reply
    .code(options.status ?? 200)
    .type('text/html; charset=utf-8')
    .send(loginPageView({ csrf, next, error: options.error ?? null, email: options.email ?? '' }));
}

export async function authPages(app: FastifyInstance, deps: Pick<AppContext, 'sessions' | 'config'>) {
  const { sessions, config } = deps;

  app.get('/', { config: { web: 'public' } }, async (request, reply) => reply.redirect(request.webSession ? '/projects' : '/login', 303));

  app.get('/login', { config: { web: 'public' } }, async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    if (request.webSession) return reply.redirect(safeNext(query.next), 303);
    return loginPage(config, request, reply, { next: query.next });
  });

  app.post('/login', { config: { web: 'public' } }, async (request, reply) => {
    const form = formOf(request);
    const email = form.get('email') ?? '';
    const next = form.get('next') ?? undefined;
    if (!checkLoginCsrf(request, config.sessionSecret, config.baseUrl)) {
      return loginPage(config, request, reply, { status: 403, email, next, error: 'The sign-in form expired. Please try again.' });
    }
    const result = await sessions.signIn({
      email,
      password: form.get('password') ?? '',
      browserTimeZone: form.get('time_zone') ?? undefined,
      ip: request.ip,
      replacing: readCookie(request.headers.cookie, sessionCookieName(config.baseUrl)),
    });
    if (!result.ok && result.reason === 'throttled') {
      const minutes = Math.ceil(result.retryAfterSeconds / 60);
      reply.header('retry-after', String(result.retryAfterSeconds));
      return loginPage(config, request, reply, {
        status: 429,
        email,
        next,
        error: `Too many failed sign-in attempts. Please wait ${minutes} minute${minutes === 1 ? '' : 's'} and try again.`,
      });
    }
    if (!result.ok) return loginPage(config, request, reply, { status: 401, email, next, error: INVALID_CREDENTIALS });
    setSessionCookie(reply, config.baseUrl, result.cookieValue);
    request.log.info({ userId: result.session.user.id }, 'web sign-in');
    return reply.redirect(safeNext(next), 303);
  });

  app.post('/logout', async (request, reply) => {
    const cookie = readCookie(request.headers.cookie, sessionCookieName(config.baseUrl));
    sessionOf(request);
    if (cookie) await sessions.signOut(cookie);
    clearSessionCookie(reply, config.baseUrl);
    // A shared phone keeps nothing of this user: cached pages and photos, the write queue, drafts (DESIGN.md §16).
    reply.header('clear-site-data', '"cache", "storage"');
    return reply.redirect('/login', 303);
  });
}
