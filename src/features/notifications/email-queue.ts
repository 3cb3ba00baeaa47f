import { type Kysely, type Selectable } from 'kysely';
import type { Database, NotificationEmailsTable } from '../../db/tables.js';

export type EmailRow = Selectable<NotificationEmailsTable>;

/** States of an email that are final: nothing more is tried. */
export const FINISHED_EMAIL_STATES = ['sent', 'refused', 'given_up', 'skipped'] as const;

export function dueEmails(db: Kysely<Database>, now: string, limit: number) {
  return db
    .selectFrom('notification_emails')
    .selectAll()
    .where('state', '=', 'waiting')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .orderBy('id')
    .limit(limit)
    .execute();
}

export function notificationsOfEmail(db: Kysely<Database>, emailId: number) {
  return db.selectFrom('notifications').selectAll().where('email_id', '=', emailId).orderBy('id').execute();
}

export async function finishEmail(
  db: Kysely<Database>,
  id: number,
  state: (typeof FINISHED_EMAIL_STATES)[number],
  fields: { to_address: string | null; last_error: string | null; at: string; forgetMessage?: boolean },
) {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('notification_emails')
      .set({ state, to_address: fields.to_address, last_error: fields.last_error, finished_at: fields.at, lease_until: null })
      // An invitation's message holds its link: not kept once the email is finished (migration 026).
      .$if(fields.forgetMessage === true, (q) => q.set({ message: null }))
      .where('id', '=', id)
      .execute();
    if (state === 'sent') await trx.updateTable('notifications').set({ emailed_at: fields.at }).where('email_id', '=', id).execute();
  });
}

/**
 * Queues an email that is not a notification (migration 026) in the caller's transaction; `key` is unique, so a
 * message queued twice (a pack sent again) is queued once: false when it was already there.
 */
export async function queueMessage(
  trx: Kysely<Database>,
  row: { key: string; userId: number; toAddress: string | null; message: object; at: string },
): Promise<boolean> {
  const result = await trx
    .insertInto('notification_emails')
    .values({
      user_id: row.userId,
      key: row.key,
      state: 'waiting',
      to_address: row.toAddress,
      next_attempt_at: row.at,
      created_at: row.at,
      message: JSON.stringify(row.message),
    })
    .onConflict((oc) => oc.column('key').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function retryEmail(
  db: Kysely<Database>,
  id: number,
  attempts: number,
  nextAttemptAt: string,
  error: string,
  toAddress: string,
): Promise<void> {
  await db
    .updateTable('notification_emails')
    .set({ attempts, next_attempt_at: nextAttemptAt, last_error: error, lease_until: null, to_address: toAddress })
    .where('id', '=', id)
    .execute();
}

export async function waitingEmails(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('notification_emails')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('state', '=', 'waiting')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The user's last email that reached an end (sent, refused or given up): whether their address works. */
export function lastFinishedEmail(db: Kysely<Database>, userId: number) {
  return db
    .selectFrom('notification_emails')
    .select(['state', 'to_address', 'last_error', 'finished_at'])
    .where('user_id', '=', userId)
    .where('state', 'in', ['sent', 'refused', 'given_up'])
    .orderBy('finished_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Emails of a user (tests, CLI). */
export function emailsOf(db: Kysely<Database>, userId: number) {
  return db.selectFrom('notification_emails').selectAll().where('user_id', '=', userId).orderBy('id').execute();
}

// ---- the outbox consumer's cursor and lease ----
