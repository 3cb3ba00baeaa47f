import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Static, TObject } from 'typebox';
import { Value } from 'typebox/value';
import { type DocumentLinkInput, normalizeDocumentLinks } from '../domain/inputs.js';
import { MAX_LINKS } from '../domain/values.js';
import { ApiError, type FieldError, type FieldReason } from '../shared/errors.js';
import { isMessageKey, type MessageKey, type MessageValues } from '../i18n/i18n.js';
import { fieldError } from '../i18n/reasons.js';
import { urlEncodedForms } from '../http/form-body.js';

/** Forms are small: names, reasons, a few checkboxes. */
const FORM_BODY_LIMIT = 64 * 1024;

/**
 * The web scope accepts `application/x-www-form-urlencoded` bodies only (what HTML forms send without
 * files), parsed into URLSearchParams (http/form-body.ts); the /api scope keeps its own strict JSON parser.
 */
export async function formBodies(app: FastifyInstance) {
  app.removeAllContentTypeParsers();
  await urlEncodedForms(app, FORM_BODY_LIMIT);
}

/** The parsed form of a POST (empty when there was no body). */
export function formOf(request: FastifyRequest): URLSearchParams {
  return request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
}

/** A positive integer id written in decimal (route params, form values), else null. */
export function parseId(value: string | null | undefined): number | null {
  return value && /^[1-9][0-9]{0,15}$/.test(value) ? Number(value) : null;
}

/**
 * A form's "Company" (docs/design.md §20): undefined when the form has no such field (nothing to change), null for
 * "No company", the id otherwise; a value that is no id is 0, which no company has (the service answers 422).
 */
export function companyOf(form: URLSearchParams): number | null | undefined {
  if (!form.has('company')) return undefined;
  const value = form.get('company') ?? '';
  return value === '' ? null : (parseId(value) ?? 0);
}

/** A form's field as sent, "" when absent (what a text control that was left out reads as). */
export const textField = (form: URLSearchParams, name: string) => form.get(name) ?? '';

/** A form's field as sent, undefined when absent (`parseFields` then says a required one is required, as v1 does). */
export const sentField = (form: URLSearchParams, name: string) => form.get(name) ?? undefined;

/** The id route parameter; a malformed id is a page that does not exist. */
export function idParam(request: FastifyRequest, name = 'id'): number {
  const id = parseId((request.params as Record<string, string | undefined>)[name]);
  if (id === null) throw new ApiError(404, 'not_found', 'This page does not exist');
  return id;
}

/** The ids among a repeated field's values, ignoring malformed values. */
export const idsIn = (values: readonly string[]): number[] => values.map(parseId).filter((id): id is number => id !== null);

/** Every id of a repeated form field, ignoring malformed values. */
export const idsOf = (form: URLSearchParams, name: string): number[] => idsIn(form.getAll(name));

/** Link rows a web form shows: the current links and this many empty rows to add new ones. */
export const EMPTY_LINK_ROWS = 3;

/**
 * The document links of a form's numbered rows (`link-0-kind`, `link-0-title`, `link-0-url`, …). A row
 * left empty (no title, no URL) is no link: emptying a row removes that link. A refused link is named
 * by its row (`link-2-url`), so the message shows beside it.
 */
export function documentLinksOf(get: (name: string) => string | null | undefined): DocumentLinkInput[] {
  const rows: { row: number; link: DocumentLinkInput }[] = [];
  for (let row = 0; row < MAX_LINKS + EMPTY_LINK_ROWS; row++) {
    const title = get(`link-${row}-title`)?.trim() ?? '';
    const url = get(`link-${row}-url`)?.trim() ?? '';
    if (title || url) rows.push({ row, link: { kind: get(`link-${row}-kind`) || undefined, title, url } });
  }
  try {
    normalizeDocumentLinks(rows.map((r) => r.link));
  } catch (err) {
    if (!(err instanceof ApiError) || !err.details) throw err;
    const details = err.details.map((d) => ({
      ...d,
      field: d.field.replace(/^document_links\[(\d+)\]\.(\w+)$/, (_, i: string, prop: string) => `link-${rows[Number(i)]!.row}-${prop}`),
    }));
    throw new ApiError(422, 'validation_error', details.map((d) => `${d.field}: ${d.message}`).join('; '), details);
  }
  return rows.map((r) => r.link);
}

/** A coordinate typed or tapped (a place on a plan): a decimal number, else NaN (refused by the place's check, 422). */
export const fractionOf = (value: string | null | undefined) =>
  value && /^[0-9]*\.?[0-9]+$/.test(value.trim()) ? Number(value) : Number.NaN;

/**
 * The item forms' category and custom field values (docs/design.md §21), as the write takes them: undefined when
 * the form had none of these controls (`vocabulary_sent` absent); "" for the category is none; a category that is
 * no id is refused (422 beside it) by the write, as one of another project is.
 */
export function vocabularyOf(form: URLSearchParams): { categoryId?: number | null; values: Map<number, string> } | undefined {
  if (!form.has('vocabulary_sent')) return undefined;
  const values = new Map<number, string>();
  for (const [key, value] of form) {
    const id = /^field_([1-9][0-9]{0,15})$/.exec(key)?.[1];
    if (id !== undefined) values.set(Number(id), value);
  }
  const category = form.get('category');
  if (category === null) return { values };
  return { categoryId: category === '' ? null : (parseId(category) ?? 0), values };
}

