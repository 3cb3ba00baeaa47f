import type { Clock } from '../../shared/clock.js';
import type { UserRole } from '../../domain/values.js';
import { type MailMessage, type Mailer, MailError } from '../mail/mailer.js';
import type { JobRunner } from '../../jobs/job-runner.js';
import { storedLanguage } from '../../i18n/i18n.js';
import { renderEmail } from './email-content.js';
import type { EmailRow, NotificationRow, NotificationsRepository } from './notifications.repository.js';

/** Retries of a refused or failed send: about 10 s, 30 s, 1, 2, 5, 10, 30 min, 1 h, 2 h, then every 4 h, ±20 %. */
const RETRY_DELAYS_MS = [10_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000];
const EMAIL_GIVE_UP_AFTER_MS = 24 * 3_600_000;
/** A claimed email is another node's again after this (a send takes at most ~40 s with the mailer's timeouts). */
const CLAIM_MS = 120_000;

function emailRetryDelay(attempt: number, random = Math.random): number {
  const base = RETRY_DELAYS_MS[Math.min(attempt - 1, RETRY_DELAYS_MS.length - 1)]!;
  return Math.round(base * (0.8 + 0.4 * random()));
}

interface EmailSenderDeps {
  repo: NotificationsRepository;
  jobs: JobRunner;
  mailer: Mailer;
  clock: Clock;
  baseUrl: string;
  /** Whether the user may see what the notification is about now (the policy, through the items service). */
  canSee: (user: { id: number; role: UserRole }, notification: NotificationRow) => Promise<boolean>;
  /**
   * The message of a queued email that is not a notification (migration 026: an invitation, a company pack), made
   * when it is sent; null: nothing to send any more (skipped). `forget`: the message is cleared once finished.
   */
  renderMessage?: (email: EmailRow) => Promise<{ mail: MailMessage; forget: boolean } | null>;
}

/** Emails sent and failed attempts on this node. */
interface SendCounts {
  sent: number;
  failed: number;
}

/** Claims a queued email and sends it, leaving out what its recipient can no longer see. */
async function sendOne(deps: EmailSenderDeps, counts: SendCounts, email: EmailRow): Promise<void> {
  const { repo, clock } = deps;
  const now = clock.now();
  const until = new Date(now.getTime() + CLAIM_MS).toISOString();
  if (!(await deps.jobs.store.claim('notification_emails', email.id, 'waiting', now.toISOString(), until))) return;
  if (email.message !== null) return sendMessage(deps, counts, email, now);
  const [user] = await repo.users([email.user_id]);
  const listed = await repo.notificationsOfEmail(email.id);
  const visible: NotificationRow[] = [];
  if (user && user.active === 1) {
    for (const n of listed) if (await deps.canSee({ id: user.id, role: user.role as UserRole }, n)) visible.push(n);
  }
  if (!user || visible.length === 0) {
    await repo.finishEmail(email.id, 'skipped', { to_address: user?.email ?? null, last_error: null, at: now.toISOString() });
    return;
  }
  const digest = email.key.startsWith('digest:');
  await attempt(
    deps,
    counts,
    email,
    user.email,
    () => renderEmail(user.email, visible, deps.baseUrl, digest, storedLanguage(user.language, user.browser_language)),
    false,
  );
}

/** An email that is not a notification: rendered now (a pack's PDF too), then sent like the others. */
async function sendMessage(deps: EmailSenderDeps, counts: SendCounts, email: EmailRow, now: Date): Promise<void> {
  const rendered = deps.renderMessage ? await deps.renderMessage(email) : null;
  if (!rendered) {
    await deps.repo.finishEmail(email.id, 'skipped', {
      to_address: email.to_address,
      last_error: null,
      at: now.toISOString(),
      forgetMessage: true,
    });
    return;
  }
  await attempt(deps, counts, email, rendered.mail.to, () => rendered.mail, rendered.forget);
}

/** Sends one email; a refusal ends it, any other failure is retried with backoff for 24 h. */
async function attempt(
  deps: EmailSenderDeps,
  counts: SendCounts,
  email: EmailRow,
  to: string,
  render: () => MailMessage,
  forgetMessage: boolean,
): Promise<void> {
  const { repo, mailer, clock } = deps;
  try {
    await mailer.send(render());
    counts.sent++;
    await repo.finishEmail(email.id, 'sent', { to_address: to, last_error: null, at: clock.now().toISOString(), forgetMessage });
  } catch (err) {
    counts.failed++;
    const at = clock.now();
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof MailError && err.permanent) {
      await repo.finishEmail(email.id, 'refused', { to_address: to, last_error: message, at: at.toISOString(), forgetMessage });
      return;
    }
    const attempts = email.attempts + 1;
    if (at.getTime() - Date.parse(email.created_at) >= EMAIL_GIVE_UP_AFTER_MS) {
      await repo.finishEmail(email.id, 'given_up', { to_address: to, last_error: message, at: at.toISOString(), forgetMessage });
      return;
    }
    await repo.retryEmail(email.id, attempts, new Date(at.getTime() + emailRetryDelay(attempts)).toISOString(), message, to);
  }
}

/**
 * Sends the queued emails (`notification_emails`) on every node: a node claims a row (a conditional
 * UPDATE) before sending it, so each is sent by one node. A 5xx refusal ends that email alone ("refused":
 * the Profile says the address is failing); anything else is retried with backoff for 24 h, then given up.
 * What the recipient can no longer see is left out when the email is sent.
 */
export function createEmailSender(
  deps: EmailSenderDeps,
  options: { pollMs?: number; concurrency?: number; onError?: (err: unknown) => void; enabled?: boolean } = {},
) {
  const { repo, mailer, clock } = deps;
  const concurrency = options.concurrency ?? 4;
  const counts: SendCounts = { sent: 0, failed: 0 };
  let waiting = 0;

  /** Sends what is due now, a few at a time, until nothing is due (or the job stops). */
  async function drain(stopping: () => boolean): Promise<{ backlog: number }> {
    while (!stopping()) {
      const due = await repo.dueEmails(clock.now().toISOString(), concurrency * 4);
      if (due.length === 0) break;
      const queue = [...due];
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          for (let email = queue.shift(); email && !stopping(); email = queue.shift()) {
            await sendOne(deps, counts, email).catch((err: unknown) => options.onError?.(err));
          }
        }),
      );
    }
    waiting = await repo.waitingEmails();
    return { backlog: waiting };
  }

  const job = deps.jobs.job({
    name: 'notification-emails',
    run: (run) => drain(run.stopping),
    everyMs: options.pollMs ?? 1000,
    onStop: () => mailer.close(),
    ...(options.enabled !== undefined ? { enabled: options.enabled } : {}),
  });

  return {
    start: job.start,
    /** Looks at the queue now (after a batch of notifications was queued on this node). */
    wake: job.wake,
    /** Sends what is due now and resolves when done (tests). */
    drainNow: job.drain,
    /** Emails sent and failed attempts on this node, and the emails waiting as of the last look. */
    stats: () => ({ ...counts, waiting }),
    stop: job.stop,
  };
}

export type EmailSender = ReturnType<typeof createEmailSender>;
