import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { auditRecord } from '../api/audit-hook.js';
import type { Actor } from '../domain/policy.js';
import { ApiError, type FieldError } from '../errors.js';
import type { IdempotencyScope, IdempotencyService } from '../features/idempotency/idempotency.service.js';
import { hashJsonRequest } from '../features/idempotency/idempotency.service.js';
import type { AuditEntryBuilder } from '../features/items/item-transaction.js';
import { html, type SafeHtml } from './html.js';
import { errorPage } from './errors.js';

/** A form that failed validation: shown again with what the user typed and the message beside the field. */
export interface FormFailure {
  /** Which form of the page failed (e.g. `comment`). */
  form: string;
  values: Record<string, string | string[]>;
  errors: FieldError[];
  message: string;
}

/** The hidden field that makes a form's submission idempotent: a fresh key each time the form is shown. */
export function writeKeyField(): SafeHtml {
  return html`<input type="hidden" name="_key" value="${randomUUID()}">`;
}

const KEY = /^[0-9a-f-]{36}$/;

/** The form's values without the guards, for showing them again. */
export function formValues(form: URLSearchParams | Record<string, string>): Record<string, string | string[]> {
  const entries = form instanceof URLSearchParams ? [...form.keys()].map((k) => [k, form.getAll(k)] as const) : Object.entries(form);
  return Object.fromEntries(
    entries.filter(([k]) => k !== '_csrf' && k !== '_key').map(([k, v]) => [k, Array.isArray(v) && v.length === 1 ? v[0]! : v]),
  );
}

export interface WebWrite<T> {
  user: Actor;
  form: string;
  /** The submitted form (url-encoded fields, or an upload's text fields). */
  fields: URLSearchParams | Record<string, string>;
  /** What "the same submission" means for an upload (its files' digests); url-encoded forms hash their fields. */
  fingerprint?: string;
  entity: { type: 'item' | 'answer' | 'project' | 'user'; id: number };
  redirect: (result: T) => string;
  /** Shows the page again with the failed form (422, 409). */
  rerender: (failure: FormFailure, status: number) => Promise<FastifyReply>;
  write: (buildAudit: AuditEntryBuilder) => Promise<T>;
}

/**
 * A write from a web form, through the same service (lock, history, audit record in the write's
 * transaction) as v1, then Post/Redirect/Get. The form's `_key` makes it idempotent like v1's
 * Idempotency-Key: a double submission (a second tap, a phone resending after a lost answer) is
 * redirected to the first one's result instead of writing twice. A refused submission (4xx) changes
 * nothing and frees its key, so the corrected form can be sent again.
 */
export async function webWrite<T>(
  idempotency: IdempotencyService,
  request: FastifyRequest,
  reply: FastifyReply,
  w: WebWrite<T>,
): Promise<FastifyReply> {
  const key = w.fields instanceof URLSearchParams ? w.fields.get('_key') : w.fields._key;
  // Web keys live beside the tokens' ones, scoped by the negated user id (token ids are positive).
  const scope: IdempotencyScope | null =
    key && KEY.test(key) ? { tokenId: -w.user.id, key, method: 'POST', path: request.url.split('?')[0]! } : null;
  if (scope) {
    const fingerprint = w.fingerprint ?? hashJsonRequest(formValues(w.fields));
    const held = await idempotency.reserve(scope, fingerprint, request.id);
    if (held.kind === 'replay') return reply.redirect(held.body, 303);
    if (held.kind !== 'reserved') {
      return errorPage(
        request,
        reply,
        409,
        'This form was already sent and is being saved, or was sent with other values. Reload the page to see its current state.',
      );
    }
  }
  request.api.auditEntity = w.entity;
  request.api.sessionUser = w.user;
  try {
    const result = await w.write(() => auditRecord(request, 303, reply.elapsedTime));
    const location = w.redirect(result);
    if (scope) await idempotency.complete(scope, request.id, 303, location);
    return reply.redirect(location, 303);
  } catch (err) {
    if (scope) await idempotency.release(scope, request.id);
    if (err instanceof ApiError && (err.status === 422 || err.status === 409)) {
      const errors = err.details ?? [{ field: '', message: err.message }];
      return w.rerender({ form: w.form, values: formValues(w.fields), errors, message: err.message }, err.status);
    }
    throw err;
  }
}
