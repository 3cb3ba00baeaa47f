import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { html } from './html.js';
import { page } from './layout.js';
import { SignInRequired } from './session.js';

const TITLES: Record<number, string> = {
  400: 'Bad request',
  403: 'Not allowed',
  404: 'Page not found',
  409: 'Conflict',
  413: 'Too large',
  415: 'Unsupported form',
  422: 'Please check the form',
  429: 'Too many attempts',
  500: 'Something went wrong',
  503: 'Busy right now',
};

export function errorPage(request: FastifyRequest, reply: FastifyReply, status: number, message: string) {
  const title = TITLES[status] ?? (status >= 500 ? TITLES[500]! : TITLES[400]!);
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
        body: html`<h1>${title}</h1>
<p role="alert">${message}</p>
<p>${back ? html`<a href="${back}">Back to the form</a> · ` : ''}<a href="/">Home</a></p>
${status >= 500 ? html`<p class="muted">Reference: <code>${request.id}</code></p>` : ''}`,
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
    return errorPage(request, reply, error.status, error.message);
  }
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return errorPage(request, reply, 413, 'The form is too large.');
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return errorPage(request, reply, 415, 'Forms are sent as application/x-www-form-urlencoded.');
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return errorPage(request, reply, status, 'The request could not be understood.');
  request.log.error({ err: error }, 'web request failed');
  return errorPage(
    request,
    reply,
    500,
    'An unexpected error occurred. Please try again; if it persists, give the reference below to your administrator.',
  );
}

export function webNotFoundHandler(request: FastifyRequest, reply: FastifyReply) {
  return errorPage(request, reply, 404, 'There is nothing at this address.');
}
