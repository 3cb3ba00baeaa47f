import type { Kysely } from 'kysely';
import type { Clock } from '../../shared/clock.js';
import type { Database } from '../../db/tables.js';
import { prepareDummyHash } from '../../domain/passwords.js';
import type { RecordAudit } from '../audit/audit.service.js';
import type { SessionsRepository } from './sessions.repository.js';
import { signIn, type SignInInput } from './sign-in.js';
import {
  endOtherSessions,
  endUserSessions,
  openSessionFor,
  resolveSession,
  type SessionOwner,
  type SessionsDeps,
  signOut,
  type WebSession,
} from './web-sessions.js';

export {
  accountDelayMs,
  ACCOUNT_FIRST_DELAY_MS,
  ACCOUNT_FREE_FAILURES,
  ACCOUNT_MAX_DELAY_MS,
  IP_FAILURE_LIMIT,
  THROTTLE_WINDOW_MS,
} from './sign-in.js';
export { sameSecret, SESSION_LIFETIME_MS, type SessionUser, type WebSession } from './web-sessions.js';

/** Web sessions: sign-in with its throttle, the session behind a cookie, sign-out. Each use case has its file. */
export function createSessionsService(repo: SessionsRepository, clock: Clock) {
  // The unknown-account check needs its dummy hash: made now, in the background, not on the first attempt.
  prepareDummyHash();
  const deps: SessionsDeps = { repo, clock };
  return {
    signIn: (input: SignInInput) => signIn(deps, input),
    openSessionFor: (user: SessionOwner, replacing?: string) => openSessionFor(deps, user, replacing),
    resolve: (cookieValue: string | undefined) => resolveSession(deps, cookieValue),
    /**
     * The signed-in user behind a session cookie's value, for routes outside the web scope that also
     * accept the web session (attachment downloads, docs/design.md §6). Null when there is no live session.
     */
    userFromCookie: async (cookieValue: string | undefined) => (await resolveSession(deps, cookieValue))?.user ?? null,
    signOut: (cookieValue: string, recordAudit?: RecordAudit) => signOut(deps, cookieValue, recordAudit),
    endUserSessions: (userId: number, executor?: Kysely<Database>) => endUserSessions(deps, userId, executor),
    endOtherSessions: (userId: number, keep: WebSession, executor?: Kysely<Database>) => endOtherSessions(deps, userId, keep, executor),
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;
