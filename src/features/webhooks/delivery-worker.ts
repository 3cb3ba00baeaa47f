import type { Clock } from '../../shared/clock.js';
import type { EventType, UserRole } from '../../domain/values.js';
import type { EventsService, EventView } from '../events/events.service.js';
import type { JobRunner } from '../../jobs/job-runner.js';
import type { WebhooksRepository } from './webhooks.repository.js';
import type { Delivery } from './sender.js';
import { deliverEvent, WEBHOOK_TIMEOUT_MS } from './webhooks.service.js';

/** Retries of one event: about 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, then every 4 h, each ±20 %; 24 h in all. */
const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000];
const GIVE_UP_AFTER_MS = 24 * 3_600_000;

function retryDelay(attempt: number, random = Math.random): number {
  const base = RETRY_DELAYS_MS[Math.min(attempt - 1, RETRY_DELAYS_MS.length - 1)]!;
  return Math.round(base * (0.8 + 0.4 * random()));
}

interface DeliveryWorkerOptions {
  allowPrivate: boolean;
  /** Endpoints delivered to at once (each in order, one event at a time). */
  concurrency?: number;
  /** How often the outbox is looked at when no commit on this node woke the worker (other nodes' events, retries). */
  pollMs?: number;
  onError?: (err: unknown) => void;
  /** Called once an endpoint was disabled by the worker (its owner is notified, docs/design.md §15). */
  onDisabled?: (endpoint: { id: number; user_id: number; url: string }, reason: string) => void;
}

export interface DeliveryWorkerDeps {
  repo: WebhooksRepository;
  events: EventsService;
  clock: Clock;
  jobs: JobRunner;
}

type DueEndpoint = Awaited<ReturnType<WebhooksRepository['due']>>[number];

/** Where an endpoint's delivery stands while this node serves it. */
interface Progress {
  cursor: number;
  attempts: number;
  failingSince: string | null;
}

async function disableEndpoint(
  deps: DeliveryWorkerDeps,
  options: DeliveryWorkerOptions,
  endpoint: { id: number; user_id: number; url: string },
  reason: string,
): Promise<void> {
  if (await deps.repo.disable(endpoint.id, reason)) options.onDisabled?.(endpoint, reason);
}

/**
 * Logs a delivery of `event` and moves on: true to deliver the next event, false when the endpoint is done for
 * now (disabled after a 410 or 24 h of failure, or waiting for a retry).
 */
async function recordDelivery(
  deps: DeliveryWorkerDeps,
  options: DeliveryWorkerOptions,
  endpoint: DueEndpoint,
  event: EventView,
  result: Delivery,
  progress: Progress,
): Promise<boolean> {
  const { repo, clock } = deps;
  const ok = result.status !== null && result.status >= 200 && result.status < 300;
  const at = clock.now();
  await repo.log({
    endpoint_id: endpoint.id,
    event_id: event.id,
    attempt: progress.attempts + 1,
    status: ok ? 'succeeded' : 'failed',
    response_code: result.status,
    error: result.error,
    duration_ms: result.durationMs,
    at: at.toISOString(),
  });
  if (ok) {
    progress.cursor = event.id;
    progress.attempts = 0;
    progress.failingSince = null;
    await repo.advance(endpoint.id, progress.cursor);
    return true;
  }
  if (result.status === 410) {
    await disableEndpoint(deps, options, endpoint, `the receiver answered 410 Gone to event ${event.id}`);
    return false;
  }
  progress.attempts += 1;
  progress.failingSince ??= at.toISOString();
  const why = result.status !== null ? `HTTP ${result.status}` : (result.error ?? 'no answer');
  if (at.getTime() - Date.parse(progress.failingSince) >= GIVE_UP_AFTER_MS) {
    await disableEndpoint(deps, options, endpoint, `every delivery of event ${event.id} failed for 24 hours (last: ${why})`);
    return false;
  }
  const nextAttemptAt = new Date(at.getTime() + retryDelay(progress.attempts)).toISOString();
  await repo.retryLater(endpoint.id, progress.attempts, progress.failingSince, nextAttemptAt);
  return false;
}

