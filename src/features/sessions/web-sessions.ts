import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../shared/clock.js';
import type { Database } from '../../db/tables.js';
import type { UserRole } from '../../domain/values.js';
import type { Language } from '../../i18n/i18n.js';
import type { RecordAudit } from '../audit/audit.service.js';
import type { SessionsRepository } from './sessions.repository.js';

/** What every use case of web sessions is given (features/sessions/sessions.service.ts wires it). */
export interface SessionsDeps {
  repo: SessionsRepository;
  clock: Clock;
}

/** A session lasts a working day from sign-in, whatever happens in between (no sliding renewal). */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;

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

const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;

export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const randomToken = () => randomBytes(32).toString('base64url');

/** Constant-time comparison of two secrets of any length. */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/** The fields of a user a session is opened for. */
export interface SessionOwner {
  id: number;
  name: string;
  email: string;
  role: string;
  time_zone: string | null;
  language: string | null;
}

/** A new session of `user` (sign-in, an invitation accepted): its cookie's value, kept only as its hash. */
export async function openSession(
  { repo }: SessionsDeps,
  user: SessionOwner,
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

/** Signs in a person who has just set their password from an invitation (docs/design.md §20); ends `replacing`. */
export async function openSessionFor(
  deps: SessionsDeps,
  user: SessionOwner,
  replacing?: string,
): Promise<{ cookieValue: string; session: WebSession }> {
  if (replacing) await signOut(deps, replacing);
  return openSession(deps, user, deps.clock.now());
}

/** The live session behind a cookie value: unexpired, and its user still active. */
export async function resolveSession({ repo, clock }: SessionsDeps, cookieValue: string | undefined): Promise<WebSession | null> {
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
}

/** Ends the session of the cookie; `recordAudit` commits with it (the web's sign-out). */
export async function signOut({ repo }: SessionsDeps, cookieValue: string, recordAudit?: RecordAudit): Promise<void> {
  if (!COOKIE_VALUE.test(cookieValue)) return;
  await repo.transaction(async (trx) => {
    await repo.delete(sha256(cookieValue), trx);
    await recordAudit?.(trx);
  });
}

/** Ends every session of a user (on deactivation), in the caller's transaction `executor` when given. */
export async function endUserSessions({ repo }: SessionsDeps, userId: number, executor?: Kysely<Database>): Promise<void> {
  await repo.deleteOfUser(userId, executor);
}

/** Ends the user's sessions elsewhere, keeping `keep` (after a password change in it; in its transaction). */
export async function endOtherSessions(
  { repo }: SessionsDeps,
  userId: number,
  keep: WebSession,
  executor?: Kysely<Database>,
): Promise<void> {
  await repo.deleteOfUserExcept(userId, keep.id, executor);
}
