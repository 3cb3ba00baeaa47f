import { type Actor, canAdminister } from '../../domain/policy.js';
import { forbidden, validationError } from '../../errors.js';

/** Every administration use case starts here: global admins only (the policy decides). */
export function assertAdmin(actor: Actor): void {
  if (!canAdminister(actor)) throw forbidden('Administration is reserved to administrators');
}

/** A trimmed text of 1 to `max` characters (code points), or a 422 naming the field. */
export function requiredText(field: string, value: string | undefined, max: number): string {
  const text = (value ?? '').trim();
  if (!text || [...text].length > max) throw validationError(field, `must be 1 to ${max} characters`);
  return text;
}

/** A trimmed optional text of at most `max` characters. */
export function optionalText(field: string, value: string | undefined, max: number): string {
  const text = (value ?? '').trim();
  if ([...text].length > max) throw validationError(field, `must be at most ${max} characters`);
  return text;
}
