import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../shared/config.js';
import type { AppContext } from '../../composition/context.js';
import { ApiError } from '../../shared/errors.js';
import { sessionCookieName } from '../../features/sessions/session-cookie.js';
import { errorPage } from '../errors.js';
import { formOf, parseFields, sentField, textField } from '../form.js';
import { Type } from 'typebox';
import { Text } from '../../http/write-inputs.js';
import { loginPageView } from '../views/login-page.js';
import { checkLoginCsrf, clearSessionCookie, loginCsrf, sessionOf, setSessionCookie } from '../session.js';
import type { WebWriter } from '../web-write.js';
import { askedLanguage, message } from '../../i18n/i18n.js';

/**
 * The sign-in and sign-out forms' own schemas (no v1 twin): their shapes; the sessions service checks the rest.
 * Nothing here refuses (text, a box), so sign-in's fields are read before the write: its address is shown again
 * and `next` followed.
 */
const SignInForm = Type.Object({ email: Text, password: Text, time_zone: Type.Optional(Text), next: Type.Optional(Text) });
const SignOutForm = Type.Object({ others_waiting: Type.Boolean() });

const signInOf = (form: URLSearchParams) =>
  parseFields(SignInForm, {
    email: textField(form, 'email'),
    password: textField(form, 'password'),
    time_zone: sentField(form, 'time_zone'),
    next: sentField(form, 'next'),
  });

/** Whether another user's queued writes wait on the device (the page says so when it posts). */
const othersWaitingOf = (form: URLSearchParams) =>
  parseFields(SignOutForm, { others_waiting: form.get('others_waiting') === '1' }).others_waiting;

/**
 * Only a path of this site may follow sign-in (no open redirect). Browsers drop tabs and line breaks from
 * URLs and read `\\` as `/`, so `/\t/evil.example` or `/\\evil.example` would leave the site: only printable
 * ASCII without backslashes is kept (anything else, e.g. raw non-ASCII, could not be a Location header
 * either), and the path must resolve to this origin.
 */
function safeNext(value: string | null | undefined): string {
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
  return (
    reply
      .code(options.status ?? 200)
      .type('text/html; charset=utf-8')
      // Written in the browser's language (nobody is signed in yet).
      .header('vary', 'Accept-Language')
      .send(loginPageView({ csrf, next, error: options.error ?? null, email: options.email ?? '', language: request.language }))
  );
}

export async function authPages(app: FastifyInstance, deps: Pick<AppContext, 'sessions' | 'config'> & { webWrite: WebWriter }) {
  const { sessions, config, webWrite } = deps;

  app.get('/', { config: { web: 'public' } }, async (request, reply) => reply.redirect(request.webSession ? '/projects' : '/login', 303));

  app.get('/login', { config: { web: 'public' } }, async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    if (request.webSession) return reply.redirect(safeNext(query.next), 303);
    return loginPage(config, request, reply, { next: query.next });
  });

  /**
   * Sign-in on the form path with nobody signed in yet: its own CSRF check (a signed cookie), no idempotency
   * key and no audit record (the request log has it; the throttle counts failures): docs/decisions.md.
   */
  app.post('/login', { config: { web: 'public', ownCsrf: true } }, async (request, reply) => {
    const fields = signInOf(formOf(request));
    const { email, next } = fields;
    return webWrite(request, reply, {
      user: null,
      form: 'login',
      entity: { type: 'user', id: 0 },
      redirect: () => safeNext(next),
      refusals: [401, 403, 429],
      rerender: (failure, status) => loginPage(config, request, reply, { status, email, next, error: failure.message }),
      write: async () => {
        if (!checkLoginCsrf(request, config.sessionSecret, config.baseUrl)) {
          throw new ApiError(403, 'csrf_failed', message(request.language, 'login.expired'));
        }
        const result = await sessions.signIn({
          email: fields.email,
          password: fields.password,
          browserTimeZone: fields.time_zone,
          // The browser's own language, not the session's choice: what the user reads when nothing is chosen.
          browserLanguage: askedLanguage(request.headers['accept-language']),
          ip: request.ip,
          replacing: request.cookies[sessionCookieName(config.baseUrl)],
        });
        if (!result.ok && result.reason === 'throttled') {
          const minutes = Math.ceil(result.retryAfterSeconds / 60);
          const text = message(request.language, 'login.throttled', { minutes });
          throw new ApiError(429, 'rate_limited', text, undefined, { 'retry-after': String(result.retryAfterSeconds) });
        }
        if (!result.ok) throw new ApiError(401, 'invalid_credentials', message(request.language, 'login.invalid'));
        setSessionCookie(reply, config.baseUrl, result.cookieValue, result.session);
        request.log.info({ userId: result.session.user.id }, 'web sign-in');
      },
    });
  });

  app.post('/logout', async (request, reply) => {
    const { user } = sessionOf(request);
    const cookie = request.cookies[sessionCookieName(config.baseUrl)];
    return webWrite(request, reply, {
      form: 'logout',
      entity: { type: 'user', id: user.id },
      redirect: () => '/login',
      rerender: (failure, status) => errorPage(request, reply, status, failure.message),
      write: async (_, recordAudit) => {
        if (cookie) await sessions.signOut(cookie, recordAudit);
        clearSessionCookie(reply, config.baseUrl);
        // A shared phone keeps nothing of this user: cached pages and photos, the write queue, drafts (docs/design.md §16).
        // When another user's queued writes wait on the device (the page says so), the storage that holds them
        // stays: the page wiped this user's part of it before posting (static/offline.js).
        const othersWaiting = othersWaitingOf(formOf(request));
        reply.header('clear-site-data', othersWaiting ? '"cache"' : '"cache", "storage"');
      },
    });
  });
}
