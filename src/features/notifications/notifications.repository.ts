import { type Compilable, type Insertable, type Kysely, type Selectable, type Transaction } from 'kysely';
import { inTransaction } from '../../db/in-transaction.js';
import { type Precompiled, precompileRowsLazily } from '../../db/precompiled.js';
import type { Database, EscalationStepsTable, NotificationEmailsTable, NotificationsTable } from '../../db/tables.js';

export type NotificationRow = Selectable<NotificationsTable>;
export type NewNotification = Omit<Insertable<NotificationsTable>, 'id' | 'email_id' | 'read_at' | 'emailed_at'>;
export type EmailRow = Selectable<NotificationEmailsTable>;

/**
 * How long the email of an item's first notification for a person waits, gathering that person's later
 * notifications of the same item: changes within a minute go out as one message listing them (issue 46), not
 * one message each with the same subject. Notifications of no item (tokens, webhooks, applications) go at once.
 */
export const ITEM_EMAIL_WINDOW_MS = 60_000;

/** The key of an item's gathering email: its item, and the first notification it was made for (unique). */
const itemEmailKey = (itemId: number, notificationId: number) => `item:${itemId}:n:${notificationId}`;
const itemOfEmailKey = (key: string) => /^item:(\d+):/.exec(key)?.[1];

interface MailedNotification {
  id: number;
  user_id: number;
  item_id: number | null;
  at: string;
}

/**
 * Puts each notification to be emailed at once in an email (in the caller's transaction): one of its own when it
 * is about no item; otherwise the email of the same person and item still gathering (made within the window before
 * it, never tried, claimed by no sender), or a new one sent when the window ends. Returns the emails made or joined.
 */
async function queueEmails(trx: Kysely<Database>, mailed: readonly MailedNotification[]): Promise<number> {
  const pairOf = (userId: number, itemId: number | string) => `${userId} ${itemId}`;
  /** Per person and item, the email gathering: its id, or the key of one made here; and when it began. */
  const gathering = new Map<string, { email: number | string; since: string }>();
  const users = [...new Set(mailed.filter((n) => n.item_id !== null).map((n) => n.user_id))];
  if (users.length) {
    // A self-assignment, so the rows are locked: a sender claiming one of them waits for this transaction (and then
    // lists what joined it); one it claimed first has a lease and is not joined (a new email is made instead).
    const open = await trx
      .updateTable('notification_emails')
      .set((eb) => ({ lease_until: eb.ref('lease_until') }))
      .where('user_id', 'in', users)
      .where('state', '=', 'waiting')
      .where('attempts', '=', 0)
      .where('lease_until', 'is', null)
      .where('key', 'like', 'item:%')
      .returning(['id', 'user_id', 'key', 'created_at'])
      .execute();
    for (const e of open) {
      const itemId = itemOfEmailKey(e.key);
      if (itemId) gathering.set(pairOf(Number(e.user_id), itemId), { email: Number(e.id), since: e.created_at });
    }
  }
  const fresh: Insertable<NotificationEmailsTable>[] = [];
  /** An email's id, or the key of one made here → the notifications it carries. */
  const carried = new Map<number | string, number[]>();
  const carry = (email: number | string, notificationId: number) => carried.set(email, [...(carried.get(email) ?? []), notificationId]);
  for (const n of [...mailed].sort((a, b) => a.at.localeCompare(b.at) || a.id - b.id)) {
    const open = n.item_id === null ? undefined : gathering.get(pairOf(n.user_id, n.item_id));
    if (open && Date.parse(n.at) - Date.parse(open.since) < ITEM_EMAIL_WINDOW_MS) {
      carry(open.email, n.id);
      continue;
    }
    const key = n.item_id === null ? `n:${n.id}` : itemEmailKey(n.item_id, n.id);
    const sendAt = n.item_id === null ? n.at : new Date(Date.parse(n.at) + ITEM_EMAIL_WINDOW_MS).toISOString();
    fresh.push({ user_id: n.user_id, key, state: 'waiting', next_attempt_at: sendAt, created_at: n.at });
    if (n.item_id !== null) gathering.set(pairOf(n.user_id, n.item_id), { email: key, since: n.at });
    carry(key, n.id);
  }
  const made = fresh.length ? await trx.insertInto('notification_emails').values(fresh).returning(['id', 'key']).execute() : [];
  const idOf = new Map(made.map((e) => [e.key, Number(e.id)]));
  for (const [email, notifications] of carried) {
    const id = typeof email === 'number' ? email : idOf.get(email)!;
    await trx.updateTable('notifications').set({ email_id: id }).where('id', 'in', notifications).execute();
  }
  return carried.size;
}

