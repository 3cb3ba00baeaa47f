import type { Clock } from '../../shared/clock.js';
import type { Actor } from '../../domain/policy.js';
import { EVENT_TYPES, type EventType } from '../../domain/values.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { invalidField } from '../../i18n/reasons.js';
import type { RecordAudit } from '../audit/audit.service.js';
import type { EventsRepository } from '../events/events.repository.js';
import type { EventsService, EventView } from '../events/events.service.js';
import type { ProjectsService } from '../projects/projects.service.js';
import { DestinationRefused, type Delivery, resolveDestination, send } from './sender.js';
import { newWebhookSecret, webhookHeaders } from './signature.js';
import type { WebhookDeliveryRow, WebhookEndpointRow, WebhooksRepository } from './webhooks.repository.js';

export const WEBHOOK_TIMEOUT_MS = 15_000;
const MAX_URL_LENGTH = 2000;

export interface WebhookView {
  id: number;
  url: string;
  events: EventType[] | null;
  project_id: number | null;
  state: 'active' | 'disabled';
  disabled_reason: string | null;
  created_at: string;
}

function webhookView(row: WebhookEndpointRow): WebhookView {
  return {
    id: row.id,
    url: row.url,
    events: row.event_types === null ? null : (JSON.parse(row.event_types) as EventType[]),
    project_id: row.project_id,
    state: row.state,
    disabled_reason: row.disabled_reason,
    created_at: row.created_at,
  };
}

/** One POST of an event to an endpoint, Standard Webhooks signed; never throws (a refused destination is a failure). */
export async function deliverEvent(
  endpoint: Pick<WebhookEndpointRow, 'url' | 'secret'>,
  event: EventView,
  options: { allowPrivate: boolean; clock: Clock },
): Promise<Delivery> {
  const body = JSON.stringify(event);
  try {
    // Resolved and checked again at each delivery: DNS may point elsewhere since the endpoint was created.
    const destination = await resolveDestination(endpoint.url, { allowPrivate: options.allowPrivate });
    const headers = webhookHeaders(endpoint.secret, {
      id: `msg_${event.id}`,
      timestamp: Math.floor(options.clock.now().getTime() / 1000),
      body,
    });
    return await send(destination, headers, body, WEBHOOK_TIMEOUT_MS);
  } catch (err) {
    if (!(err instanceof DestinationRefused)) throw err;
    return { status: null, durationMs: 0, error: `the address ${err.message}`, body: '' };
  }
}

/** An endpoint with its last deliveries, for the Profile's webhooks block. */
export interface WebhookWithDeliveries extends WebhookView {
  deliveries: WebhookDeliveryRow[];
}

export interface WebhooksDeps {
  repo: WebhooksRepository;
  eventsRepo: EventsRepository;
  events: EventsService;
  projects: ProjectsService;
  clock: Clock;
  allowPrivate: boolean;
}

async function owned(deps: WebhooksDeps, owner: Actor, id: number): Promise<WebhookEndpointRow> {
  const endpoint = await deps.repo.find(id);
  if (!endpoint || endpoint.user_id !== owner.id) throw notFound('The webhook');
  return endpoint;
}

/** The event types asked for, deduplicated (null: every type); an unknown one is refused. */
function eventTypes(events: readonly string[] | null | undefined): string[] | null {
  const types = events && events.length > 0 ? [...new Set(events)] : null;
  const unknown = types?.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t)) ?? [];
  if (unknown.length) throw invalidField('events', 'reason.unknownEvents', { types: unknown.join(', '), known: EVENT_TYPES.join(', ') });
  return types;
}

/** The URL trimmed, refused when empty, too long or to a destination not allowed. */
async function checkedUrl(deps: WebhooksDeps, input: string): Promise<string> {
  const url = input.trim();
  if (!url) throw invalidField('url', 'reason.required');
  if (url.length > MAX_URL_LENGTH) throw invalidField('url', 'reason.atMost', { max: MAX_URL_LENGTH });
  try {
    await resolveDestination(url, { allowPrivate: deps.allowPrivate });
  } catch (err) {
    if (err instanceof DestinationRefused) throw invalidField('url', err.key, err.values);
    throw err;
  }
  return url;
}

