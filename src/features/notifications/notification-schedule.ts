import { type Insertable, type Kysely } from 'kysely';
import type { Database, EscalationStepsTable } from '../../db/tables.js';

// What the scheduled notifications (deadlines, escalation ladders, expiring tokens, digests) read and record.

/**
 * Who an escalation ladder may tell now (docs/design.md §21): for each open item (not done, not accepted) of an
 * active project whose ladder is on, with a deadline on or before `until`, its active participants and the
 * project's active managers, with their time zone and language and the ladder's days.
 */
export async function escalationCandidates(db: Kysely<Database>, until: string) {
  const overdue = db
    .selectFrom('items as i')
    .innerJoin('project_escalations as e', 'e.project_id', 'i.project_id')
    .innerJoin('projects as p', 'p.id', 'i.project_id')
    .where('p.archived', '=', 0)
    .where('i.deadline', 'is not', null)
    .where('i.deadline', '<=', until)
    .where('i.status', '!=', 'done')
    .where((eb) => eb.or([eb('i.verdict', 'is', null), eb('i.verdict', '!=', 'accepted')]));
  const columns = [
    'i.id as item_id',
    'i.project_id',
    'i.text',
    'i.deadline',
    'e.every_days',
    'e.managers_after_days',
    'u.id as user_id',
    'u.role',
    'u.time_zone',
    'u.language',
    'u.browser_language',
  ] as const;
  const [participants, managers] = await Promise.all([
    overdue
      .innerJoin('item_participants as ip', 'ip.item_id', 'i.id')
      .innerJoin('users as u', 'u.id', 'ip.user_id')
      .where('u.active', '=', 1)
      .select(columns)
      .execute(),
    overdue
      .innerJoin('project_members as m', (j) => j.onRef('m.project_id', '=', 'i.project_id').on('m.role', '=', 'manager'))
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .where('u.active', '=', 1)
      .select(columns)
      .execute(),
  ]);
  return [...participants.map((r) => ({ ...r, manager: false })), ...managers.map((r) => ({ ...r, manager: true }))];
}

/** The steps of these items told already, as `item deadline step user` keys. */
export async function escalationStepsOf(db: Kysely<Database>, itemIds: readonly number[]): Promise<Set<string>> {
  const told = new Set<string>();
  for (let i = 0; i < itemIds.length; i += 5000) {
    const rows = await db
      .selectFrom('escalation_steps')
      .select(['item_id', 'deadline', 'step', 'user_id'])
      .where('item_id', 'in', itemIds.slice(i, i + 5000))
      .execute();
    for (const r of rows) told.add(`${r.item_id} ${r.deadline} ${r.step} ${r.user_id}`);
  }
  return told;
}

/**
 * Records steps as told, in the caller's transaction; returns the ones this call recorded (a step another node
 * recorded first is left out: its notification is that node's to make).
 */
export async function claimEscalationSteps(
  trx: Kysely<Database>,
  steps: readonly Insertable<EscalationStepsTable>[],
): Promise<Set<string>> {
  const claimed = new Set<string>();
  for (let i = 0; i < steps.length; i += 500) {
    const rows = await trx
      .insertInto('escalation_steps')
      .values(steps.slice(i, i + 500))
      .onConflict((oc) => oc.columns(['item_id', 'deadline', 'step', 'user_id']).doNothing())
      .returning(['item_id', 'deadline', 'step', 'user_id'])
      .execute();
    for (const r of rows) claimed.add(`${r.item_id} ${r.deadline} ${r.step} ${r.user_id}`);
  }
  return claimed;
}

/** Participants of items not done whose deadline lies between the two dates (inclusive). */
export function deadlineCandidates(db: Kysely<Database>, from: string, to: string) {
  return db
    .selectFrom('items as i')
    .innerJoin('item_participants as p', 'p.item_id', 'i.id')
    .innerJoin('users as u', 'u.id', 'p.user_id')
    .select([
      'i.id as item_id',
      'i.project_id',
      'i.text',
      'i.deadline',
      'u.id as user_id',
      'u.role',
      'u.time_zone',
      'u.language',
      'u.browser_language',
    ])
    .where('i.deadline', '>=', from)
    .where('i.deadline', '<=', to)
    .where('i.status', '!=', 'done')
    .where('u.active', '=', 1)
    .execute();
}

/** API tokens (not those of OAuth grants) of active users, not revoked, expiring within (now, until]. */
export function expiringTokens(db: Kysely<Database>, now: string, until: string) {
  return db
    .selectFrom('api_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select(['t.id', 't.user_id', 't.name', 't.expires_at', 'u.time_zone', 'u.language', 'u.browser_language'])
    .where('t.revoked_at', 'is', null)
    .where('t.expires_at', '>', now)
    .where('t.expires_at', '<=', until)
    .where('u.active', '=', 1)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('oauth_grants as g').select('g.id').whereRef('g.token_id', '=', 't.id'))))
    .execute();
}

/** Users with notifications waiting for their digest, with their time zone. */
export function digestWaiting(db: Kysely<Database>) {
  return db
    .selectFrom('notifications as n')
    .innerJoin('users as u', 'u.id', 'n.user_id')
    .select(['u.id', 'u.time_zone'])
    .distinct()
    .where('n.delivery', '=', 'digest')
    .where('n.email_id', 'is', null)
    .where('u.active', '=', 1)
    .execute();
}

/** Queues the digest `key` of the user with every notification waiting for it; false when that key was queued already. */
export async function queueDigest(db: Kysely<Database>, userId: number, key: string, at: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const email = await trx
      .insertInto('notification_emails')
      .values({ user_id: userId, key, state: 'waiting', next_attempt_at: at, created_at: at })
      .onConflict((oc) => oc.column('key').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!email) return false;
    await trx
      .updateTable('notifications')
      .set({ email_id: email.id })
      .where('user_id', '=', userId)
      .where('delivery', '=', 'digest')
      .where('email_id', 'is', null)
      .execute();
    return true;
  });
}
