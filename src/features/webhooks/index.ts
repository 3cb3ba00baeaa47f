/** Webhooks as one module: the endpoints people register and the deliveries to them (a job of every node). */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import type { JobRunner } from '../../jobs/job-runner.js';
import type { Clock } from '../../shared/clock.js';
import type { EventsRepository } from '../events/events.repository.js';
import type { EventsService } from '../events/events.service.js';
import type { ProjectsService } from '../projects/projects.service.js';
import { createDeliveryWorker } from './delivery-worker.js';
import { createWebhooksRepository } from './webhooks.repository.js';
import { createWebhooksService } from './webhooks.service.js';

export interface WebhooksModuleDeps {
  db: Kysely<Database>;
  events: EventsService;
  eventsRepo: EventsRepository;
  projects: ProjectsService;
  clock: Clock;
  jobs: JobRunner;
  /** WEBHOOK_ALLOW_PRIVATE: deliveries to private addresses (tests, a closed network). */
  allowPrivate: boolean;
  /** Told when the deliveries to an endpoint stopped (its owner is notified). */
  onDisabled: (endpoint: { id: number; user_id: number; url: string }, reason: string) => void;
}

export function createWebhooksModule(deps: WebhooksModuleDeps) {
  const { events, clock, allowPrivate } = deps;
  const repo = createWebhooksRepository(deps.db);
  return {
    webhooks: createWebhooksService({ repo, eventsRepo: deps.eventsRepo, events, projects: deps.projects, clock, allowPrivate }),
    webhookWorker: createDeliveryWorker({ repo, events, clock, jobs: deps.jobs }, { allowPrivate, onDisabled: deps.onDisabled }),
  };
}

export type WebhooksModule = ReturnType<typeof createWebhooksModule>;
