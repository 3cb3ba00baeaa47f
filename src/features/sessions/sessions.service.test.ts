import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeUser, type TestUser, unique, useTestContext } from '../../../test/helpers/factories.js';
import type { Database } from '../../db/tables.js';
import type { WebSignInFailuresTable } from './sessions.repository.js';
import {
  ACCOUNT_FIRST_DELAY_MS,
  ACCOUNT_FREE_FAILURES,
  ACCOUNT_MAX_DELAY_MS,
  accountDelayMs,
  IP_FAILURE_LIMIT,
  SESSION_LIFETIME_MS,
} from './sessions.service.js';

/**
 * Web sessions through the service, on both dialects, with the test clock. A password check costs a
 * scrypt (about 0.3 s of CPU here), so throttling is set up by booking earlier failures in the table and
 * the suite checks few passwords.
 */
const t = useTestContext();

const PASSWORD = 'correct horse battery staple';
/** Each sign-in from its own address, so that tests do not share the per-address throttle. */
const ip = () => `ip-${unique('addr')}`;
const signIn = (user: { email: string }, password = PASSWORD, from = ip(), replacing?: string) =>
  t.ctx.sessions.signIn({ email: user.email, password, ip: from, replacing });
async function signedIn(user: TestUser) {
  const result = await signIn(user);
  if (!result.ok) throw new Error(`sign-in failed: ${result.reason}`);
  return result;
}
/** The failures table is typed by the sessions service (migration 003-web), not in the shared Database. */
const failures = () => t.ctx.db.kysely as unknown as Kysely<Database & { web_sign_in_failures: WebSignInFailuresTable }>;
const sessionsOf = (userId: number) => t.ctx.db.kysely.selectFrom('web_sessions').select('id').where('user_id', '=', userId).execute();
/** Failures booked `agoMs` before now, as earlier attempts would have left them. */
async function bookFailures(key: string, count: number, agoMs = 0) {
  const at = new Date(t.clock.now().getTime() - agoMs).toISOString();
  await failures()
    .insertInto('web_sign_in_failures')
    .values(Array.from({ length: count }, () => ({ key, at })))
    .execute();
}

let user: TestUser;
beforeAll(async () => {
  user = await makeUser(t, { password: PASSWORD, name: 'Sally Session' });
});

describe('sessions.signIn and resolve', () => {
  it('opens a 12-hour session kept as a hash of the cookie value, found again by resolve', async () => {
    const result = await t.ctx.sessions.signIn({ email: `  ${user.email.toUpperCase()} `, password: PASSWORD, ip: ip() });
    if (!result.ok) throw new Error('expected a session');
    const now = t.clock.now();
    expect(result.session).toEqual({
      id: createHash('sha256').update(result.cookieValue).digest('hex'),
      user: { id: user.id, name: 'Sally Session', email: user.email, role: 'member' },
      csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS).toISOString(),
      timeZone: null,
      chosenLanguage: null,
    });
    expect(await t.ctx.sessions.resolve(result.cookieValue)).toEqual(result.session);
    const stored = await t.ctx.db.kysely.selectFrom('web_sessions').selectAll().where('user_id', '=', user.id).execute();
    expect(stored.map((s) => s.id)).toContain(result.session.id);
    expect(JSON.stringify(stored)).not.toContain(result.cookieValue);
    expect(await t.ctx.sessions.userFromCookie(result.cookieValue)).toEqual(result.session.user);
  });

  it('refuses a wrong password, an unknown account and a deactivated user alike, opening no session', async () => {
    const inactive = await makeUser(t, { password: PASSWORD });
    await t.ctx.users.setActive(inactive.id, false);
    const before = (await sessionsOf(user.id)).length;
    expect(await signIn(user, 'wrong password')).toEqual({ ok: false, reason: 'invalid' });
    expect(await signIn({ email: 'nobody@example.test' })).toEqual({ ok: false, reason: 'invalid' });
    expect(await signIn(inactive)).toEqual({ ok: false, reason: 'invalid' });
    expect(await signIn({ email: '' })).toEqual({ ok: false, reason: 'invalid' });
    expect(await sessionsOf(user.id)).toHaveLength(before);
    expect(await sessionsOf(inactive.id)).toEqual([]);
  });

  it('ends the session it replaces (no fixation), and resolves nothing for a malformed or unknown cookie', async () => {
    const first = await signedIn(user);
    const second = await signIn(user, PASSWORD, ip(), first.cookieValue);
    expect(second.ok).toBe(true);
    expect(await t.ctx.sessions.resolve(first.cookieValue)).toBeNull();
    for (const value of [undefined, '', 'short', `${first.cookieValue}x`, 'A'.repeat(43)]) {
      expect(await t.ctx.sessions.resolve(value)).toBeNull();
    }
  });

  it('expires a session at its expiry time by the clock, and with its user deactivated', async () => {
    const session = await signedIn(user);
    t.clock.advance(SESSION_LIFETIME_MS - 1);
    expect(await t.ctx.sessions.resolve(session.cookieValue)).not.toBeNull();
    t.clock.advance(1);
    expect(await t.ctx.sessions.resolve(session.cookieValue)).toBeNull();

    const other = await makeUser(t, { password: PASSWORD });
    const live = await signedIn(other);
    await t.ctx.users.setActive(other.id, false);
    expect(await t.ctx.sessions.resolve(live.cookieValue)).toBeNull();
  });

  it("signs out one session; ending a user's sessions leaves other users' sessions alone", async () => {
    const other = await makeUser(t, { password: PASSWORD });
    const [a, b, c] = [await signedIn(user), await signedIn(user), await signedIn(other)];
    await t.ctx.sessions.signOut(a.cookieValue);
    expect(await t.ctx.sessions.resolve(a.cookieValue)).toBeNull();
    expect(await t.ctx.sessions.resolve(b.cookieValue)).not.toBeNull();
    await t.ctx.sessions.endUserSessions(user.id);
    expect(await sessionsOf(user.id)).toEqual([]);
    expect(await t.ctx.sessions.resolve(c.cookieValue)).not.toBeNull();
    // The admin service ends them on deactivation.
    await t.ctx.usersAdmin.setUserActive(t.admin, other.id, false);
    expect(await sessionsOf(other.id)).toEqual([]);
  });
});

