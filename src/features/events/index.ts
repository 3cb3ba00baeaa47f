/** The event outbox and the change feed read from it (docs/design.md §11) as one module. */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import { createEventsRepository } from './events.repository.js';
import { createEventsService, type EventsDeps } from './events.service.js';

export function createEventsModule(deps: { db: Kysely<Database> } & Omit<EventsDeps, 'repo'>) {
  const eventsRepo = createEventsRepository(deps.db);
  return {
    events: createEventsService({ repo: eventsRepo, projectsRepo: deps.projectsRepo, projects: deps.projects, items: deps.items }),
    /** The outbox's statements: its consumers' cursors (notifications, webhooks) and the last event's id. */
    eventsRepo,
  };
}

export type EventsModule = ReturnType<typeof createEventsModule>;
