import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { USERS, type UserKey } from '../helpers/workspace.js';
import { csrfOf, decode, signedInClients, WebClient } from './web-client.js';

/**
 * The Profile's account blocks (docs/design.md §14): the time zone every time is shown in (the browser's by
 * default, at sign-in), the password change that ends the other sessions, the user's project roles.
 */
let server: TestServer;
const as = signedInClients(() => server.url);

const keyOf = (page: string, action: string) => {
  const form = page.slice(page.indexOf(`action="${action}"`));
  return /name="_key" value="([^"]+)"/.exec(form)![1]!;
};
const zoneOf = async (id: number) => (await server.ctx.users.findById(id))!.time_zone;
const auditOf = (path: string, userId: number) =>
  server.ctx.db.kysely
    .selectFrom('audit_log')
    .select(['path', 'status', 'entity_type', 'entity_id'])
    .where('path', '=', path)
    .where('user_id', '=', userId)
    .execute();

async function postForm(web: WebClient, action: string, fields: Record<string, string>) {
  const page = await web.get('/profile');
  return web.post(action, { _key: keyOf(page.text, action), ...fields }, page.text);
}

/** A user of their own (their password changes), signed in through the form, optionally reporting a browser zone. */
async function freshUser(email: string, password = 'first password 1', browserZone?: string) {
  await server.ctx.users.createUser({ email, name: email.split('@')[0]!, password });
  const web = new WebClient(server.url);
  const login = await web.get('/login');
  expect(login.text).toContain('<input type="hidden" name="time_zone" value="" data-browser-time-zone>');
  const fields: Record<string, string> = { email, password };
  if (browserZone !== undefined) fields.time_zone = browserZone;
  expect((await web.post('/login', fields, login.text)).status).toBe(303);
  return web;
}

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('the time zone', () => {
  it('lets every role choose a zone, shows times in it with its offset, and applies a double submission once', async () => {
    const users: [UserKey, string][] = [
      ['admin', 'Asia/Tokyo'],
      ['manager', 'Europe/Berlin'],
      ['executor', 'America/New_York'],
      ['observer', 'Asia/Tehran'],
      ['partial', 'UTC'],
      ['outsider', 'Australia/Sydney'],
    ];
    for (const [user, zone] of users) {
      const web = await as(user);
      const page = await web.get('/profile');
      expect(page.text).toContain('<h2 id="time-zone-title">Time zone</h2>');
      const fields = { _key: keyOf(page.text, '/profile/time-zone'), time_zone: zone };
      const saved = await web.post('/profile/time-zone', fields, page.text);
      expect(saved.status, user).toBe(303);
      expect(saved.location).toBe('/profile?saved=time-zone#time-zone-title');
      expect(await web.post('/profile/time-zone', fields, page.text)).toMatchObject({ status: 303, location: saved.location });
      expect(await zoneOf(USERS[user])).toBe(zone);
      const after = await web.get(saved.location!);
      expect(after.text).toContain('Your time zone was saved.');
      expect(after.text).toContain(`<option value="${zone}" selected>`);
      // One audit record for the two submissions; the audit page shows its time in the zone.
      expect(await auditOf('/profile/time-zone', USERS[user])).toEqual([
        { path: '/profile/time-zone', status: 303, entity_type: 'user', entity_id: USERS[user] },
      ]);
      const audit = await web.get('/audit');
      const offset = zone === 'UTC' ? 'UTC' : 'GMT[+-]\\d';
      expect(audit.text).toMatch(new RegExp(`<time datetime="[^"]+">\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} ${offset}`));
    }
    const tokyo = await (await as('admin')).get('/items/1000');
    expect(tokyo.text).toMatch(/<time datetime="[^"]+">\d{4}-\d{2}-\d{2} \d{2}:\d{2} GMT\+9<\/time>/);
  });

  it('refuses an unknown zone (422) beside the select, keeping what was sent, and changes nothing', async () => {
    const web = await as('bystander');
    const refused = await postForm(web, '/profile/time-zone', { time_zone: 'Mars/Olympus_Mons' });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('<p class="field-error" id="time-zone-error">choose one of the listed time zones</p>');
    expect(refused.text).toContain('aria-invalid="true"');
    expect(refused.text).toContain('<option value="Mars/Olympus_Mons" selected>');
    expect(await zoneOf(USERS.bystander)).toBeNull();
    // Clearing it is allowed: times are then UTC.
    expect((await postForm(web, '/profile/time-zone', { time_zone: '' })).status).toBe(303);
    expect(await zoneOf(USERS.bystander)).toBeNull();
  });

  it('takes the browser zone at sign-in while none is chosen, never over a chosen one, and ignores a bad one', async () => {
    const fresh = await freshUser('zone-fresh@punchlist.test', 'first password 1', 'Europe/Paris');
    const id = (await server.ctx.users.findByEmail('zone-fresh@punchlist.test'))!.id;
    expect(await zoneOf(id)).toBe('Europe/Paris');
    expect((await fresh.get('/profile')).text).toContain('<option value="Europe/Paris" selected>');
    await server.ctx.users.setTimeZone(id, 'Asia/Tokyo');
    const again = new WebClient(server.url);
    await again.post(
      '/login',
      { email: 'zone-fresh@punchlist.test', password: 'first password 1', time_zone: 'Europe/Paris' },
      (await again.get('/login')).text,
    );
    expect(await zoneOf(id)).toBe('Asia/Tokyo');
    await freshUser('zone-bad@punchlist.test', 'first password 1', 'Nowhere/<script>');
    expect(await zoneOf((await server.ctx.users.findByEmail('zone-bad@punchlist.test'))!.id)).toBeNull();
  });

  it('answers a post without the CSRF token with the 403 page and changes nothing', async () => {
    const web = await as('manager');
    const before = await zoneOf(USERS.manager);
    const forged = await web.post('/profile/time-zone', { _csrf: 'forged', time_zone: 'Africa/Cairo' });
    expect(forged.status).toBe(403);
    expect(await zoneOf(USERS.manager)).toBe(before);
  });
});

