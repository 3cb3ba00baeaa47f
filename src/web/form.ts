import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Static, TObject } from 'typebox';
import { Value } from 'typebox/value';
import { type DocumentLinkInput, normalizeDocumentLinks } from '../domain/inputs.js';
import { MAX_LINKS } from '../domain/values.js';
import { ApiError, type FieldError } from '../shared/errors.js';
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

/** The sub-schema a validation error points at (`#/properties/x/items/…`), for its own `errorMessage`. */
function schemaAt(schema: TObject, path: string): { errorMessage?: unknown } | undefined {
  let node: unknown = schema;
  for (const part of path.replace(/^#\/?/, '').split('/').filter(Boolean)) node = (node as Record<string, unknown> | undefined)?.[part];
  return node as { errorMessage?: unknown } | undefined;
}

/** A field as v1 names it (api/envelope.ts): `/document_links/0/url` is `document_links[0].url`. */
const fieldOf = (instancePath: string) =>
  instancePath
    .split('/')
    .filter(Boolean)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('');

/**
 * A form's fields, parsed with the TypeBox schema of the v1 operation it mirrors (http/write-inputs.ts) or with its
 * own beside its page: `fields` is what the form sent, shaped as the schema takes it (a field the form did not send
 * is undefined, a checkbox a boolean). A refusal is a 422 naming each field as v1 names it, with the schema's message
 * (`errorMessage`, as v1 answers it), so the page shows it beside the field.
 */
export function parseFields<T extends TObject>(schema: T, fields: Record<string, unknown>): Static<T> {
  const value = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  if (Value.Check(schema, value)) return value as Static<T>;
  const details = new Map<string, FieldError>();
  for (const error of Value.Errors(schema, value)) {
    const missing = error.keyword === 'required' ? (error.params as { requiredProperties?: string[] }).requiredProperties : undefined;
    for (const field of missing ?? [fieldOf(error.instancePath)]) {
      const own = schemaAt(schema, error.schemaPath)?.errorMessage;
      const message = missing ? 'is required' : typeof own === 'string' ? own : error.message;
      if (!details.has(field)) details.set(field, { field, message });
    }
  }
  const list = [...details.values()];
  throw new ApiError(422, 'validation_error', list.map((d) => `${d.field}: ${d.message}`).join('; '), list);
}
