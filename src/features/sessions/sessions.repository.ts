import { type Generated, type Kysely, sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { inTransaction } from '../../db/in-transaction.js';
import type { Database } from '../../db/tables.js';

/**
 * Failed sign-in attempts, and those still being checked (migration 003-web); typed here so that the
 * shared `Database` stays as landed.
 */
export interface WebSignInFailuresTable {
  id: Generated<number>;
  /** `account:<email>` or `ip:<address>` */
  key: string;
  at: string;
}

type SessionsDatabase = Database & { web_sign_in_failures: WebSignInFailuresTable };

/** The PostgreSQL advisory lock that serializes the throttle's check-and-book across nodes (any fixed number). */
const SIGN_IN_LOCK = 0x70_6c_6b_01;

/** The sign-in throttle's failures as one executor sees them (the database, or the booking's transaction). */
function failuresOn(executor: Kysely<SessionsDatabase>) {
  return {
    /** The newest `limit` failures of `key` after `since`, newest first. */
    recent(key: string, since: string, limit: number) {
      return executor
        .selectFrom('web_sign_in_failures')
        .select('at')
        .where('key', '=', key)
        .where('at', '>', since)
        .orderBy('at', 'desc')
        .limit(limit)
        .execute();
    },

    /** Books one failure per key; returns the rows' ids. */
    async book(keys: readonly string[], at: string): Promise<number[]> {
      const rows = await executor
        .insertInto('web_sign_in_failures')
        .values(keys.map((key) => ({ key, at })))
        .returning('id')
        .execute();
      return rows.map((r) => r.id);
    },
  };
}

export type SignInFailures = ReturnType<typeof failuresOn>;

/** The unexpired session `id` of an active user, with the user. */
function findLiveSession(db: Kysely<SessionsDatabase>, id: string, now: string) {
  return db
    .selectFrom('web_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select([
      's.id',
      's.csrf_token',
      's.created_at',
      's.expires_at',
      'u.id as user_id',
      'u.name',
      'u.email',
      'u.role',
      'u.time_zone',
      'u.language',
    ])
    .where('s.id', '=', id)
    .where('s.expires_at', '>', now)
    .where('u.active', '=', 1)
    .executeTakeFirst();
}

/** Web sessions and the sign-in throttle's failures. */
export function createSessionsRepository(database: Db) {
  const db = database.kysely as unknown as Kysely<SessionsDatabase>;
  const onPostgres = database.dialect === 'postgres';
  return {
    /**
     * Runs `step` serialized against every other booking (SQLite: the one connection; PostgreSQL, which
     * several nodes may share: an advisory lock held to the commit).
     */
    serializedBooking<T>(step: (failures: SignInFailures) => Promise<T>): Promise<T> {
      return db.transaction().execute(async (trx) => {
        if (onPostgres) await sql`select pg_advisory_xact_lock(${SIGN_IN_LOCK})`.execute(trx);
        return step(failuresOn(trx));
      });
    },

    /** Sweeps the failures at or before `cutoff`. */
    async deleteFailuresUntil(cutoff: string): Promise<void> {
      await db.deleteFrom('web_sign_in_failures').where('at', '<=', cutoff).execute();
    },

    /** Forgets the failures of `key` and the rows `ids`. */
    async deleteFailures(key: string, ids: readonly number[]): Promise<void> {
      await db
        .deleteFrom('web_sign_in_failures')
        .where((eb) => eb.or([eb('key', '=', key), eb('id', 'in', ids)]))
        .execute();
    },

    findUserByEmail(email: string) {
      return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
    },

    async insert(row: { id: string; user_id: number; csrf_token: string; created_at: string; expires_at: string }): Promise<void> {
      await db.insertInto('web_sessions').values(row).execute();
    },

    /** The unexpired session `id` of an active user, with the user. */
    findLive: (id: string, now: string) => findLiveSession(db, id, now),

    /** Runs `work` in one transaction (a sign-out and its audit record). */
    transaction<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
      return inTransaction(database.kysely, work);
    },

    async delete(id: string, executor: Kysely<Database> = database.kysely): Promise<void> {
      await executor.deleteFrom('web_sessions').where('id', '=', id).execute();
    },

    async deleteOfUser(userId: number, executor: Kysely<Database> = database.kysely): Promise<void> {
      await executor.deleteFrom('web_sessions').where('user_id', '=', userId).execute();
    },

    /** Ends every session of the user but `keepId`. */
    async deleteOfUserExcept(userId: number, keepId: string, executor: Kysely<Database> = database.kysely): Promise<void> {
      await executor.deleteFrom('web_sessions').where('user_id', '=', userId).where('id', '<>', keepId).execute();
    },

    /** Sets the user's time zone unless they have one (the browser's, reported at sign-in). */
    /** The language the browser asked for at this sign-in (docs/decisions.md): kept for what is written to the user later. */
    async setBrowserLanguage(userId: number, language: string): Promise<void> {
      await db.updateTable('users').set({ browser_language: language }).where('id', '=', userId).execute();
    },

    async setTimeZoneIfUnset(userId: number, zone: string, at: string): Promise<void> {
      await db
        .updateTable('users')
        .set({ time_zone: zone, updated_at: at })
        .where('id', '=', userId)
        .where('time_zone', 'is', null)
        .execute();
    },
  };
}

export type SessionsRepository = ReturnType<typeof createSessionsRepository>;