describe('the password change', () => {
  it('needs the current password and the rule, re-showing the form (422) with the message beside the field', async () => {
    const web = await freshUser('pw-rules@punchlist.test');
    const cases: [Record<string, string>, string, string][] = [
      [
        { current_password: 'wrong password', new_password: 'second password 2', confirm_password: 'second password 2' },
        'current-password',
        'is not your current password',
      ],
      [
        { current_password: 'first password 1', new_password: 'short', confirm_password: 'short' },
        'new-password',
        'must be at least 8 characters',
      ],
      [
        { current_password: 'first password 1', new_password: 'second password 2', confirm_password: 'other' },
        'confirm-password',
        'does not match the new password',
      ],
      [
        { current_password: 'first password 1', new_password: 'first password 1', confirm_password: 'first password 1' },
        'new-password',
        'must differ from the current password',
      ],
    ];
    for (const [fields, id, message] of cases) {
      const refused = await postForm(web, '/profile/password', fields);
      expect(refused.status, message).toBe(422);
      expect(refused.text).toContain(`<p class="field-error" id="${id}-error">${message}</p>`);
      // Passwords are never written back into the page.
      expect(refused.text).not.toContain(fields.new_password);
    }
    const id = (await server.ctx.users.findByEmail('pw-rules@punchlist.test'))!.id;
    expect(await auditOf('/profile/password', id)).toEqual([]);
    const still = new WebClient(server.url);
    expect((await still.signIn('pw-rules@punchlist.test', 'first password 1')).status).toBe(303);
  });

  it('changes it, ends the other sessions, keeps this one, and is audited', async () => {
    const here = await freshUser('pw-change@punchlist.test');
    const elsewhere = new WebClient(server.url);
    expect((await elsewhere.signIn('pw-change@punchlist.test', 'first password 1')).status).toBe(303);
    expect((await elsewhere.get('/profile')).status).toBe(200);

    const page = await here.get('/profile');
    const fields = {
      _key: keyOf(page.text, '/profile/password'),
      current_password: 'first password 1',
      new_password: 'second password 2',
      confirm_password: 'second password 2',
    };
    const changed = await here.post('/profile/password', fields, page.text);
    expect(changed.status).toBe(303);
    // A double submission is the first one's result, not a 422 for a current password that changed.
    expect(await here.post('/profile/password', fields, page.text)).toMatchObject({ status: 303, location: changed.location });
    expect(decode((await here.get(changed.location!)).text)).toContain('Your password was changed. Your other sessions were ended.');
    expect((await elsewhere.get('/profile')).location).toMatch(/^\/login/);

    const id = (await server.ctx.users.findByEmail('pw-change@punchlist.test'))!.id;
    expect(await auditOf('/profile/password', id)).toEqual([
      { path: '/profile/password', status: 303, entity_type: 'user', entity_id: id },
    ]);
    expect((await new WebClient(server.url).signIn('pw-change@punchlist.test', 'first password 1')).status).not.toBe(303);
    expect((await new WebClient(server.url).signIn('pw-change@punchlist.test', 'second password 2')).status).toBe(303);
    expect(csrfOf((await here.get('/profile')).text)).toBeTruthy();
  });
});

describe('project roles on the Profile', () => {
  it("lists each role's projects with the role there, limited access noted, instead of a global role", async () => {
    const roles = async (user: UserKey) => decode((await (await as(user)).get('/profile')).text);
    const executor = await roles('executor');
    expect(executor).not.toContain('<dt>Role</dt>');
    expect(executor).toMatch(/<a href="\/projects\/1">Plant audit<\/a> — executor<\/li>/);
    expect(executor).toMatch(/<a href="\/projects\/2">Archived works<\/a> <span class="muted">\(archived\)<\/span> — executor/);
    expect(await roles('manager')).toMatch(/Plant audit<\/a> — manager/);
    expect(await roles('observer')).toMatch(/Plant audit<\/a> — observer/);
    expect(await roles('partial')).toMatch(
      /Plant audit<\/a> — executor <span class="muted">\(limited to some sections or checklists\)<\/span>/,
    );
    expect(await roles('outsider')).toContain('You are not a member of any project.');
    const admin = await roles('admin');
    expect(admin).toContain('Administrator: every project, and the administration pages');
  });
});
