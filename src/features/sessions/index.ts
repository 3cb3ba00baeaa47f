/** The web's sessions and sign-in as one module. */
import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { createSessionsRepository } from './sessions.repository.js';
import { createSessionsService } from './sessions.service.js';

export function createSessionsModule(deps: { db: Db; clock: Clock }) {
  return { sessions: createSessionsService(createSessionsRepository(deps.db), deps.clock) };
}

export type SessionsModule = ReturnType<typeof createSessionsModule>;