/**
 * The INSERTs of notifications, one per number of rows (powers of two up to 128), each built and compiled once
 * (db/precompiled.ts): a batch goes as a few of them (375 rows: 128 + 128 + 64 + 32 + 16 + 4 + 2 + 1), instead of
 * Kysely building a statement of thousands of values for every batch, and SQLite preparing each new one. The ids
 * are returned only where emails are queued (they name the notification's email).
 */
const NOTIFICATION_COLUMNS = [
  'user_id',
  'kind',
  'key',
  'event_id',
  'project_id',
  'item_id',
  'token_id',
  'text',
  'subject',
  'delivery',
  'at',
] as const;
const insertStatements = [128, 64, 32, 16, 8, 4, 2, 1].map((size) => {
  const build = (db: Kysely<Database>, rows: NewNotification[]) =>
    db
      .insertInto('notifications')
      .values(rows)
      .onConflict((oc) => oc.columns(['user_id', 'key']).doNothing());
  return {
    size,
    plain: precompileRowsLazily(size, NOTIFICATION_COLUMNS, build),
    returning: precompileRowsLazily(size, NOTIFICATION_COLUMNS, (db: Kysely<Database>, rows: NewNotification[]) =>
      build(db, rows).returning(['id', 'user_id', 'item_id', 'delivery', 'at']),
    ),
  };
});

/**
 * An IN list padded to a power of two with its last value: the worker's batch queries then have a few SQL texts
 * rather than one per list length, so that SQLite reuses their prepared statements (db/sqlite-statement-cache.ts)
 * instead of preparing statements of hundreds of parameters for every batch and crowding the others out.
 */
function padded<T>(values: readonly T[]): T[] {
  const list = [...values];
  let size = list.length && 1;
  while (size < list.length) size *= 2;
  while (list.length < size) list.push(list[list.length - 1]!);
  return list;
}

/**
 * A query of the worker's batch over a list of ids (`in`), built and compiled once per padded length of the
 * list (db/precompiled.ts) instead of Kysely building hundreds of value nodes for every batch.
 */
function byIds<R>(db: Kysely<Database>, build: (db: Kysely<Database>, ids: readonly unknown[]) => Compilable<R>) {
  const bySize = new Map<number, Precompiled<Database, readonly { id: number }[], R>>();
  return (ids: readonly number[]): Promise<R[]> => {
    if (ids.length === 0) return Promise.resolve([]);
    const list = padded(ids);
    let query = bySize.get(list.length);
    if (!query) {
      query = precompileRowsLazily(list.length, ['id'], (db: Kysely<Database>, rows: { id: number }[]) =>
        build(
          db,
          rows.map((r) => r.id),
        ),
      );
      bySize.set(list.length, query);
    }
    return query.execute(
      list.map((id) => ({ id })),
      db,
    );
  };
}

/** States of an email that are final: nothing more is tried. */
export const FINISHED_EMAIL_STATES = ['sent', 'refused', 'given_up', 'skipped'] as const;

