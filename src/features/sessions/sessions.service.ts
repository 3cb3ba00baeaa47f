import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { type Generated, type Kysely, PostgresAdapter, sql } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/tables.js';
import { prepareDummyHash, verifyPassword } from '../../domain/passwords.js';
import type { UserRole } from '../../domain/values.js';
import { readCookie, sessionCookieName } from './session-cookie.js';

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

/** A session lasts a working day from sign-in, whatever happens in between (no sliding renewal). */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;
/** Failures counted over a sliding window; at the limit, attempts are refused until old failures age out. */
export const THROTTLE_WINDOW_MS = 15 * 60 * 1000;
export const ACCOUNT_FAILURE_LIMIT = 10;
/** Higher than per account: several people behind one office address must not lock each other out. */
export const IP_FAILURE_LIMIT = 30;
/** The PostgreSQL advisory lock that serializes the throttle's check-and-book across nodes (any fixed number). */
const SIGN_IN_LOCK = 0x70_6c_6b_01;

export interface SessionUser {
  id: number;
  name: string;
  email: string;
  role: UserRole;
}

export interface WebSession {
  /** SHA-256 of the cookie value: what the database holds. */
  id: string;
  user: SessionUser;
  csrfToken: string;
  createdAt: string;
  expiresAt: string;
}

export type SignInResult =
  | { ok: true; cookieValue: string; session: WebSession }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number };

const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const randomToken = () => randomBytes(32).toString('base64url');

/** Constant-time comparison of two secrets of any length. */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

