import type { Language } from '../../i18n/i18n.js';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Clock } from '../../shared/clock.js';
import type { Database } from '../../db/tables.js';
import { prepareDummyHash, verifyPassword } from '../../domain/passwords.js';
import { canonicalTimeZone } from '../../domain/time-zones.js';
import type { UserRole } from '../../domain/values.js';
import type { RecordAudit } from '../audit/audit.service.js';
import type { SessionsRepository, SignInFailures } from './sessions.repository.js';

/** A session lasts a working day from sign-in, whatever happens in between (no sliding renewal). */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;
/** Failures counted over a sliding window. */
export const THROTTLE_WINDOW_MS = 15 * 60 * 1000;
/**
 * Per address, a limit: at it, attempts from that address are refused (429) until old failures age out. High, so
 * that several people behind one office address do not lock each other out.
 */
export const IP_FAILURE_LIMIT = 30;
/**
 * Per account, only a delay, never a refusal (OWASP's authentication cheat sheet): a lock per account would let
 * anyone lock its owner out by guessing. After this many failures in the window, each attempt on the account
 * waits before its password is checked, twice as long as the one before, up to the cap; the owner still signs
 * in, a little slower, while someone guesses from elsewhere.
 */
export const ACCOUNT_FREE_FAILURES = 5;
export const ACCOUNT_FIRST_DELAY_MS = 500;
export const ACCOUNT_MAX_DELAY_MS = 4000;

/** How long an attempt on an account waits, given the account's failures in the window before it. */
export function accountDelayMs(failures: number): number {
  if (failures < ACCOUNT_FREE_FAILURES) return 0;
  return Math.min(ACCOUNT_MAX_DELAY_MS, ACCOUNT_FIRST_DELAY_MS * 2 ** (failures - ACCOUNT_FREE_FAILURES));
}

/** The account failures that can change the delay: beyond them, it is at its cap. */
const ACCOUNT_FAILURES_COUNTED = ACCOUNT_FREE_FAILURES + Math.ceil(Math.log2(ACCOUNT_MAX_DELAY_MS / ACCOUNT_FIRST_DELAY_MS)) + 1;

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
  /** Unread notifications, counted for the navigation of the page being served (web/pages/notifications.ts). */
  unreadNotifications?: number;
  createdAt: string;
  expiresAt: string;
  /** The user's IANA time zone, in which the web shows times; null: none chosen (UTC). */
  timeZone: string | null;
  /** The language chosen in the Profile (src/i18n); null: none, the browser's decides. */
  chosenLanguage: string | null;
  /** The page's language, filled by the web for each request (the choice, else `Accept-Language`). */
  language?: Language;
  /** What the navigation counts, filled by the web for the pages it renders: "To review" (null: reviews nowhere). */
  toReview?: number | null;
}

type SignInResult =
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

