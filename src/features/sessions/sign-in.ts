import { setTimeout as sleep } from 'node:timers/promises';
import { verifyPassword } from '../../domain/passwords.js';
import { canonicalTimeZone } from '../../domain/time-zones.js';
import type { Language } from '../../i18n/i18n.js';
import type { SignInFailures } from './sessions.repository.js';
import { openSession, type SessionsDeps, signOut, type WebSession } from './web-sessions.js';

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

export type SignInResult =
  | { ok: true; cookieValue: string; session: WebSession }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number };

export interface SignInInput {
  email: string;
  password: string;
  ip: string;
  replacing?: string;
  browserTimeZone?: string;
  /** The language the browser asks for (`Accept-Language` resolved), when it asks: remembered for emails. */
  browserLanguage?: Language;
}

const windowStart = (now: Date) => new Date(now.getTime() - THROTTLE_WINDOW_MS).toISOString();

/** When the oldest failures that keep `key` at its limit leave the window; null when under the limit. */
async function lockedUntil(failures: SignInFailures, key: string, limit: number, now: Date): Promise<number | null> {
  const rows = await failures.recent(key, windowStart(now), limit);
  const oldest = rows[limit - 1];
  return oldest ? Date.parse(oldest.at) + THROTTLE_WINDOW_MS : null;
}

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
  { repo }: SessionsDeps,
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

/**
 * Checks the throttle and books the attempt, waits the account's delay, then checks the password (constant time, unknown accounts
 * included); a deactivated user fails like a wrong password. Success opens a new session and ends
 * `replacing` (no fixation).
 */
export async function signIn(deps: SessionsDeps, input: SignInInput): Promise<SignInResult> {
  const { repo } = deps;
  const email = input.email.trim().toLowerCase().slice(0, 320);
  const accountKey = `account:${email}`;
  const ipKey = `ip:${input.ip}`;
  const now = deps.clock.now();
  const booking = await bookAttempt(deps, accountKey, ipKey, now);
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
  if (input.replacing) await signOut(deps, input.replacing);
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
  return { ok: true, ...(await openSession(deps, { ...user, time_zone: timeZone }, now)) };
}