describe('sessions: sign-in throttling', () => {
  it('slows an account past its free failures, doubling up to a cap', () => {
    const delays = Array.from({ length: ACCOUNT_FREE_FAILURES + 6 }, (_, failures) => accountDelayMs(failures));
    expect(delays).toEqual([...Array(ACCOUNT_FREE_FAILURES).fill(0), 500, 1000, 2000, 4000, 4000, 4000]);
    expect(ACCOUNT_FIRST_DELAY_MS).toBe(500);
    expect(ACCOUNT_MAX_DELAY_MS).toBe(4000);
  });

  it('never refuses an account however many failures it has: the right password signs in after the delay, and forgets them', async () => {
    const target = await makeUser(t, { password: PASSWORD });
    await bookFailures(`account:${target.email}`, 50, 60_000);
    const started = performance.now();
    expect(await signIn(target, 'wrong')).toEqual({ ok: false, reason: 'invalid' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(ACCOUNT_MAX_DELAY_MS - 5);
    const again = performance.now();
    expect((await signIn(target)).ok).toBe(true);
    expect(performance.now() - again).toBeGreaterThanOrEqual(ACCOUNT_MAX_DELAY_MS - 5);
    const left = await failures().selectFrom('web_sign_in_failures').select('key').where('key', '=', `account:${target.email}`).execute();
    expect(left).toEqual([]);
  });

  it('throttles an address at its own, higher limit, whatever the account; other addresses are not affected', async () => {
    const from = ip();
    await bookFailures(`ip:${from}`, IP_FAILURE_LIMIT);
    expect(await signIn(user, PASSWORD, from)).toMatchObject({ ok: false, reason: 'throttled' });
    expect((await signIn(user, PASSWORD, ip())).ok).toBe(true);
  });

  it('books simultaneous attempts one by one: each of a burst waits the delay of the failures booked before it', async () => {
    const target = await makeUser(t);
    await bookFailures(`account:${target.email}`, ACCOUNT_FREE_FAILURES - 2);
    const timed = async () => {
      const started = performance.now();
      const result = await signIn(target, 'wrong');
      return { reason: result.ok ? 'ok' : result.reason, ms: performance.now() - started };
    };
    const results = await Promise.all(Array.from({ length: 5 }, timed));
    expect(results.map((r) => r.reason)).toEqual(Array(5).fill('invalid'));
    // Booked with 3, 4, 5, 6 and 7 failures before them: no delay twice, then 0.5, 1 and 2 s.
    const slowest = results.map((r) => r.ms).sort((a, b) => a - b);
    const delays = [0, 0, 500, 1000, 2000];
    slowest.forEach((ms, i) => expect(ms, `attempt ${i}`).toBeGreaterThanOrEqual(delays[i]! - 5));
  });
});

describe('sessions: time zone and the other sessions', () => {
  it("gives a user without a time zone the browser's at sign-in, carried by the session; never over a chosen one", async () => {
    const user = await makeUser(t, { password: PASSWORD });
    const first = await t.ctx.sessions.signIn({ email: user.email, password: PASSWORD, ip: ip(), browserTimeZone: 'Asia/Tokyo' });
    expect(first.ok && first.session.timeZone).toBe('Asia/Tokyo');
    await t.ctx.users.setTimeZone(user.id, 'Europe/Berlin');
    const second = await t.ctx.sessions.signIn({ email: user.email, password: PASSWORD, ip: ip(), browserTimeZone: 'Asia/Tokyo' });
    expect(second.ok && second.session.timeZone).toBe('Europe/Berlin');
    expect((await t.ctx.sessions.resolve(first.ok ? first.cookieValue : ''))?.timeZone).toBe('Europe/Berlin');
    const bad = await makeUser(t, { password: PASSWORD });
    const third = await t.ctx.sessions.signIn({ email: bad.email, password: PASSWORD, ip: ip(), browserTimeZone: 'Not/A_Zone' });
    expect(third.ok && third.session.timeZone).toBeNull();
  });

  it('ends the other sessions of the user, keeping the given one and other users’ sessions', async () => {
    const user = await makeUser(t, { password: PASSWORD });
    const other = await makeUser(t, { password: PASSWORD });
    const [here, there, theirs] = await Promise.all([signedIn(user), signedIn(user), signedIn(other)]);
    await t.ctx.sessions.endOtherSessions(user.id, here.session);
    expect(await t.ctx.sessions.resolve(here.cookieValue)).not.toBeNull();
    expect(await t.ctx.sessions.resolve(there.cookieValue)).toBeNull();
    expect(await t.ctx.sessions.resolve(theirs.cookieValue)).not.toBeNull();
    expect(await sessionsOf(user.id)).toEqual([{ id: here.session.id }]);
  });
});