/** Delivers an endpoint's events in order while this node holds its lease (taken once, for a minute). */
async function serve(
  deps: DeliveryWorkerDeps,
  options: DeliveryWorkerOptions,
  endpoint: DueEndpoint,
  stopped: () => boolean,
): Promise<void> {
  const { repo, events, clock } = deps;
  const store = deps.jobs.store;
  const start = clock.now();
  const until = start.getTime() + WEBHOOK_TIMEOUT_MS * 4;
  if (!(await store.claim('webhook_endpoints', endpoint.id, 'active', start.toISOString(), new Date(until).toISOString()))) return;
  const owner = { id: endpoint.user_id, role: endpoint.owner_role as UserRole };
  const types = endpoint.event_types === null ? null : (JSON.parse(endpoint.event_types) as EventType[]);
  const progress: Progress = { cursor: endpoint.cursor, attempts: endpoint.attempts, failingSince: endpoint.failing_since };
  try {
    // Stops in time to finish a delivery (15 s at most) before the lease ends; the next look goes on.
    while (!stopped() && clock.now().getTime() + WEBHOOK_TIMEOUT_MS < until) {
      // Read before the next event: every id up to it has committed (events.repository.ts, lastId).
      const last = await events.lastId();
      const event = await events.nextFor(owner, { after: progress.cursor, upTo: last, projectId: endpoint.project_id, types });
      if (!event) {
        // What lies between is not for this endpoint (another type or project) or not visible to its owner
        // now: visibility is that of delivery time, so the endpoint is done with it.
        if (last > progress.cursor) await repo.advance(endpoint.id, last);
        return;
      }
      const result = await deliverEvent(endpoint, event, { allowPrivate: options.allowPrivate, clock });
      if (!(await recordDelivery(deps, options, endpoint, event, result, progress))) return;
    }
  } finally {
    await store.unclaim('webhook_endpoints', endpoint.id).catch(() => {});
  }
}

/**
 * Delivers the events to the webhook endpoints, inside the server process, on every node. Each endpoint
 * reads the outbox from its cursor, in order; a node takes an endpoint's lease (a conditional UPDATE) before
 * delivering, so at most one node delivers an event. A failing endpoint waits (exponential backoff with
 * jitter) without holding back the others; after 24 h of failure, or a 410, it is disabled with the reason.
 * Who may see an event is checked when it is delivered, as the endpoint's owner; deactivated owners' endpoints
 * are not served. Requests never wait for any of this: it is a job of the runner (src/jobs), run on its poll and
 * after commits; the endpoints' leases are claims of the job store.
 */
export function createDeliveryWorker(deps: DeliveryWorkerDeps, options: DeliveryWorkerOptions) {
  const { repo, events, clock } = deps;
  const concurrency = options.concurrency ?? 8;
  const inFlight = new Set<number>();
  let stopped = false;
  let pending = 0;
  const work = new Set<Promise<void>>();

  async function tick(): Promise<{ backlog: number }> {
    // A look runs only while the job runs (or drains): its deliveries may go on until onStop.
    stopped = false;
    const free = concurrency - inFlight.size;
    if (free > 0) {
      const due = await repo.due(clock.now().toISOString(), free + inFlight.size);
      for (const endpoint of due) {
        if (inFlight.size >= concurrency || inFlight.has(endpoint.id)) continue;
        inFlight.add(endpoint.id);
        const delivery = serve(deps, options, endpoint, () => stopped)
          .catch((err: unknown) => options.onError?.(err))
          .finally(() => {
            inFlight.delete(endpoint.id);
            work.delete(delivery);
            // Another look for what came meanwhile, after the event loop had its turn.
            if (!stopped) setImmediate(job.wake);
          });
        work.add(delivery);
      }
    }
    pending = await repo.pending();
    return { backlog: pending };
  }

  const job = deps.jobs.job({
    name: 'webhook-deliveries',
    run: tick,
    everyMs: options.pollMs ?? 1000,
    wakeOn: events.onCommitted,
    // A commit asks for a look at once, as before the runner: deliveries are per endpoint, not batched.
    settleMs: 0,
    // Lets the deliveries under way finish (at most the 15 s timeout).
    onStop: async () => {
      stopped = true;
      await Promise.allSettled([...work]);
    },
  });

  return {
    start: job.start,
    /** Deliveries waiting (events after the cursors of active endpoints), as of the last look. */
    get pending() {
      return pending;
    },
    /** Lets the deliveries under way finish (at most the 15 s timeout), then stops. */
    stop: job.stop,
  };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