export function createSessionsService(repo: SessionsRepository, clock: Clock) {
  // The unknown-account check needs its dummy hash: made now, in the background, not on the first attempt.
  prepareDummyHash();

  /** When the oldest failures that keep `key` at its limit leave the window; null when under the limit. */
  async function lockedUntil(failures: SignInFailures, key: string, limit: number, now: Date): Promise<number | null> {
    const rows = await failures.recent(key, windowStart(now), limit);
    const oldest = rows[limit - 1];
    return oldest ? Date.parse(oldest.at) + THROTTLE_WINDOW_MS : null;
  }

  const windowStart = (now: Date) => new Date(now.getTime() - THROTTLE_WINDOW_MS).toISOString();

  /**
   * Checks the address's limit and books the attempt as a failure of both keys in one step, before the slow
   * password check: otherwise a parallel burst would all pass the check, and see the same account delay, before
   * any failure is recorded. The step is serialized (SQLite: the one connection; PostgreSQL, which several nodes
   * may share: an advisory lock held to the commit), so of N simultaneous attempts exactly those within the
   * address's limit are booked, each seeing the account failures booked before it. The lock covers three short
   * statements, never the password check nor the delay.
   * Returns the booked row ids and the account's delay, or when the address is throttled the time that ends.
   */
  async function bookAttempt(
    accountKey: string,
    ipKey: string,
    now: Date,
  ): Promise<{ booked: number[]; delayMs: number } | { until: number }> {
    return repo.serializedBooking(async (failures) => {
      const until = (await lockedUntil(failures, ipKey, IP_FAILURE_LIMIT, now)) ?? 0;
      if (until > now.getTime()) return { until };
      const accountFailures = (await failures.recent(accountKey, windowStart(now), ACCOUNT_FAILURES_COUNTED)).length;
      return { booked: await failures.book([accountKey, ipKey], now.toISOString()), delayMs: accountDelayMs(accountFailures) };
    });
  }

  /** A new session of `user` (sign-in, an invitation accepted): its cookie's value, kept only as its hash. */
  async function openSession(
    user: { id: number; name: string; email: string; role: string; time_zone: string | null; language: string | null },
    now: Date,
  ): Promise<{ cookieValue: string; session: WebSession }> {
    const cookieValue = randomToken();
    const session: WebSession = {
      id: sha256(cookieValue),
      user: { id: user.id, name: user.name, email: user.email, role: user.role as UserRole },
      csrfToken: randomToken(),
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS).toISOString(),
      timeZone: user.time_zone,
      chosenLanguage: user.language,
    };
    await repo.insert({
      id: session.id,
      user_id: user.id,
      csrf_token: session.csrfToken,
      created_at: session.createdAt,
      expires_at: session.expiresAt,
    });
    return { cookieValue, session };
  }

  const service = {
    /**
     * Checks the throttle and books the attempt, waits the account's delay, then checks the password (constant time, unknown accounts
     * included); a deactivated user fails like a wrong password. Success opens a new session and ends
     * `replacing` (no fixation).
     */
    async signIn(input: {
      email: string;
      password: string;
      ip: string;
      replacing?: string;
      browserTimeZone?: string;
      /** The language the browser asks for (`Accept-Language` resolved), when it asks: remembered for emails. */
      browserLanguage?: Language;
    }): Promise<SignInResult> {
      const email = input.email.trim().toLowerCase().slice(0, 320);
      const accountKey = `account:${email}`;
      const ipKey = `ip:${input.ip}`;
      const now = clock.now();
      const booking = await bookAttempt(accountKey, ipKey, now);
      if ('until' in booking) {
        return { ok: false, reason: 'throttled', retryAfterSeconds: Math.max(1, Math.ceil((booking.until - now.getTime()) / 1000)) };
      }
      // Before the password check, right or wrong alike: a delay that ended early would tell the password.
      if (booking.delayMs > 0) await sleep(booking.delayMs);
      const user = email ? await repo.findUserByEmail(email) : undefined;
      const passwordOk = await verifyPassword(input.password, user?.password_hash ?? null);
      if (!user || !passwordOk || user.active !== 1) {
        // The booked rows stay, as this failure; failures that left the window are swept.
        await repo.deleteFailuresUntil(windowStart(now));
        return { ok: false, reason: 'invalid' };
      }
      // Success forgets the account's failures, and this attempt's booking against the address.
      await repo.deleteFailures(accountKey, booking.booked);
      if (input.replacing) await service.signOut(input.replacing);
      // A user who never chose a time zone gets the browser's (docs/design.md §14); they may change it in the Profile.
      let timeZone = user.time_zone;
      const browserZone = timeZone === null ? canonicalTimeZone(input.browserTimeZone) : null;
      if (browserZone) {
        await repo.setTimeZoneIfUnset(user.id, browserZone, now.toISOString());
        timeZone = browserZone;
      }
      if (input.browserLanguage && input.browserLanguage !== user.browser_language) {
        await repo.setBrowserLanguage(user.id, input.browserLanguage);
      }
      return { ok: true, ...(await openSession({ ...user, time_zone: timeZone }, now)) };
    },

    /** Signs in a person who has just set their password from an invitation (docs/design.md §20); ends `replacing`. */
    async openSessionFor(
      user: { id: number; name: string; email: string; role: string; time_zone: string | null; language: string | null },
      replacing?: string,
    ): Promise<{ cookieValue: string; session: WebSession }> {
      if (replacing) await service.signOut(replacing);
      return openSession(user, clock.now());
    },

    /** The live session behind a cookie value: unexpired, and its user still active. */
    async resolve(cookieValue: string | undefined): Promise<WebSession | null> {
      if (!cookieValue || !COOKIE_VALUE.test(cookieValue)) return null;
      const row = await repo.findLive(sha256(cookieValue), clock.now().toISOString());
      if (!row) return null;
      return {
        id: row.id,
        user: { id: row.user_id, name: row.name, email: row.email, role: row.role as UserRole },
        csrfToken: row.csrf_token,
        createdAt: row.created_at,
        expiresAt: row.expires_at,
        timeZone: row.time_zone,
        chosenLanguage: row.language,
      };
    },

    /**
     * The signed-in user behind a session cookie's value, for routes outside the web scope that also
     * accept the web session (attachment downloads, docs/design.md §6). Null when there is no live session.
     */
    async userFromCookie(cookieValue: string | undefined): Promise<SessionUser | null> {
      return (await service.resolve(cookieValue))?.user ?? null;
    },

    /** Ends the session of the cookie; `recordAudit` commits with it (the web's sign-out). */
    async signOut(cookieValue: string, recordAudit?: RecordAudit): Promise<void> {
      if (!COOKIE_VALUE.test(cookieValue)) return;
      await repo.transaction(async (trx) => {
        await repo.delete(sha256(cookieValue), trx);
        await recordAudit?.(trx);
      });
    },

    /** Ends every session of a user (on deactivation), in the caller's transaction `executor` when given. */
    async endUserSessions(userId: number, executor?: Kysely<Database>): Promise<void> {
      await repo.deleteOfUser(userId, executor);
    },

    /** Ends the user's sessions elsewhere, keeping `keep` (after a password change in it; in its transaction). */
    async endOtherSessions(userId: number, keep: WebSession, executor?: Kysely<Database>): Promise<void> {
      await repo.deleteOfUserExcept(userId, keep.id, executor);
    },
  };
  return service;
}

export type SessionsService = ReturnType<typeof createSessionsService>;
