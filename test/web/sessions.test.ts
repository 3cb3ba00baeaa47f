import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ACCOUNT_FREE_FAILURES,
  ACCOUNT_MAX_DELAY_MS,
  IP_FAILURE_LIMIT,
  SESSION_LIFETIME_MS,
} from '../../src/features/sessions/sessions.service.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { PASSWORD, USERS } from '../helpers/workspace.js';
import { csrfOf, WebClient } from './web-client.js';

/** A clock the tests move forward. */
const clock = {
  offset: 0,
  now: () => new Date(Date.now() + clock.offset),
};

let server: TestServer;
let ipCounter = 0;
/** A client from its own address (TRUST_PROXY is on), so throttling in one test never leaks into another. */
const client = (ip = `10.0.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`) => new WebClient(server.url, { 'x-forwarded-for': ip });

beforeAll(async () => {
  server = await startTestServer({ clock, env: { TRUST_PROXY: '1' } });
});
afterAll(() => server.close());
beforeEach(() => {
  clock.offset = 0;
});

/** A Set-Cookie's attributes, in a fixed order (the header's own order carries no meaning). */
const attributesOf = (setCookie: string) => setCookie.split('; ').slice(1).sort();

describe('sign-in', () => {
  it('sends a signed-out visitor from / to /login, which has the labelled form', async () => {
    const web = client();
    const root = await web.get('/');
    expect(root.status).toBe(303);
    expect(root.location).toBe('/login');
    const login = await web.get('/login');
    expect(login.status).toBe(200);
    expect(login.headers.get('content-type')).toMatch(/^text\/html/);
    expect(login.text).toMatch(/<label for="login-email">Email<\/label>\s*<input id="login-email" type="email"/);
    expect(login.text).toMatch(/<label for="login-password">Password<\/label>\s*<input id="login-password" type="password"/);
    expect(login.text).toContain('<button type="submit">Sign in</button>');
    expect(login.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(login.headers.get('x-frame-options')).toBe('DENY');
  });

  it('opens a session stored as the SHA-256 of an HttpOnly, SameSite=Lax cookie', async () => {
    const web = client();
    const response = await web.signIn('manager');
    expect(response.status).toBe(303);
    expect(response.location).toBe('/projects');
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith('punchlist_session='))!;
    expect(attributesOf(cookie)).toEqual(['HttpOnly', 'Max-Age=43200', 'Path=/', 'SameSite=Lax']);
    const value = web.cookies.get('punchlist_session')!;
    const rows = await server.ctx.db.kysely.selectFrom('web_sessions').selectAll().where('user_id', '=', USERS.manager).execute();
    expect(rows.map((r) => r.id)).toContain(createHash('sha256').update(value).digest('hex'));
    expect(rows.map((r) => r.id)).not.toContain(value);

    expect((await web.get('/')).location).toBe('/projects');
    const projects = await web.get('/projects');
    expect(projects.status).toBe(200);
    expect(projects.text).toContain('Plant audit');
    expect((await web.get('/login')).location).toBe('/projects');
  });

  it('returns to the page asked for, and only to a local one', async () => {
    const web = client();
    const asked = await web.get('/items/1000');
    expect(asked.location).toBe('/login?next=%2Fitems%2F1000');
    const login = await web.get('/login?next=%2Fitems%2F1000');
    expect(login.text).toContain('name="next" value="/items/1000"');
    const signedIn = await web.post('/login', { email: 'manager@punchlist.test', password: PASSWORD, next: '/items/1000' }, login.text);
    expect(signedIn.location).toBe('/items/1000');
    const other = client();
    const page = await other.get('/login');
    const evil = await other.post('/login', { email: 'manager@punchlist.test', password: PASSWORD, next: '//evil.test/x' }, page.text);
    expect(evil.location).toBe('/projects');
  });

  it('refuses a wrong password, an unknown account and a deactivated user with the same message', async () => {
    const bodies: string[] = [];
    for (const [email, password] of [
      ['manager@punchlist.test', 'wrong password'],
      ['nobody@punchlist.test', PASSWORD],
      ['inactive@punchlist.test', PASSWORD],
    ] as const) {
      const web = client();
      const login = await web.get('/login');
      const response = await web.post('/login', { email, password }, login.text);
      expect(response.status).toBe(401);
      expect(response.text).toContain('Invalid email or password.');
      expect(web.cookies.has('punchlist_session')).toBe(false);
      bodies.push(response.text.replace(/value="[^"]*"/g, ''));
    }
    expect(new Set(bodies).size).toBe(1);
  });

  it('refuses a sign-in form without its CSRF token', async () => {
    const web = client();
    await web.get('/login');
    const response = await web.post('/login', { email: 'manager@punchlist.test', password: PASSWORD, _csrf: 'forged' });
    expect(response.status).toBe(403);
    expect(web.cookies.has('punchlist_session')).toBe(false);
    const fresh = client();
    const noCookie = await fresh.post('/login', { email: 'manager@punchlist.test', password: PASSWORD, _csrf: 'forged' });
    expect(noCookie.status).toBe(403);
  });

  it('replaces the session presented at sign-in (no fixation)', async () => {
    const web = client();
    const login = await web.get('/login');
    await web.post('/login', { email: 'manager@punchlist.test', password: PASSWORD }, login.text);
    const first = web.cookies.get('punchlist_session')!;
    const again = await web.post('/login', { email: 'executor@punchlist.test', password: PASSWORD }, login.text);
    expect(again.status).toBe(303);
    const second = web.cookies.get('punchlist_session')!;
    expect(second).not.toBe(first);
    expect(await server.ctx.sessions.resolve(first)).toBeNull();
    expect((await server.ctx.sessions.resolve(second))?.user.id).toBe(USERS.executor);
    const stale = new WebClient(server.url);
    stale.cookies.set('punchlist_session', first);
    expect((await stale.get('/projects')).status).toBe(303);
  });

  it('signs out: the session row is gone and the old cookie no longer opens pages', async () => {
    const web = client();
    await web.signIn('observer');
    const value = web.cookies.get('punchlist_session')!;
    const page = await web.get('/projects');
    const out = await web.post('/logout', {}, page.text);
    expect(out.status).toBe(303);
    expect(out.location).toBe('/login');
    const cleared = out.headers.getSetCookie().find((c) => c.startsWith('punchlist_session=;'))!;
    expect(attributesOf(cleared)).toEqual(['HttpOnly', 'Max-Age=0', 'Path=/', 'SameSite=Lax']);
    const replay = new WebClient(server.url);
    replay.cookies.set('punchlist_session', value);
    expect((await replay.get('/projects')).location).toBe('/login?next=%2Fprojects');
  });

  it('ends a session after its lifetime', async () => {
    const web = client();
    await web.signIn('observer');
    // A minute either side: a busy machine may take seconds between the sign-in and the next request.
    clock.offset = SESSION_LIFETIME_MS - 60_000;
    expect((await web.get('/projects')).status).toBe(200);
    clock.offset = SESSION_LIFETIME_MS + 60_000;
    expect((await web.get('/projects')).status).toBe(303);
  });

  it('ends the sessions of a deactivated user at once', async () => {
    const user = await server.ctx.users.createUser({ email: 'leaver@punchlist.test', name: 'Leaver', password: PASSWORD });
    const web = client();
    await web.signIn('leaver@punchlist.test');
    expect((await web.get('/projects')).status).toBe(200);
    await server.ctx.users.setActive(user.id, false);
    expect((await web.get('/projects')).status).toBe(303);
  });
});

describe('CSRF', () => {
  it('refuses every POST without the session token, with a forged one or with another session’s', async () => {
    const web = client();
    await web.signIn('executor');
    const other = client();
    await other.signIn('manager');
    const otherToken = await other.csrf();
    const before = await server.ctx.tokens.listTokens(USERS.executor);
    for (const csrf of [undefined, '', 'forged', otherToken]) {
      const fields: Record<string, string | string[]> = { name: 'csrf test', expiry: '7d', scopes: ['auth:me'] };
      if (csrf !== undefined) fields._csrf = csrf;
      const response = await web.post('/profile/tokens', fields);
      expect(response.status).toBe(403);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    }
    expect(await server.ctx.tokens.listTokens(USERS.executor)).toEqual(before);
    const out = await web.post('/logout', {});
    expect(out.status).toBe(403);
    const ok = await web.post(
      '/profile/tokens',
      { name: 'csrf test', expiry: '7d', scopes: ['auth:me'] },
      (await web.get('/profile')).text,
    );
    expect(ok.status).toBe(201);
  });

  it('refuses a POST that is not a form', async () => {
    const web = client();
    await web.signIn('executor');
    const csrf = await web.csrf();
    const response = await web.request('/profile/tokens', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ _csrf: csrf, name: 'json', expiry: '7d', scopes: ['auth:me'] }),
    });
    expect(response.status).toBe(415);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('has a CSRF field in every form of the pages', async () => {
    const web = client();
    await web.signIn('admin');
    for (const path of [
      '/profile',
      '/projects/1',
      '/items/1000',
      '/admin/users',
      '/admin/projects',
      '/admin/projects/1',
      '/admin/items/1000',
    ]) {
      const { text } = await web.get(path);
      const forms = text.match(/<form method="post"[\s\S]*?<\/form>/g) ?? [];
      expect(forms.length, path).toBeGreaterThan(0);
      for (const form of forms) expect(form, path).toContain('name="_csrf"');
      expect(csrfOf(text)).toBeTruthy();
    }
  });
});