/** The SQL of notifications: the notifications, the email queue, the preferences and the outbox cursor. */
export function createNotificationsRepository(db: Kysely<Database>) {
  // ---- facts about events (the worker's batch; lists of ids: see byIds) ----

  /** What the access policy needs to know of each item (and its text). */
  const itemFacts = byIds(db, (db, ids) =>
    db
      .selectFrom('items as i')
      .innerJoin('projects as p', 'p.id', 'i.project_id')
      .select(['i.id', 'i.text', 'i.project_id', 'i.section_id', 'i.checklist_id', 'p.archived', 'i.responsible_company_id'])
      .where('i.id', 'in', ids as number[]),
  );

  /**
   * Every membership of these users. Read by user alone: filtering on a list of projects too would make the
   * database try every (user, project) pair (20 ms for a batch of 500 events on the bench workspace).
   */
  const membershipsOf = byIds(db, (db, ids) =>
    db
      .selectFrom('project_members as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select(['m.project_id', 'm.user_id', 'm.role', 'm.section_ids', 'm.checklist_ids', 'm.company_items_only', 'u.company_id'])
      .where('m.user_id', 'in', ids as number[]),
  );

  /** The modes of several users (the worker's batch). */
  const modes = byIds(db, (db, ids) =>
    db
      .selectFrom('notification_preferences')
      .selectAll()
      .where('user_id', 'in', ids as number[]),
  );

  const users = byIds(db, (db, ids) =>
    db
      .selectFrom('users')
      .select(['id', 'name', 'email', 'role', 'active', 'time_zone', 'language', 'browser_language'])
      .where('id', 'in', ids as number[]),
  );

  /**
   * The participants of the items, each with what deciding their notification needs, in one read: their
   * membership of the item's project (null role: none), their account (role, active) and the item's facts
   * for the access policy (and its text), so that a batch of comments reads no user or item again.
   */
  const participantsOf = byIds(db, (db, ids) =>
    db
      .selectFrom('item_participants as ip')
      .innerJoin('items as i', 'i.id', 'ip.item_id')
      .innerJoin('projects as p', 'p.id', 'i.project_id')
      .innerJoin('users as u', 'u.id', 'ip.user_id')
      .leftJoin('project_members as m', (join) => join.onRef('m.project_id', '=', 'i.project_id').onRef('m.user_id', '=', 'ip.user_id'))
      .select([
        'ip.item_id',
        'ip.user_id',
        'i.project_id',
        'm.role',
        'm.section_ids',
        'm.checklist_ids',
        'm.company_items_only',
        'u.company_id',
        'u.role as user_role',
        'u.active',
        'i.text',
        'i.responsible_company_id',
        'i.section_id',
        'i.checklist_id',
        'p.archived',
      ])
      .where('ip.item_id', 'in', ids as number[]),
  );

  /** The managers of the projects, with their memberships and their accounts (role, active). */
  const managersOf = byIds(db, (db, ids) =>
    db
      .selectFrom('project_members as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select([
        'm.project_id',
        'm.user_id',
        'm.role',
        'm.section_ids',
        'm.checklist_ids',
        'm.company_items_only',
        'u.company_id',
        'u.role as user_role',
        'u.active',
      ])
      .where('m.project_id', 'in', ids as number[])
      .where('m.role', '=', 'manager'),
  );

  const answerAuthors = byIds(db, (db, ids) =>
    db
      .selectFrom('answers')
      .select(['id', 'author_id'])
      .where('id', 'in', ids as number[]),
  );

  return {
    itemFacts,
    membershipsOf,
    modes,
    users,
    participantsOf,
    managersOf,
    answerAuthors,

    transaction<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
      return db.transaction().execute(work);
    },

    /**
     * Inserts the notifications (a key already there for that user is skipped: nobody is told twice) and, for
     * those to be emailed at once, their email rows; in the caller's transaction. Returns how many emails were queued.
     */
    async insert(trx: Kysely<Database>, rows: readonly NewNotification[], emailed: boolean): Promise<number> {
      let queued = 0;
      // A few statements per batch, whatever its size: the consumer's transaction stays short.
      for (let i = 0; i < rows.length;) {
        const statements = insertStatements.find((s) => s.size <= rows.length - i)!;
        const chunk = rows.slice(i, (i += statements.size));
        if (!emailed) {
          await statements.plain.run(chunk, trx);
          continue;
        }
        const mailed = (await statements.returning.execute(chunk, trx)).filter((n) => n.delivery === 'email');
        if (mailed.length === 0) continue;
        queued += await queueEmails(
          trx,
          mailed.map((n) => ({
            id: Number(n.id),
            user_id: Number(n.user_id),
            item_id: n.item_id === null ? null : Number(n.item_id),
            at: n.at,
          })),
        );
      }
      return queued;
    },

    /** Which of `keys` the user already has. */
    async existingKeys(pairs: readonly { userId: number; key: string }[]): Promise<Set<string>> {
      if (pairs.length === 0) return new Set();
      const rows = await db
        .selectFrom('notifications')
        .select(['user_id', 'key'])
        .where('key', 'in', [...new Set(pairs.map((p) => p.key))])
        .execute();
      return new Set(rows.map((r) => `${r.user_id} ${r.key}`));
    },

    listOf(userId: number, limit: number) {
      return db.selectFrom('notifications').selectAll().where('user_id', '=', userId).orderBy('id', 'desc').limit(limit).execute();
    },

    find(id: number) {
      return db.selectFrom('notifications').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async unreadCount(userId: number): Promise<number> {
      const row = await db
        .selectFrom('notifications')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('user_id', '=', userId)
        .where('read_at', 'is', null)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    async markRead(userId: number, id: number | null, at: string, executor: Kysely<Database> = db): Promise<void> {
      let q = executor.updateTable('notifications').set({ read_at: at }).where('user_id', '=', userId).where('read_at', 'is', null);
      if (id !== null) q = q.where('id', '=', id);
      await q.execute();
    },

    preferences(userId: number) {
      return db.selectFrom('notification_preferences').select(['kind', 'mode']).where('user_id', '=', userId).execute();
    },

    /** In the caller's transaction when `executor` is one (the audit record commits with it), else in its own. */
    async setPreferences(userId: number, modes: readonly { kind: string; mode: string }[], executor: Kysely<Database> = db): Promise<void> {
      await inTransaction(executor, async (trx) => {
        await trx.deleteFrom('notification_preferences').where('user_id', '=', userId).execute();
        const kept = modes.filter((m) => m.mode !== 'email');
        if (kept.length)
          await trx
            .insertInto('notification_preferences')
            .values(kept.map((m) => ({ user_id: userId, ...m })))
            .execute();
      });
    },

    /**
     * Who an escalation ladder may tell now (docs/design.md §21): for each open item (not done, not accepted) of an
     * active project whose ladder is on, with a deadline on or before `until`, its active participants and the
     * project's active managers, with their time zone and language and the ladder's days.
     */
    async escalationCandidates(until: string) {
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
    },

    /** The steps of these items told already, as `item deadline step user` keys. */
    async escalationStepsOf(itemIds: readonly number[]): Promise<Set<string>> {
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
    },

    /**
     * Records steps as told, in the caller's transaction; returns the ones this call recorded (a step another node
     * recorded first is left out: its notification is that node's to make).
     */
    async claimEscalationSteps(trx: Kysely<Database>, steps: readonly Insertable<EscalationStepsTable>[]): Promise<Set<string>> {
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
    },

    /** Participants of items not done whose deadline lies between the two dates (inclusive). */
    deadlineCandidates(from: string, to: string) {
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
    },

    /** API tokens (not those of OAuth grants) of active users, not revoked, expiring within (now, until]. */
    expiringTokens(now: string, until: string) {
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
    },

    /** Users with notifications waiting for their digest, with their time zone. */
    digestWaiting() {
      return db
        .selectFrom('notifications as n')
        .innerJoin('users as u', 'u.id', 'n.user_id')
        .select(['u.id', 'u.time_zone'])
        .distinct()
        .where('n.delivery', '=', 'digest')
        .where('n.email_id', 'is', null)
        .where('u.active', '=', 1)
        .execute();
    },

    /** Queues the digest `key` of the user with every notification waiting for it; false when that key was queued already. */
    async queueDigest(userId: number, key: string, at: string): Promise<boolean> {
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
    },

    // ---- the email queue ----

    dueEmails(now: string, limit: number) {
      return db
        .selectFrom('notification_emails')
        .selectAll()
        .where('state', '=', 'waiting')
        .where('next_attempt_at', '<=', now)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .orderBy('id')
        .limit(limit)
        .execute();
    },

    /** Claims one email until `until` unless another node holds it (or it is done): true when taken. */
    async claimEmail(id: number, now: string, until: string): Promise<boolean> {
      const result = await db
        .updateTable('notification_emails')
        .set({ lease_until: until })
        .where('id', '=', id)
        .where('state', '=', 'waiting')
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    notificationsOfEmail(emailId: number) {
      return db.selectFrom('notifications').selectAll().where('email_id', '=', emailId).orderBy('id').execute();
    },

    async finishEmail(
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
    },

    /**
     * Queues an email that is not a notification (migration 026) in the caller's transaction; `key` is unique, so a
     * message queued twice (a pack sent again) is queued once: false when it was already there.
     */
    async queueMessage(
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
    },

    async retryEmail(id: number, attempts: number, nextAttemptAt: string, error: string, toAddress: string): Promise<void> {
      await db
        .updateTable('notification_emails')
        .set({ attempts, next_attempt_at: nextAttemptAt, last_error: error, lease_until: null, to_address: toAddress })
        .where('id', '=', id)
        .execute();
    },

    async waitingEmails(): Promise<number> {
      const row = await db
        .selectFrom('notification_emails')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('state', '=', 'waiting')
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /** The user's last email that reached an end (sent, refused or given up): whether their address works. */
    lastFinishedEmail(userId: number) {
      return db
        .selectFrom('notification_emails')
        .select(['state', 'to_address', 'last_error', 'finished_at'])
        .where('user_id', '=', userId)
        .where('state', 'in', ['sent', 'refused', 'given_up'])
        .orderBy('finished_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
    },

    /** Emails of a user (tests, CLI). */
    emailsOf(userId: number) {
      return db.selectFrom('notification_emails').selectAll().where('user_id', '=', userId).orderBy('id').execute();
    },

    // ---- the outbox consumer's cursor and lease ----

    /** Creates the consumer at `cursor` (the outbox's end when it first runs: history tells nobody) unless it exists. */
    async ensureConsumer(name: string, cursor: number): Promise<void> {
      await db
        .insertInto('outbox_consumers')
        .values({ name, cursor, holder: null, lease_until: null })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
    },

    /** Takes or renews the lease for `holder` until `until`: the cursor when held, else null. */
    async leaseConsumer(name: string, holder: string, now: string, until: string): Promise<number | null> {
      const result = await db
        .updateTable('outbox_consumers')
        .set({ holder, lease_until: until })
        .where('name', '=', name)
        .where((eb) => eb.or([eb('holder', '=', holder), eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .returning('cursor')
        .executeTakeFirst();
      return result ? Number(result.cursor) : null;
    },

    /** Moves the cursor in the caller's transaction, only while `holder` holds the lease: false when it was lost. */
    async advanceConsumer(trx: Kysely<Database>, name: string, holder: string, from: number, to: number): Promise<boolean> {
      const result = await trx
        .updateTable('outbox_consumers')
        .set({ cursor: to })
        .where('name', '=', name)
        .where('holder', '=', holder)
        .where('cursor', '=', from)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async releaseConsumer(name: string, holder: string): Promise<void> {
      await db
        .updateTable('outbox_consumers')
        .set({ holder: null, lease_until: null })
        .where('name', '=', name)
        .where('holder', '=', holder)
        .execute();
    },

    consumerCursor(name: string) {
      return db.selectFrom('outbox_consumers').select(['cursor']).where('name', '=', name).executeTakeFirst();
    },
  };
}

export type NotificationsRepository = ReturnType<typeof createNotificationsRepository>;
