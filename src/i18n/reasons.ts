import { type ApiError, type FieldError, type FieldReason, validationError } from '../shared/errors.js';
import { isMessageKey, type Language, message, type MessageKey, type MessageValues } from './i18n.js';

/**
 * A 422 naming `field`, its reason a message of reasons.json: v1, the MCP tools and the CLI read the English (the
 * text they always had), a web page says it in its own language (`fieldMessage`). User content goes in `values`,
 * never into the key (STYLE.md 19).
 */
export function invalidField(field: string, key: MessageKey, values?: MessageValues): ApiError {
  return validationError(field, message('en', key, values), { key, ...(values ? { values } : {}) });
}

/** One field's complaint with its reason's key, for a service that gathers several (`invalidData`). */
export function fieldError(field: string, key: MessageKey, values?: MessageValues): FieldError {
  return { field, message: message('en', key, values), reason: { key, ...(values ? { values } : {}) } };
}

/** A schema's own refusal (`schemaRefusal`) of `field`, worded in English as v1 answers it. */
export function schemaFieldError(field: string, reason: FieldReason): FieldError {
  return isMessageKey(reason.key) ? fieldError(field, reason.key, reason.values) : { field, message: 'is invalid' };
}

/** A field's complaint in `language`: its reason's message, else (a reason nobody keyed yet) the service's English. */
export function fieldMessage(language: Language, error: FieldError): string {
  const key = error.reason?.key;
  return key !== undefined && isMessageKey(key) ? message(language, key, error.reason?.values) : error.message;
}
