import type { EventsRepository } from '../events/events.repository.js';
import { outboxConsumerJob } from '../events/outbox-consumer.js';
import type { JobRunner } from '../../jobs/job-runner.js';
import type { EmailSender } from './email-sender.js';
import type { NotificationsService } from './notifications.service.js';
import { TOLD_TYPES } from './notification-kinds.js';

/** How often each node runs the scheduled pass (deadlines, token expiry, escalations, digests). */
const SCHEDULE_MS = 60_000;

/**
 * The background work of notifications, as jobs of the runner (src/jobs): the outbox consumer that turns events
 * into notifications (one node at a time: its lease), the scheduled pass of reminders, escalations and digests
 * (idempotent, on every node) and, with SMTP_URL, the email sender (each email claimed by one node).
 */
export function createNotificationWorker(deps: {
  service: NotificationsService;
  eventsRepo: EventsRepository;
  onCommitted: (listener: () => void) => void;
  jobs: JobRunner;
  sender: EmailSender | null;
  /** NOTIFICATIONS=off: the runner does not start these jobs on this node. */
  enabled?: boolean;
}) {
  const { service, sender } = deps;
  const enabled = deps.enabled !== undefined ? { enabled: deps.enabled } : {};
  const consumer = deps.jobs.job(
    outboxConsumerJob(deps.eventsRepo, (events) => service.handleEvents(events), {
      name: 'notifications',
      types: TOLD_TYPES,
      onBatch: () => sender?.wake(),
      onCommitted: deps.onCommitted,
      ...enabled,
    }),
  );
  const scheduled = deps.jobs.job({
    name: 'notification-schedule',
    run: async () => void (await service.runScheduled()),
    everyMs: SCHEDULE_MS,
    firstAfterMs: 5_000,
    ...enabled,
  });
  return {
    start() {
      consumer.start();
      scheduled.start();
      sender?.start();
    },
    /** Everything due now, in order: events to notifications, the scheduled pass, the emails (tests, benchmarks). */
    async drainNow(): Promise<void> {
      await consumer.drain();
      await scheduled.drain();
      await sender?.drainNow();
    },
    consumer,
    sender,
    async stop() {
      await consumer.stop();
      await scheduled.stop();
      await sender?.stop();
    },
  };
}

export type NotificationWorker = ReturnType<typeof createNotificationWorker>;
