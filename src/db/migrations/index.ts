import type { Migration } from 'kysely';
import * as m001 from './001-initial.js';

/** Every migration, in order. Frozen once landed: a change is a new numbered file. */
export const migrations: Record<string, Migration> = {
  '001-initial': m001,
};
