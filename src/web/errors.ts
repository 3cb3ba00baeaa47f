import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, INVALID_DATA_MESSAGE } from '../shared/errors.js';
import { html } from './html.js';
import { languageOf, page } from './layout.js';
import type { Language, MessageKey } from '../i18n/i18n.js';
import { SignInRequired } from './session.js';

const TITLES: Record<number, MessageKey> = {
  400: 'error.title.400',
  403: 'error.title.403',
  404: 'error.title.404',
  409: 'error.title.409',
  413: 'error.title.413',
  415: 'error.title.415',
  422: 'error.title.422',
  429: 'error.title.429',
  500: 'error.title.500',
  503: 'error.title.503',
};

/** The machine codes whose message the web says in the page's language (errors.json); any other keeps the service's text. */
const CODES: Record<string, MessageKey> = {
  forbidden: 'error.code.forbidden',
  not_found: 'error.code.not_found',
  csrf_failed: 'error.code.csrf_failed',
  rate_limited: 'error.code.rate_limited',
  service_unavailable: 'error.code.service_unavailable',
  idempotency_conflict: 'error.code.idempotency_conflict',
  payload_too_large: 'error.code.payload_too_large',
  answer_changed: 'error.code.answer_changed',
  user_exists: 'error.code.user_exists',
  // The consent page's refusal when no scope is ticked (features/oauth `approve`).
  invalid_scope: 'error.code.invalid_scope',
};

/**
 * A service error's message for a page: English as the service wrote it, another language by its code where known
 * (and the summary of a refusal that lists its fields apart, `invalidData`'s).
 */
export function errorMessage(language: Language, code: string | undefined, english: string): string {
  if (language === 'en' || code === undefined) return english;
  if (code === 'validation_error' && english === INVALID_DATA_MESSAGE) return languageOf(null, language).t('error.invalidData');
  return Object.hasOwn(CODES, code) ? languageOf(null, language).t(CODES[code]!) : english;
}

/** An error page: `message` as it is, or a message key to say in the page's language. */
export function errorPage(request: FastifyRequest, reply: FastifyReply, status: number, message: string | { key: MessageKey }) {
  const { t } = languageOf(request.webSession ?? null, request.language);
  const title = t(TITLES[status] ?? (status >= 500 ? TITLES[500]! : TITLES[400]!));
  const text = typeof message === 'string' ? message : t(message.key);
  const referer = request.headers.referer;
  // After a failed POST, a way back to the form it came from (same site only).
  const back = request.method === 'POST' && referer?.startsWith(`${request.protocol}://${request.host}/`) ? referer : null;
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(
      page({
        title,
        session: request.webSession ?? null,
        language: request.webSession ? undefined : request.language,
        body: html`<h1>${title}</h1>
<p role="alert">${text}</p>
<p>${back ? html`<a href="${back}">${t('error.back')}</a> · ` : ''}<a href="/">${t('error.home')}</a></p>
${status >= 500 ? html`<p class="muted">${t('error.reference')} <code>${request.id}</code></p>` : ''}`,
      }).value,
    );
}

/** Where a signed-out visitor goes: the sign-in page, coming back to the page asked for (GETs). */
function signInRedirect(request: FastifyRequest, reply: FastifyReply) {
  const next = request.method === 'GET' && request.url !== '/' ? `?next=${encodeURIComponent(request.url)}` : '';
  return reply.redirect(`/login${next}`, 303);
}

/** The web scope's error handler: HTML pages, never the API envelope; a 5xx never shows internals. */
export function webErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof SignInRequired) return signInRedirect(request, reply);
  if (error instanceof ApiError) {
    // Retry-After of a 429 or 503 tells a browser (and a script) when to come back, as in the API.
    if (error.headers) reply.headers(error.headers);
    return errorPage(request, reply, error.status, errorMessage(request.language, error.code, error.message));
  }
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return errorPage(request, reply, 413, { key: 'error.tooLarge' });
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return errorPage(request, reply, 415, { key: 'error.formType' });
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return errorPage(request, reply, status, { key: 'error.notUnderstood' });
  request.log.error({ err: error }, 'web request failed');
  return errorPage(request, reply, 500, { key: 'error.unexpected' });
}

export function webNotFoundHandler(request: FastifyRequest, reply: FastifyReply) {
  return errorPage(request, reply, 404, { key: 'error.nothingHere' });
}
