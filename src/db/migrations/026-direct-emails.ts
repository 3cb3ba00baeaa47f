import type { Kysely } from 'kysely';

// Frozen: never edit after it has landed; add a new numbered migration instead.

/**
 * Emails that are not notifications, sent through the same durable queue (`notification_emails`, docs/design.md §15
 * and §20): an invitation, "you were added to a project", a company pack. `message` is a JSON description of what to
 * send (`{"kind": …}`), rendered when it is sent (a pack's PDF is made then, of what the recipient may see); null for
 * the notifications' emails. An invitation to a person without an account has `user_id` 0 and its address in
 * `to_address`. The message of an invitation carries its link: it is cleared once the email is finished.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('notification_emails').addColumn('message', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('notification_emails').dropColumn('message').execute();
}
