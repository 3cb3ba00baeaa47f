import { type Actor, canAdminister } from '../../domain/policy.js';
import { forbidden } from '../../shared/errors.js';

/** Every administration use case starts here: global admins only (the policy decides). */
export function assertAdmin(actor: Actor): void {
  if (!canAdminister(actor)) throw forbidden('Administration is reserved to administrators');
}
