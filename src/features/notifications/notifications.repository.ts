import type { Kysely, Transaction } from 'kysely';
import { bindStatements } from '../../db/bind-statements.js';
import type { Database } from '../../db/tables.js';
import {
  emailsOf,
  finishEmail,
  lastFinishedEmail,
  notificationsOfEmail,
  queueMessage,
  retryEmail,
  waitingEmails,
  dueEmails,
} from './email-queue.js';
import { answerAuthors, itemFacts, managersOf, membershipsOf, modes, participantsOf, users } from './notification-facts.js';
import { existingKeys, find, insert, listOf, markRead, preferences, setPreferences, unreadCount } from './notification-rows.js';
import {
  claimEscalationSteps,
  deadlineCandidates,
  digestWaiting,
  escalationCandidates,
  escalationStepsOf,
  expiringTokens,
  queueDigest,
} from './notification-schedule.js';

export { FINISHED_EMAIL_STATES, type EmailRow } from './email-queue.js';
export { ITEM_EMAIL_WINDOW_MS, type NewNotification, type NotificationRow } from './notification-rows.js';

/**
 * The SQL of notifications, bound to `db`: the facts the worker's batch reads, the notifications and preferences,
 * the scheduled ones and the email queue. The statements taking a transaction run in the caller's.
 */
export function createNotificationsRepository(db: Kysely<Database>) {
  return {
    ...bindStatements(db, {
      itemFacts,
      membershipsOf,
      modes,
      users,
      participantsOf,
      managersOf,
      answerAuthors,
      existingKeys,
      listOf,
      find,
      unreadCount,
      markRead,
      preferences,
      setPreferences,
      escalationCandidates,
      escalationStepsOf,
      deadlineCandidates,
      expiringTokens,
      digestWaiting,
      queueDigest,
      dueEmails,
      notificationsOfEmail,
      finishEmail,
      retryEmail,
      waitingEmails,
      lastFinishedEmail,
      emailsOf,
    }),
    insert,
    claimEscalationSteps,
    queueMessage,

    transaction<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
      return db.transaction().execute(work);
    },
  };
}

export type NotificationsRepository = ReturnType<typeof createNotificationsRepository>;