export function createSessionsService(database: Kysely<Database>, clock: Clock) {
  const db = database as unknown as Kysely<SessionsDatabase>;
  const onPostgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // The unknown-account check needs its dummy hash: made now, in the background, not on the first attempt.
  prepareDummyHash();

  /** When the oldest failures that keep `key` at its limit leave the window; null when under the limit. */
  async function lockedUntil(executor: Kysely<SessionsDatabase>, key: string, limit: number, now: Date): Promise<number | null> {
    const since = new Date(now.getTime() - THROTTLE_WINDOW_MS).toISOString();
    const rows = await executor
      .selectFrom('web_sign_in_failures')
      .select('at')
      .where('key', '=', key)
      .where('at', '>', since)
      .orderBy('at', 'desc')
      .limit(limit)
      .execute();
    const oldest = rows[limit - 1];
    return oldest ? Date.parse(oldest.at) + THROTTLE_WINDOW_MS : null;
  }

  /**
   * Checks the throttle and books the attempt as a failure of both keys in one step, before the slow
   * password check: otherwise a parallel burst would all pass the check before any failure is recorded.
   * The step is serialized (SQLite: the one connection; PostgreSQL, which several nodes may share: an
   * advisory lock held to the commit), so of N simultaneous attempts exactly those within the limits are
   * booked. The lock covers three short statements, never the password check.
   * Returns the booked row ids, or when the attempt is throttled the time the lock ends.
   */
  async function bookAttempt(accountKey: string, ipKey: string, now: Date): Promise<{ booked: number[] } | { until: number }> {
    return db.transaction().execute(async (trx) => {
      if (onPostgres) await sql`select pg_advisory_xact_lock(${SIGN_IN_LOCK})`.execute(trx);
      const until = Math.max(
        (await lockedUntil(trx, accountKey, ACCOUNT_FAILURE_LIMIT, now)) ?? 0,
        (await lockedUntil(trx, ipKey, IP_FAILURE_LIMIT, now)) ?? 0,
      );
      if (until > now.getTime()) return { until };
      const at = now.toISOString();
      const rows = await trx
        .insertInto('web_sign_in_failures')
        .values([accountKey, ipKey].map((key) => ({ key, at })))
        .returning('id')
        .execute();
      return { booked: rows.map((r) => r.id) };
    });
  }

  const service = {
    /**
     * Checks the throttle and books the attempt, then the password (constant time, unknown accounts
     * included); a deactivated user fails like a wrong password. Success opens a new session and ends
     * `replacing` (no fixation).
     */
    async signIn(input: { email: string; password: string; ip: string; replacing?: string }): Promise<SignInResult> {
      const email = input.email.trim().toLowerCase().slice(0, 320);
      const accountKey = `account:${email}`;
      const ipKey = `ip:${input.ip}`;
      const now = clock.now();
      const booking = await bookAttempt(accountKey, ipKey, now);
      if ('until' in booking) {
        return { ok: false, reason: 'throttled', retryAfterSeconds: Math.max(1, Math.ceil((booking.until - now.getTime()) / 1000)) };
      }
      const user = email ? await db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst() : undefined;
      const passwordOk = await verifyPassword(input.password, user?.password_hash ?? null);
      if (!user || !passwordOk || user.active !== 1) {
        // The booked rows stay, as this failure; failures that left the window are swept.
        await db
          .deleteFrom('web_sign_in_failures')
          .where('at', '<=', new Date(now.getTime() - THROTTLE_WINDOW_MS).toISOString())
          .execute();
        return { ok: false, reason: 'invalid' };
      }
      // Success forgets the account's failures, and this attempt's booking against the address.
      await db.deleteFrom('web_sign_in_failures').where((eb) => eb.or([eb('key', '=', accountKey), eb('id', 'in', booking.booked)])).execute();
      if (input.replacing) await service.signOut(input.replacing);
      const cookieValue = randomToken();
      const session: WebSession = {
        id: sha256(cookieValue),
        user: { id: user.id, name: user.name, email: user.email, role: user.role as UserRole },
        csrfToken: randomToken(),
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS).toISOString(),
      };
      await db
        .insertInto('web_sessions')
        .values({
          id: session.id,
          user_id: user.id,
          csrf_token: session.csrfToken,
          created_at: session.createdAt,
          expires_at: session.expiresAt,
        })
        .execute();
      return { ok: true, cookieValue, session };
    },

    /** The live session behind a cookie value: unexpired, and its user still active. */
    async resolve(cookieValue: string | undefined): Promise<WebSession | null> {
      if (!cookieValue || !COOKIE_VALUE.test(cookieValue)) return null;
      const row = await db
        .selectFrom('web_sessions as s')
        .innerJoin('users as u', 'u.id', 's.user_id')
        .select(['s.id', 's.csrf_token', 's.created_at', 's.expires_at', 'u.id as user_id', 'u.name', 'u.email', 'u.role'])
        .where('s.id', '=', sha256(cookieValue))
        .where('s.expires_at', '>', clock.now().toISOString())
        .where('u.active', '=', 1)
        .executeTakeFirst();
      if (!row) return null;
      return {
        id: row.id,
        user: { id: row.user_id, name: row.name, email: row.email, role: row.role as UserRole },
        csrfToken: row.csrf_token,
        createdAt: row.created_at,
        expiresAt: row.expires_at,
      };
    },

    /**
     * The signed-in user behind a request's `Cookie` header, for routes outside the web scope that also
     * accept the web session (attachment downloads, DESIGN.md §6). Null when there is no live session.
     */
    async userFromCookieHeader(cookieHeader: string | undefined, baseUrl: string): Promise<SessionUser | null> {
      return (await service.resolve(readCookie(cookieHeader, sessionCookieName(baseUrl))))?.user ?? null;
    },

    async signOut(cookieValue: string): Promise<void> {
      if (COOKIE_VALUE.test(cookieValue)) await db.deleteFrom('web_sessions').where('id', '=', sha256(cookieValue)).execute();
    },

    /** Ends every session of a user (on deactivation). */
    async endUserSessions(userId: number): Promise<void> {
      await db.deleteFrom('web_sessions').where('user_id', '=', userId).execute();
    },
  };
  return service;
}

export type SessionsService = ReturnType<typeof createSessionsService>;