/** What a validation error says of a value, and where in the schema (TypeBox's own error record). */
type SchemaError = ReturnType<typeof Value.Errors>[number];

/** A node of the schema: what a refusal may read there (its own reason, a union's members, a literal). */
interface SchemaNode {
  errorMessage?: unknown;
  errorReason?: FieldReason;
  anyOf?: { const?: unknown }[];
}

/** The sub-schema a validation error points at (`#/properties/x/items/…`), for its own `errorMessage`. */
function schemaAt(schema: TObject, path: string): SchemaNode | undefined {
  let node: unknown = schema;
  for (const part of path.replace(/^#\/?/, '').split('/').filter(Boolean)) node = (node as Record<string, unknown> | undefined)?.[part];
  return node as SchemaNode | undefined;
}

/** A field as v1 names it (api/envelope.ts): `/document_links/0/url` is `document_links[0].url`. */
const fieldOf = (instancePath: string) =>
  instancePath
    .split('/')
    .filter(Boolean)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('');

/** Where the union an error's literal belongs to is (`#/properties/x/anyOf/1` → `#/properties/x`). */
const unionPath = (error: SchemaError) => error.schemaPath.replace(/\/anyOf\/\d+$/, '');

/** A union of literals (a select's options): its values, else null. */
function literalsOf(node: SchemaNode | undefined): string | null {
  const members = node?.anyOf;
  return members?.length && members.every((m) => m.const !== undefined) ? members.map((m) => String(m.const)).join(', ') : null;
}

const TYPE_REASONS: Record<string, MessageKey> = {
  string: 'reason.string',
  boolean: 'reason.boolean',
  integer: 'reason.integer',
  number: 'reason.number',
  array: 'reason.list',
  object: 'reason.object',
};

/** Why TypeBox refused a value its schema gave no reason for: the kind of check and its limit, as a reason's key. */
function checkReason(schema: TObject, error: SchemaError): [MessageKey, MessageValues?] {
  const params = error.params as { limit?: number; allowedValues?: unknown[]; format?: string; type?: string };
  const limit = params.limit ?? 0;
  switch (error.keyword) {
    case 'enum':
      return ['reason.mustBeOneOf', { values: (params.allowedValues ?? []).map(String).join(', ') }];
    case 'const':
    case 'anyOf': {
      const values = literalsOf(schemaAt(schema, unionPath(error)));
      return values === null ? ['reason.invalid'] : ['reason.mustBeOneOf', { values }];
    }
    case 'minLength':
      return ['reason.atLeast', { min: limit }];
    case 'maxLength':
      return ['reason.atMost', { max: limit }];
    case 'minItems':
      return ['reason.atLeastItems', { min: limit }];
    case 'maxItems':
      return ['reason.atMostItems', { max: limit }];
    case 'minimum':
      return ['reason.minimum', { limit }];
    case 'maximum':
      return ['reason.maximum', { limit }];
    case 'exclusiveMinimum':
      return ['reason.above', { limit }];
    case 'exclusiveMaximum':
      return ['reason.below', { limit }];
    case 'pattern':
      return ['reason.pattern'];
    case 'format':
      return params.format === 'email' ? ['reason.email'] : ['reason.format', { format: String(params.format) }];
    case 'uniqueItems':
      return ['reason.unique'];
    case 'type':
      return [TYPE_REASONS[String(params.type)] ?? 'reason.invalid'];
    default:
      return ['reason.invalid'];
  }
}

/**
 * A refused value's complaint: the schema's own reason (`errorReason`, i18n/schema-refusal.ts, which v1 words in
 * English), else its `errorMessage` when only that is set (v1's own schemas), else the reason of the check that failed.
 */
function complaint(schema: TObject, field: string, error: SchemaError): FieldError {
  if (error.keyword === 'required') return fieldError(field, 'reason.required');
  // A literal of a union (a select's option) says nothing of its own: the union speaks for it.
  const at = schemaAt(schema, error.schemaPath);
  const own = at?.errorReason || typeof at?.errorMessage === 'string' ? at : schemaAt(schema, unionPath(error));
  if (own?.errorReason && isMessageKey(own.errorReason.key)) return fieldError(field, own.errorReason.key, own.errorReason.values);
  if (typeof own?.errorMessage === 'string') return { field, message: own.errorMessage };
  return fieldError(field, ...checkReason(schema, error));
}

/**
 * A form's fields, parsed with the TypeBox schema of the v1 operation it mirrors (http/write-inputs.ts) or with its
 * own beside its page: `fields` is what the form sent, shaped as the schema takes it (a field the form did not send
 * is undefined, a checkbox a boolean). A refusal is a 422 naming each field as v1 names it, with the schema's message
 * (`errorMessage`, as v1 answers it) or the failed check's, each with its reason's key so that the page says it in
 * its language, beside the field.
 */
export function parseFields<T extends TObject>(schema: T, fields: Record<string, unknown>): Static<T> {
  const value = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  if (Value.Check(schema, value)) return value as Static<T>;
  const details = new Map<string, FieldError>();
  for (const error of Value.Errors(schema, value)) {
    const missing = error.keyword === 'required' ? (error.params as { requiredProperties?: string[] }).requiredProperties : undefined;
    for (const field of missing ?? [fieldOf(error.instancePath)]) {
      if (!details.has(field)) details.set(field, complaint(schema, field, error));
    }
  }
  const list = [...details.values()];
  throw new ApiError(422, 'validation_error', list.map((d) => `${d.field}: ${d.message}`).join('; '), list);
}
