import type { Clock } from '../../shared/clock.js';
import type { EventsRepository } from '../events/events.repository.js';
import { createOutboxConsumer } from '../events/outbox-consumer.js';
import type { EmailSender } from './email-sender.js';
import type { NotificationsRepository } from './notifications.repository.js';
import type { NotificationsService } from './notifications.service.js';
import { TOLD_TYPES } from './notification-kinds.js';

/** How often each node runs the scheduled pass (deadlines, token expiry, digests). */
const SCHEDULE_MS = 60_000;

/**
 * The background work of notifications, started by the server (main.ts) on every node: the outbox consumer
 * that turns events into notifications (one node at a time: its lease), the scheduled pass (idempotent, on
 * every node) and, with SMTP_URL, the email sender (each email claimed by one node).
 */
export function createNotificationWorker(
  deps: {
    service: NotificationsService;
    repo: NotificationsRepository;
    eventsRepo: EventsRepository;
    onCommitted: (listener: () => void) => void;
    clock: Clock;
    sender: EmailSender | null;
  },
  options: { onError?: (err: unknown) => void } = {},
) {
  const { service, sender } = deps;
  const consumer = createOutboxConsumer(
    { store: deps.repo, events: deps.eventsRepo, clock: deps.clock },
    (events) => service.handleEvents(events),
    { name: 'notifications', types: TOLD_TYPES, onError: options.onError, onBatch: () => sender?.wake() },
  );
  let timer: NodeJS.Timeout | null = null;
  let scheduled: Promise<unknown> | null = null;
  const runScheduled = () => {
    scheduled ??= service
      .runScheduled()
      .catch((err: unknown) => options.onError?.(err))
      .finally(() => (scheduled = null));
    return scheduled;
  };
  return {
    start() {
      consumer.start(deps.onCommitted);
      sender?.start();
      if (!timer) {
        timer = setInterval(runScheduled, SCHEDULE_MS);
        timer.unref();
        setTimeout(runScheduled, 5_000).unref();
      }
    },
    /** Everything due now, in order: events to notifications, the scheduled pass, the emails (tests, benchmarks). */
    async drainNow(): Promise<void> {
      await consumer.drainNow();
      await service.runScheduled();
      await sender?.drainNow();
    },
    consumer,
    sender,
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await consumer.stop();
      await scheduled;
      await sender?.stop();
    },
  };
}

export type NotificationWorker = ReturnType<typeof createNotificationWorker>;