describe('throttle', () => {
  async function attempt(web: WebClient, email: string, password: string) {
    const login = await web.get('/login');
    return web.post('/login', { email, password }, login.text);
  }

  it('never locks an account: its owner signs in from their own address while someone hammers it from another (issue 46)', async () => {
    await server.ctx.users.createUser({ email: 'hammered@punchlist.test', name: 'Hammered', password: PASSWORD });
    const attacker = client();
    const first = await Promise.all(Array.from({ length: 12 }, () => attempt(attacker, 'hammered@punchlist.test', 'nope')));
    // Slowed, not refused: every guess is checked (and fails), none gets a 429.
    expect(first.map((f) => f.status)).toEqual(Array(12).fill(401));
    // The owner signs in while the guessing goes on, from another address, a little later than usual.
    const more = Promise.all(Array.from({ length: 6 }, () => attempt(attacker, 'hammered@punchlist.test', 'nope')));
    const started = performance.now();
    const owner = await attempt(client(), 'HAMMERED@punchlist.test', PASSWORD);
    expect(owner.status, owner.text).toBe(303);
    expect(owner.location).toBe('/projects');
    expect(performance.now() - started).toBeGreaterThanOrEqual(ACCOUNT_MAX_DELAY_MS - 5);
    expect((await more).map((f) => f.status)).toEqual(Array(6).fill(401));
  });

  it('forgets the failures of an account once it signs in', async () => {
    const web = client();
    await Promise.all(Array.from({ length: ACCOUNT_FREE_FAILURES }, () => attempt(web, 'partial@punchlist.test', 'nope')));
    expect((await attempt(client(), 'partial@punchlist.test', PASSWORD)).status).toBe(303);
    expect((await attempt(client(), 'partial@punchlist.test', 'nope')).status).toBe(401);
    expect((await attempt(client(), 'partial@punchlist.test', PASSWORD)).status).toBe(303);
    const left = await sql`select id from web_sign_in_failures where key = ${'account:partial@punchlist.test'}`.execute(
      server.ctx.db.kysely,
    );
    expect(left.rows).toEqual([]);
  });

  it('slows a parallel burst from many addresses one attempt at a time, refusing none; the owner still signs in', async () => {
    await server.ctx.users.createUser({ email: 'burst@punchlist.test', name: 'Burst', password: PASSWORD });
    const burst = 20;
    const timed = async () => {
      const started = performance.now();
      const response = await attempt(client(), 'burst@punchlist.test', 'nope');
      return { status: response.status, ms: performance.now() - started };
    };
    const responses = await Promise.all(Array.from({ length: burst }, timed));
    expect(responses.map((r) => r.status)).toEqual(Array(burst).fill(401));
    // Each booked after the ones before it: the free ones, then 0.5, 1, 2 s and the cap for all the others.
    const delays = [...Array(ACCOUNT_FREE_FAILURES).fill(0), 500, 1000, 2000, ...Array(burst - ACCOUNT_FREE_FAILURES - 3).fill(4000)];
    const sorted = responses.map((r) => r.ms).sort((a, b) => a - b);
    sorted.forEach((ms, i) => expect(ms, `attempt ${i}`).toBeGreaterThanOrEqual(delays[i] - 5));
    expect((await attempt(client(), 'burst@punchlist.test', PASSWORD)).status).toBe(303);
  });

  it(`locks an address after ${IP_FAILURE_LIMIT} failures, whatever the accounts`, async () => {
    const ip = client('192.0.2.77');
    const failures = await Promise.all(Array.from({ length: IP_FAILURE_LIMIT }, (_, i) => attempt(ip, `guess${i}@punchlist.test`, 'nope')));
    expect(failures.map((f) => f.status)).toEqual(Array(IP_FAILURE_LIMIT).fill(401));
    expect((await attempt(ip, 'executor@punchlist.test', PASSWORD)).status).toBe(429);
    expect((await attempt(client(), 'executor@punchlist.test', PASSWORD)).status).toBe(303);
  });
});

