import { validationError } from '../shared/errors.js';
import { nameProblem } from './inputs.js';
import { isCalendarDate } from './values.js';

/**
 * The rules of a project's own vocabulary (docs/design.md §21): the kinds of custom field, their options, and a
 * value of each kind — read from its text (a form, a fixture, v1's string format), stored TYPED in the column of
 * its kind, and written back as the same string. Pure: no I/O.
 */
export const FIELD_KINDS = ['text', 'number', 'date', 'choice'] as const;
export type FieldKind = (typeof FIELD_KINDS)[number];

export const MAX_FIELD_TEXT_LENGTH = 1000;
export const MAX_OPTIONS = 50;
export const MAX_OPTION_LENGTH = 100;

/** A field as its value's rules need it. */
export interface FieldRule {
  id: number;
  name: string;
  kind: FieldKind;
  options: readonly string[];
  required: boolean;
}

/** A value as the database holds it: exactly one column set (all null: no value, no row). */
export interface TypedValue {
  text_value: string | null;
  number_value: number | null;
  date_value: string | null;
  option_value: string | null;
}

export const NO_VALUE: TypedValue = { text_value: null, number_value: null, date_value: null, option_value: null };

export function fieldKind(value: string | undefined, key = 'kind'): FieldKind {
  if (!(FIELD_KINDS as readonly string[]).includes(value ?? '')) throw validationError(key, `choose one of ${FIELD_KINDS.join(', ')}`);
  return value as FieldKind;
}

/** A choice's options, one per line in the form: trimmed, blank lines dropped, each once; a choice needs at least one. */
export function fieldOptions(kind: FieldKind, lines: string | readonly string[] | undefined, key = 'options'): string[] {
  const given = typeof lines === 'string' ? lines.split(/\r?\n/) : [...(lines ?? [])];
  const options = [...new Set(given.map((o) => o.trim()).filter((o) => o !== ''))];
  if (kind !== 'choice') {
    if (options.length) throw validationError(key, 'only a choice field has options');
    return [];
  }
  if (options.length === 0) throw validationError(key, 'give the options of the choice, one per line');
  if (options.length > MAX_OPTIONS) throw validationError(key, `at most ${MAX_OPTIONS} options`);
  for (const option of options) {
    if ([...option].length > MAX_OPTION_LENGTH) throw validationError(key, `an option has at most ${MAX_OPTION_LENGTH} characters`);
    const problem = nameProblem(option);
    if (problem) throw validationError(key, problem);
  }
  return options;
}

/** The key of a field's control in forms, and of its refusal (422 beside it). */
export const fieldKey = (fieldId: number) => `field_${fieldId}`;

const NUMBER = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;

/**
 * A value of `field` from its text: "" is no value. Wrong kind → 422 on the field's key, naming the field.
 * `key` overrides where the refusal is reported (fixtures name the field by its name).
 */
export function typedValue(field: FieldRule, raw: string, key = fieldKey(field.id)): TypedValue {
  const text = raw.trim();
  if (text === '') return NO_VALUE;
  const refuse = (message: string) => validationError(key, `${field.name}: ${message}`);
  switch (field.kind) {
    case 'text': {
      if ([...text].length > MAX_FIELD_TEXT_LENGTH) throw refuse(`must be at most ${MAX_FIELD_TEXT_LENGTH} characters`);
      if (text.includes('\u0000') || /\p{Cs}/u.test(text)) throw refuse('contains characters that cannot be stored');
      return { ...NO_VALUE, text_value: text };
    }
    case 'number': {
      const number = Number(text);
      if (!NUMBER.test(text) || !Number.isFinite(number)) throw refuse('must be a number, such as 1250 or 12.5');
      return { ...NO_VALUE, number_value: number };
    }
    case 'date':
      if (!isCalendarDate(text)) throw refuse('must be a real date written YYYY-MM-DD');
      return { ...NO_VALUE, date_value: text };
    case 'choice':
      if (!field.options.includes(text)) throw refuse(`choose one of ${field.options.join(', ')}`);
      return { ...NO_VALUE, option_value: text };
  }
}

/** The value as v1, reports and forms show it (the same string it was given in); null: no value. */
export function valueText(value: TypedValue): string | null {
  if (value.text_value !== null) return value.text_value;
  if (value.number_value !== null) return String(value.number_value);
  if (value.date_value !== null) return value.date_value;
  return value.option_value;
}

/** A required field left empty (on create, or cleared later): 422 beside it. */
export function assertRequired(field: FieldRule, value: TypedValue, key = fieldKey(field.id)) {
  if (field.required && valueText(value) === null) throw validationError(key, `${field.name}: is required`);
}

/** An item's field values by the field's name, in the order given (the fields'), for the card, tree and reports. */
export function fieldsView(rows: readonly (TypedValue & { name: string })[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const row of rows) {
    const text = valueText(row);
    if (text !== null) fields[row.name] = text;
  }
  return fields;
}
