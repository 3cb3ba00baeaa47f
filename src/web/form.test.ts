import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { Priority, Text } from '../http/write-inputs.js';
import { fieldMessage } from '../i18n/reasons.js';
import { ApiError } from '../shared/errors.js';
import { parseFields } from './form.js';

/** The complaints of a refused parse, as `[field, English, Russian]`. */
function refusal(schema: Parameters<typeof parseFields>[0], fields: Record<string, unknown>): [string, string, string][] {
  try {
    parseFields(schema, fields);
  } catch (err) {
    if (!(err instanceof ApiError) || !err.details) throw err;
    return err.details.map((d) => [d.field, d.message, fieldMessage('ru', d)]);
  }
  throw new Error('the fields were accepted');
}

describe('parseFields: every refusal has a reason, said in the page language', () => {
  it("keeps a schema's own English (v1's wording) and keys it", () => {
    expect(refusal(Type.Object({ text: Text, priority: Priority }), { text: 3, priority: 'urgent' })).toEqual([
      ['text', 'must be a string', 'должно быть строкой'],
      ['priority', 'must be one of low, medium, high', 'допустимо одно из: low, medium, high'],
    ]);
  });

  it("says TypeBox's own checks by their kind and limit, a union of literals as its options", () => {
    const schema = Type.Object({
      name: Type.String({ minLength: 3 }),
      code: Type.String({ maxLength: 2 }),
      kind: Type.Union([Type.Literal('text'), Type.Literal('choice')]),
      count: Type.Integer({ minimum: 1 }),
      email: Type.String({ format: 'email' }),
      tag: Type.String({ pattern: '^[a-z]+$' }),
    });
    expect(refusal(schema, { name: 'ab', code: 'abc', kind: 'date', count: 0, email: 'nobody', tag: 'A1' })).toEqual([
      ['name', 'must be at least 3 characters', 'не менее 3 символов'],
      ['code', 'must be at most 2 characters', 'не более 2 символов'],
      ['kind', 'must be one of text, choice', 'допустимо одно из: text, choice'],
      ['count', 'must be 1 or more', 'не меньше 1'],
      ['email', 'must be an email address', 'нужен адрес электронной почты'],
      ['tag', 'is not in the expected form', 'не соответствует ожидаемому виду'],
    ]);
    expect(refusal(Type.Object({ flag: Type.Boolean(), size: Type.Number() }), { flag: 'yes', size: '3' })).toEqual([
      ['flag', 'must be true or false', 'должно быть true или false'],
      ['size', 'must be a number', 'нужно число'],
    ]);
    expect(refusal(schema, {})[0]).toEqual(['name', 'is required', 'обязательное поле']);
  });

  it('keeps a message nobody keyed as it is', () => {
    expect(refusal(Type.Object({ id: Type.String({ pattern: '^[0-9]+$', errorMessage: 'must be an id' }) }), { id: 'x' })).toEqual([
      ['id', 'must be an id', 'must be an id'],
    ]);
  });
});