/**
 * A new endpoint receiving the events recorded from now on; the secret is returned only here.
 * `recordAudit` commits with it (the web's Profile), as with disable and redeliver.
 */
async function createWebhook(
  deps: WebhooksDeps,
  owner: Actor,
  input: { url: string; events?: readonly string[] | null; projectId?: number | null },
  recordAudit?: RecordAudit,
) {
  const { repo, eventsRepo, projects, clock } = deps;
  const url = await checkedUrl(deps, input.url);
  const types = eventTypes(input.events);
  const projectId = input.projectId ?? null;
  if (projectId !== null) await projects.access(owner, projectId);
  const secret = newWebhookSecret();
  const cursor = await eventsRepo.lastId();
  const id = await repo.transaction(async (trx) => {
    const id = await repo.create(
      {
        user_id: owner.id,
        url: new URL(url).href,
        event_types: types ? JSON.stringify(types) : null,
        project_id: projectId,
        secret,
        state: 'active',
        cursor,
        created_at: clock.now().toISOString(),
      },
      trx,
    );
    await recordAudit?.(trx, { type: 'webhook', id });
    return id;
  });
  return { id, secret };
}

async function list(deps: WebhooksDeps, owner: Actor): Promise<WebhookView[]> {
  return (await deps.repo.byUser(owner.id)).map(webhookView);
}

/** The owner's endpoints, each with its latest deliveries. */
async function listWithDeliveries(deps: WebhooksDeps, owner: Actor, perEndpoint = 10): Promise<WebhookWithDeliveries[]> {
  const endpoints = await deps.repo.byUser(owner.id);
  return Promise.all(endpoints.map(async (e) => ({ ...webhookView(e), deliveries: await deps.repo.deliveries(e.id, perEndpoint) })));
}

async function disable(
  deps: WebhooksDeps,
  owner: Actor | null,
  id: number,
  options: { reason?: string; recordAudit?: RecordAudit } = {},
): Promise<void> {
  const { repo } = deps;
  const endpoint = owner ? await owned(deps, owner, id) : await repo.find(id);
  if (!endpoint) throw notFound('The webhook');
  await repo.transaction(async (trx) => {
    await repo.disable(id, options.reason ?? 'disabled by its owner', trx);
    await options.recordAudit?.(trx);
  });
}

/** Sends a logged delivery's event again, now, if its owner can still see it; logged as a redelivery. */
async function redeliver(deps: WebhooksDeps, owner: Actor, deliveryId: number, recordAudit?: RecordAudit) {
  const { repo, events, clock, allowPrivate } = deps;
  const delivery = await repo.findDelivery(deliveryId);
  const endpoint = delivery ? await repo.find(delivery.endpoint_id) : undefined;
  // Another user's delivery does not exist for this one: the same answer as a missing id.
  if (!delivery || !endpoint || endpoint.user_id !== owner.id) throw notFound('The delivery');
  const event = await events.findFor(owner, delivery.event_id);
  // Past EVENT_RETENTION_DAYS, or no longer visible to the owner.
  if (!event)
    throw new ApiError(
      404,
      'not_found',
      'The event of this delivery is no longer available to you (events are kept for a limited time, and only while you can see them)',
    );
  const result = await deliverEvent(endpoint, event, { allowPrivate, clock });
  await repo.transaction(async (trx) => {
    await repo.log(
      {
        endpoint_id: endpoint.id,
        event_id: event.id,
        attempt: 1,
        redelivery: 1,
        status: result.status !== null && result.status >= 200 && result.status < 300 ? 'succeeded' : 'failed',
        response_code: result.status,
        error: result.error,
        duration_ms: result.durationMs,
        at: clock.now().toISOString(),
      },
      trx,
    );
    await recordAudit?.(trx);
  });
  return result;
}

/**
 * Webhook endpoints, managed by their owner (the web Profile, `bin/punchlist webhooks`): created with a
 * secret shown once, listed with their deliveries, disabled, and a logged delivery sent again.
 */
export function createWebhooksService(deps: WebhooksDeps) {
  return {
    create: createWebhook.bind(null, deps),
    list: list.bind(null, deps),
    listWithDeliveries: listWithDeliveries.bind(null, deps),
    disable: disable.bind(null, deps),
    redeliver: redeliver.bind(null, deps),
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
