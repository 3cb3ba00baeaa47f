import type { MessageKey, MessageValues } from '../i18n/i18n.js';
import { invalidField } from '../i18n/reasons.js';
import { nameReason } from './inputs.js';
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
  if (!(FIELD_KINDS as readonly string[]).includes(value ?? ''))
    throw invalidField(key, 'reason.chooseOneOf', { values: FIELD_KINDS.join(', ') });
  return value as FieldKind;
}

/** A choice's options, one per line in the form: trimmed, blank lines dropped, each once; a choice needs at least one. */
export function fieldOptions(kind: FieldKind, lines: string | readonly string[] | undefined, key = 'options'): string[] {
  const given = typeof lines === 'string' ? lines.split(/\r?\n/) : [...(lines ?? [])];
  const options = [...new Set(given.map((o) => o.trim()).filter((o) => o !== ''))];
  if (kind !== 'choice') {
    if (options.length) throw invalidField(key, 'reason.onlyChoiceOptions');
    return [];
  }
  if (options.length === 0) throw invalidField(key, 'reason.giveOptions');
  if (options.length > MAX_OPTIONS) throw invalidField(key, 'reason.atMostOptions', { max: MAX_OPTIONS });
  for (const option of options) {
    if ([...option].length > MAX_OPTION_LENGTH) throw invalidField(key, 'reason.optionLength', { max: MAX_OPTION_LENGTH });
    const problem = nameReason(option);
    if (problem) throw invalidField(key, problem.key, problem.values);
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
  // The field's name is user content: an argument of the reason, never part of its source.
  const refuse = (reason: MessageKey, values?: MessageValues) => invalidField(key, reason, { name: field.name, ...values });
  switch (field.kind) {
    case 'text': {
      if ([...text].length > MAX_FIELD_TEXT_LENGTH) throw refuse('reason.field.atMost', { max: MAX_FIELD_TEXT_LENGTH });
      if (text.includes('\u0000') || /\p{Cs}/u.test(text)) throw refuse('reason.field.unstorable');
      return { ...NO_VALUE, text_value: text };
    }
    case 'number': {
      const number = Number(text);
      if (!NUMBER.test(text) || !Number.isFinite(number)) throw refuse('reason.field.number');
      return { ...NO_VALUE, number_value: number };
    }
    case 'date':
      if (!isCalendarDate(text)) throw refuse('reason.field.date');
      return { ...NO_VALUE, date_value: text };
    case 'choice':
      if (!field.options.includes(text)) throw refuse('reason.field.choice', { values: field.options.join(', ') });
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
  if (field.required && valueText(value) === null) throw invalidField(key, 'reason.field.required', { name: field.name });
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
