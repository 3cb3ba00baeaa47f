import { type Insertable, type Kysely, type Selectable } from 'kysely';
import { inTransaction } from '../../db/in-transaction.js';
import { precompileRowsLazily } from '../../db/precompiled.js';
import type { Database, NotificationEmailsTable, NotificationsTable } from '../../db/tables.js';

export type NotificationRow = Selectable<NotificationsTable>;
export type NewNotification = Omit<Insertable<NotificationsTable>, 'id' | 'email_id' | 'read_at' | 'emailed_at'>;

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
 * Inserts the notifications (a key already there for that user is skipped: nobody is told twice) and, for
 * those to be emailed at once, their email rows; in the caller's transaction. Returns how many emails were queued.
 */
export async function insert(trx: Kysely<Database>, rows: readonly NewNotification[], emailed: boolean): Promise<number> {
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
}

/** Which of `keys` the user already has. */
export async function existingKeys(db: Kysely<Database>, pairs: readonly { userId: number; key: string }[]): Promise<Set<string>> {
  if (pairs.length === 0) return new Set();
  const rows = await db
    .selectFrom('notifications')
    .select(['user_id', 'key'])
    .where('key', 'in', [...new Set(pairs.map((p) => p.key))])
    .execute();
  return new Set(rows.map((r) => `${r.user_id} ${r.key}`));
}

export function listOf(db: Kysely<Database>, userId: number, limit: number) {
  return db.selectFrom('notifications').selectAll().where('user_id', '=', userId).orderBy('id', 'desc').limit(limit).execute();
}

export function find(db: Kysely<Database>, id: number) {
  return db.selectFrom('notifications').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function unreadCount(db: Kysely<Database>, userId: number): Promise<number> {
  const row = await db
    .selectFrom('notifications')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('user_id', '=', userId)
    .where('read_at', 'is', null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function markRead(
  db: Kysely<Database>,
  userId: number,
  id: number | null,
  at: string,
  executor: Kysely<Database> = db,
): Promise<void> {
  let q = executor.updateTable('notifications').set({ read_at: at }).where('user_id', '=', userId).where('read_at', 'is', null);
  if (id !== null) q = q.where('id', '=', id);
  await q.execute();
}

export function preferences(db: Kysely<Database>, userId: number) {
  return db.selectFrom('notification_preferences').select(['kind', 'mode']).where('user_id', '=', userId).execute();
}

/** In the caller's transaction when `executor` is one (the audit record commits with it), else in its own. */
export async function setPreferences(
  db: Kysely<Database>,
  userId: number,
  modes: readonly { kind: string; mode: string }[],
  executor: Kysely<Database> = db,
): Promise<void> {
  await inTransaction(executor, async (trx) => {
    await trx.deleteFrom('notification_preferences').where('user_id', '=', userId).execute();
    const kept = modes.filter((m) => m.mode !== 'email');
    if (kept.length)
      await trx
        .insertInto('notification_preferences')
        .values(kept.map((m) => ({ user_id: userId, ...m })))
        .execute();
  });
}