describe('https deployment', () => {
  it('marks the cookie Secure and host-only (__Host- prefix) when BASE_URL is https', async () => {
    // A server of its own: the base URL is configuration, read when the server is built.
    const secure = await startTestServer({ clock, env: { TRUST_PROXY: '1', BASE_URL: 'https://punchlist.example' } });
    try {
      const web = new WebClient(secure.url, { 'x-forwarded-for': '10.9.0.1' });
      const response = await web.signIn('manager');
      expect(response.status).toBe(303);
      const cookie = response.headers.getSetCookie().find((c) => c.startsWith('__Host-punchlist_session='))!;
      expect(attributesOf(cookie)).toEqual(['HttpOnly', 'Max-Age=43200', 'Path=/', 'SameSite=Lax', 'Secure']);
      expect((await web.get('/projects')).status).toBe(200);
    } finally {
      await secure.close();
    }
  });
});

describe('the readable cookie naming the signed-in user (the service worker reads it offline, issue 46)', () => {
  const userCookie = (response: { headers: Headers }) => response.headers.getSetCookie().find((c) => c.startsWith('punchlist_user='));

  it('is set with the session, readable by scripts, and follows the session as the server sees it', async () => {
    const web = client();
    const signedIn = await web.signIn('observer');
    expect(signedIn.status).toBe(303);
    const set = userCookie(signedIn)!;
    expect(set.split('; ')[0]).toBe(`punchlist_user=${USERS.observer}`);
    expect(attributesOf(set)).toEqual([`Max-Age=${SESSION_LIFETIME_MS / 1000}`, 'Path=/', 'SameSite=Lax']);
    // Nothing more while it is right.
    const page = await web.get('/projects');
    expect(page.status).toBe(200);
    expect(userCookie(page)).toBeUndefined();

    // A cookie naming someone else (or a session ended elsewhere) is put right by the next answer.
    web.cookies.set('punchlist_user', String(USERS.admin));
    expect(userCookie(await web.get('/projects'))!.split('; ')[0]).toBe(`punchlist_user=${USERS.observer}`);
    await server.ctx.sessions.signOut(web.cookies.get('punchlist_session')!);
    const ended = await web.get('/projects');
    expect(ended.status).toBe(303);
    expect(userCookie(ended)).toMatch(/^punchlist_user=; Max-Age=0/);
    expect(web.cookies.has('punchlist_user')).toBe(false);
  });

  it('is cleared by "Sign out", with the session cookie', async () => {
    const web = client();
    await web.signIn('observer');
    const signedOut = await web.post('/logout', {}, (await web.get('/projects')).text);
    expect(signedOut.status).toBe(303);
    expect(userCookie(signedOut)).toMatch(/^punchlist_user=; Max-Age=0/);
    expect(signedOut.headers.get('clear-site-data')).toBe('"cache", "storage"');
    // Another account's writes wait on this device (the page says so): its storage stays.
    await web.signIn('observer');
    const keeping = await web.post('/logout', { others_waiting: '1' }, (await web.get('/projects')).text);
    expect(keeping.status).toBe(303);
    expect(keeping.headers.get('clear-site-data')).toBe('"cache"');
  });
});
