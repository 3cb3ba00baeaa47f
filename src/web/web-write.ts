import type { FastifyReply, FastifyRequest } from 'fastify';
import { auditRecord } from '../http/audit-record.js';
import type { Actor } from '../domain/policy.js';
import { ApiError, type FieldError } from '../shared/errors.js';
import type { IdempotencyService } from '../features/idempotency/idempotency.service.js';
import { hashJsonRequest } from '../features/idempotency/idempotency.service.js';
import { finishKey, reserveKey, webKeyScope } from '../http/idempotency.js';
import type { AuditService, RecordAudit } from '../features/audit/audit.service.js';
import type { AuditEntryBuilder } from '../features/write-path/write-path.js';
import { fieldMessage } from '../i18n/reasons.js';
import type { Language } from '../i18n/i18n.js';
import { errorMessage, errorPage } from './errors.js';
import { formOf } from './form.js';
import { sessionOf } from './session.js';

/**
 * A refusal's complaints in the page's language: each field's reason by its key, and the summary rebuilt from them
 * when it is their list (`validationError`'s "field: reason"); another summary is said by its code where known.
 */
export function wordedFailure(language: Language, err: ApiError): { errors: FieldError[]; message: string } {
  if (!err.details)
    return {
      errors: [{ field: '', message: errorMessage(language, err.code, err.message) }],
      message: errorMessage(language, err.code, err.message),
    };
  const listed = err.details.map((d) => `${d.field}: ${d.message}`).join('; ') === err.message;
  const errors = err.details.map((d) => ({ ...d, message: fieldMessage(language, d) }));
  return {
    errors,
    message: listed ? errors.map((d) => `${d.field}: ${d.message}`).join('; ') : errorMessage(language, err.code, err.message),
  };
}

/** A form that failed validation: shown again with what the user typed and the message beside the field. */
export interface FormFailure {
  /** Which form of the page failed (e.g. `comment`). */
  form: string;
  values: Record<string, string | string[]>;
  errors: FieldError[];
  message: string;
}

/** The form's values without the guards, for showing them again. */
function formValues(form: URLSearchParams | Record<string, string>): Record<string, string | string[]> {
  const entries = form instanceof URLSearchParams ? [...form.keys()].map((k) => [k, form.getAll(k)] as const) : Object.entries(form);
  return Object.fromEntries(
    entries.filter(([k]) => k !== '_csrf' && k !== '_key').map(([k, v]) => [k, Array.isArray(v) && v.length === 1 ? v[0]! : v]),
  );
}

export interface WebWrite<T> {
  /** Who writes: the signed-in user unless given; null only for sign-in (nobody yet: no key, no audit record). */
  user?: Actor | null;
  form: string;
  /** The submitted form: the url-encoded fields unless given (an upload's text fields). */
  fields?: URLSearchParams | Record<string, string>;
  /** What "the same submission" means for an upload (its files' digests); url-encoded forms hash their fields. */
  fingerprint?: string;
  /** What the write acts on, for its audit record (a write that creates it names the new one: RecordAudit). */
  entity: { type: string; id: number };
  /** Where the browser goes after the write (303), and where a second submission of the same form goes. */
  redirect: (result: T) => string;
  /**
   * Instead of the redirect, a page answering the write itself: what is shown once (a new token, a webhook's
   * secret). A second submission of the form is sent to `redirect` (the secret is never stored).
   */
  respond?: { status: number; render: (result: T) => FastifyReply | Promise<FastifyReply> };
  /** Shows the page again with the failed form (422, 409 and the statuses of `refusals`). */
  rerender: (failure: FormFailure, status: number) => FastifyReply | Promise<FastifyReply>;
  /** Statuses besides 409 and 422 that show the form again instead of the error page (sign-in: 401, 429). */
  refusals?: readonly number[];
  /**
   * The write. Item writes take `buildAudit` (their writer records it in the item's transaction); the others
   * call `recordAudit(trx)` in their own transaction. Either way the record commits with the change.
   */
  write: (buildAudit: AuditEntryBuilder, recordAudit: RecordAudit) => Promise<T>;
}

/** Fills the navigation's counts of the request's session (web-plugin.ts), for a page shown in answer to a POST. */
export type NavigationCounts = (request: FastifyRequest) => Promise<void>;

/** The one path of every web form that changes something (STYLE.md 15). */
export type WebWriter = <T>(request: FastifyRequest, reply: FastifyReply, w: WebWrite<T>) => Promise<FastifyReply>;

/**
 * A write from a web form, through the same services (lock, history, audit record in the write's
 * transaction) as v1, then Post/Redirect/Get. The form's `_key` makes it idempotent like v1's
 * Idempotency-Key: a double submission (a second tap, a phone resending after a lost answer) is
 * redirected to the first one's result instead of writing twice. A refused submission (4xx) changes
 * nothing and frees its key, so the corrected form can be sent again. CSRF is checked before
 * (web/session.ts; photo forms and sign-in check their own).
 */
export function createWebWriter(deps: { idempotency: IdempotencyService; audit: AuditService; navigation: NavigationCounts }): WebWriter {
  const { idempotency, audit, navigation } = deps;
  return async function webWrite<T>(request: FastifyRequest, reply: FastifyReply, w: WebWrite<T>): Promise<FastifyReply> {
    const user = w.user === undefined ? sessionOf(request).user : w.user;
    const fields = w.fields ?? formOf(request);
    const key = fields instanceof URLSearchParams ? fields.get('_key') : fields._key;
    const scope = webKeyScope(user?.id ?? null, key, request);
    if (scope) {
      const fingerprint = w.fingerprint ?? hashJsonRequest(formValues(fields));
      const held = await reserveKey(idempotency, request, scope, fingerprint);
      if (held.kind === 'replay') return reply.redirect(held.body, 303);
      if (held.kind !== 'reserved') {
        return errorPage(request, reply, 409, { key: 'error.alreadySent' });
      }
    }
    request.api.auditEntity = w.entity;
    request.api.sessionUser = user;
    const status = w.respond?.status ?? 303;
    const buildAudit = () => auditRecord(request, status, reply.elapsedTime);
    const recordAudit: RecordAudit = async (trx, entity) => {
      if (entity) request.api.auditEntity = entity;
      await audit.record(buildAudit(), trx);
    };
    try {
      // The records of requests that finished before this write go first: the audit log keeps their order.
      if (user) await audit.flush();
      const result = await w.write(buildAudit, recordAudit);
      const location = w.redirect(result);
      // The key keeps where the write led: a second submission goes there (303), however late.
      await finishKey(idempotency, request, { status: 303, body: location });
      if (!w.respond) return reply.redirect(location, 303);
      await navigation(request);
      return await w.respond.render(result);
    } catch (err) {
      await finishKey(idempotency, request, null);
      if (err instanceof ApiError && (err.status === 422 || err.status === 409 || w.refusals?.includes(err.status))) {
        if (err.headers) reply.headers(err.headers);
        await navigation(request);
        return w.rerender({ form: w.form, values: formValues(fields), ...wordedFailure(request.language, err) }, err.status);
      }
      throw err;
    }
  };
}
