/** People's accounts as one module. */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { Clock } from '../../shared/clock.js';
import { createUsersRepository } from './users.repository.js';
import { createUsersService } from './users.service.js';

export function createUsersModule(deps: { db: Kysely<Database>; clock: Clock }) {
  return { users: createUsersService(createUsersRepository(deps.db), deps.clock) };
}

export type UsersModule = ReturnType<typeof createUsersModule>;
