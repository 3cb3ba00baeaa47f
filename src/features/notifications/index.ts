/**
 * Notifications (docs/design.md §15) as one module: the service (the web's list, preferences, direct notices), the
 * jobs that turn events into notifications and send their emails, and the notices other features give people
 * (a webhook disabled, an application connected), worded here in each recipient's language.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/tables.js';
import { message } from '../../i18n/i18n.js';
import type { JobRunner } from '../../jobs/job-runner.js';
import type { Clock } from '../../shared/clock.js';
import type { EventsRepository } from '../events/events.repository.js';
import type { ItemsService } from '../items/index.js';
import { createSmtpMailer } from '../mail/mailer.js';
import type { MailMessage } from '../mail/mailer.js';
import { createEmailSender, type EmailSender } from './email-sender.js';
import { quoted } from './notification-kinds.js';
import { createNotificationWorker } from './notification-worker.js';
import { createNotificationsRepository, type EmailRow } from './notifications.repository.js';
import { createNotificationsService } from './notifications.service.js';

export interface NotificationsModuleDeps {
  db: Kysely<Database>;
  items: ItemsService;
  clock: Clock;
  jobs: JobRunner;
  eventsRepo: EventsRepository;
  onCommitted: (listener: () => void) => void;
  /** Email by SMTP when set (docs/notifications.md); null: notifications in the web only. */
  smtp: { url: string; from: string; baseUrl: string } | null;
  /** NOTIFICATIONS=off: this node runs none of the notification jobs. */
  enabled: boolean;
  /** The message of a queued email that is not a notification (an invitation, a company pack). */
  renderMessage?: (email: EmailRow) => Promise<{ mail: MailMessage; forget: boolean } | null>;
  onError: (what: string) => (error: unknown) => void;
}

export function createNotificationsModule(deps: NotificationsModuleDeps) {
  const { clock, smtp, onError } = deps;
  const repo = createNotificationsRepository(deps.db);
  let emailSender: EmailSender | null = null;
  const notifications = createNotificationsService({
    repo,
    items: deps.items,
    clock,
    emailEnabled: smtp !== null,
    onQueued: () => emailSender?.wake(),
  });
  emailSender = smtp
    ? createEmailSender(
        {
          repo,
          jobs: deps.jobs,
          mailer: createSmtpMailer(smtp.url, smtp.from),
          clock,
          baseUrl: smtp.baseUrl,
          canSee: (user, n) => notifications.canSee(user, n),
          ...(deps.renderMessage ? { renderMessage: deps.renderMessage } : {}),
        },
        { onError: onError('notification email failed'), enabled: deps.enabled },
      )
    : null;
  const worker = createNotificationWorker({
    service: notifications,
    eventsRepo: deps.eventsRepo,
    onCommitted: deps.onCommitted,
    jobs: deps.jobs,
    sender: emailSender,
    enabled: deps.enabled,
  });
  return {
    notifications,
    worker,
    emailSender,
    /** The queue other features put their own emails in (invitations, company packs). */
    mailQueue: repo,
    /** Wakes the email sender once something was queued. */
    wakeSender: () => emailSender?.wake(),

    /** Tells a webhook's owner that deliveries to it stopped (docs/notifications.md). */
    webhookDisabled(endpoint: { id: number; user_id: number; url: string }, reason: string): void {
      void notifications
        .notifyDirect({
          userId: endpoint.user_id,
          kind: 'webhook_disabled',
          key: `webhook_disabled:${endpoint.id}:${clock.now().toISOString()}`,
          words: (language) => ({
            text: message(language, 'notification.webhook_disabled', { url: endpoint.url, reason }),
            subject: message(language, 'notification.webhook_subject', { url: endpoint.url }),
          }),
        })
        .catch(onError('notification of a disabled webhook failed'));
    },

    /** Tells a person that an application was connected to their account (docs/design.md §12). */
    applicationConnected({ userId, grantId, clientName }: { userId: number; grantId: number; clientName: string }): void {
      void notifications
        .notifyDirect({
          userId,
          kind: 'oauth_client_connected',
          key: `oauth_grant:${grantId}`,
          words: (language) => ({
            text: message(language, 'notification.oauth_connected', { client: quoted(language, clientName) }),
            subject: message(language, 'notification.oauth_subject', { client: quoted(language, clientName) }),
          }),
        })
        .catch(onError('notification of a connected application failed'));
    },
  };
}

export type NotificationsModule = ReturnType<typeof createNotificationsModule>;
