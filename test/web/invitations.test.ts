import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClock } from '../helpers/factories.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startSmtpReceiver, type SmtpReceiver } from '../helpers/smtp.js';
import { USERS, type UserKey } from '../helpers/workspace.js';
import { decode, signedInClients, WebClient } from './web-client.js';

/**
 * Invitations over real HTTP with a real SMTP receiver (docs/design.md §20): "Invite" for every role, the form's
 * refusals, the link shown once and emailed, the invitation page (set a password → signed in), and links that no
 * longer work (used, expired, forged) saying so and making nothing.
 */
let smtp: SmtpReceiver;
let server: TestServer;
const clock = createTestClock();
const as = signedInClients(() => server.url);
let sparksId = 0;
const count = async (table: 'users' | 'project_members' | 'invitations') =>
  Number(
    (
      await server.ctx.db.kysely
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
const counts = async () => ({
  users: await count('users'),
  members: await count('project_members'),
  invitations: await count('invitations'),
});
const linkIn = (text: string) => /http:\/\/[^\s"<]+\/invitations\/[A-Za-z0-9_-]{43}/.exec(text)?.[0];
const pathOf = (link: string) => new URL(link).pathname;

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  server = await startTestServer({ clock, env: { SMTP_URL: smtp.url } });
  sparksId = (await server.ctx.companies.createCompany({ id: USERS.admin, role: 'admin' }, { name: 'Sparks Ltd', trade: 'Electrical' })).id;
});
afterAll(async () => {
  await server.close();
  await smtp.stop();
});

const sendEmails = () => server.ctx.notificationWorker.drainNow();

describe('"Invite" on the project page', () => {
  it('is offered to managers and admins only; the others get 403 (or 404 when they do not see the project)', async () => {
    const expected: Record<Exclude<UserKey, 'inactive'>, number> = {
      admin: 200,
      manager: 200,
      executor: 403,
      bystander: 403,
      observer: 403,
      partial: 403,
      outsider: 404,
    };
    const before = await counts();
    for (const [user, status] of Object.entries(expected) as [UserKey, number][]) {
      const web = await as(user);
      const project = await web.get('/projects/1');
      const form = await web.get('/projects/1/invite');
      expect([user, form.status]).toEqual([user, status]);
      if (status === 200) {
        expect(project.text).toContain('<a class="button secondary" href="/projects/1/invite">Invite</a>');
        for (const label of ['Name', 'Email', 'Company', 'Project role']) expect(form.text).toContain(`">${label}</label>`);
        expect(form.text).toContain('Only the company&#39;s items</label>');
        expect(form.text).toContain('<button type="submit">Send invitation</button>');
        expect(form.text).toContain(`<option value="${sparksId}" >Sparks Ltd</option>`);
      } else {
        expect(project.text).not.toContain('/projects/1/invite');
        // A forged post: the same answer, nothing made.
        const csrf = (await web.get('/projects')).text;
        const post = await web.post('/projects/1/invite', { name: 'X', email: `x-${user}@example.test`, role: 'executor' }, csrf);
        expect([user, post.status]).toEqual([user, status]);
      }
    }
    expect(await counts()).toEqual(before);
    // Signed out: to the sign-in page.
    const anonymous = await new WebClient(server.url).get('/projects/1/invite');
    expect(anonymous.status).toBe(303);
  });

  it('refuses a bad form with 422 beside its field (missing company for "only the company’s items", unknown company, bad role)', async () => {
    const web = await as('manager');
    const before = await counts();
    const cases: [Record<string, string>, string][] = [
      [{ name: 'A', email: 'a@example.test', role: 'executor', company: '', company_items_only: '1' }, 'invite-company'],
      [{ name: 'A', email: 'a@example.test', role: 'executor', company: '999999' }, 'invite-company'],
      [{ name: 'A', email: 'a@example.test', role: 'manager', company: '' }, 'invite-role'],
      [{ name: 'A', email: 'nope', role: 'executor', company: '' }, 'invite-email'],
    ];
    for (const [fields, id] of cases) {
      const form = await web.get('/projects/1/invite');
      const refused = await web.post('/projects/1/invite', fields, form.text);
      expect(refused.status).toBe(422);
      expect(refused.text).toContain(`href="#${id}"`);
      expect(refused.text).toContain(`id="${id}-error"`);
      expect(refused.text).toContain(`value="${fields.email}"`);
    }
    expect(await counts()).toEqual(before);
  });
});

describe('an invitation', () => {
  it('is shown once and emailed; its page sets the password and signs the person in, limited to their company’s items', async () => {
    const web = await as('manager');
    const form = await web.get('/projects/1/invite');
    const key = crypto.randomUUID();
    const fields = {
      name: 'Ivan Sparks',
      email: 'ivan@sparks.test',
      company: String(sparksId),
      role: 'executor',
      company_items_only: '1',
      _key: key,
    };
    const sent = await web.post('/projects/1/invite', fields, form.text);
    expect(sent.status).toBe(201);
    const shown = linkIn(decode(sent.text))!;
    expect(shown).toBeDefined();
    expect(sent.text).toContain('An email with the link was sent to ivan@sparks.test.');
    // A second submission of the same form does not show the link again.
    const again = await web.post('/projects/1/invite', fields, form.text);
    expect(again).toMatchObject({ status: 303, location: '/projects/1' });
    expect(await count('invitations')).toBe(1);

    await sendEmails();
    const [mail] = await smtp.waitFor('ivan@sparks.test');
    expect(mail!.parsed.subject).toMatch(/^Punchlist: Manager invites you to /);
    expect(linkIn(mail!.parsed.text ?? '')).toBe(shown);
    expect(mail!.parsed.html).toContain(`href="${shown}"`);
    // The queue keeps no link once the email is sent.
    expect(
      (
        await server.ctx.db.kysely
          .selectFrom('notification_emails')
          .select(['state', 'message'])
          .where('key', 'like', 'invitation:%')
          .execute()
      )[0],
    ).toEqual({ state: 'sent', message: null });

    const person = new WebClient(server.url);
    const page = await person.get(pathOf(shown));
    expect(page.status).toBe(200);
    expect(page.text).toContain('<label for="invitation-password">Password</label>');
    expect(page.text).toContain('<button type="submit">Set password</button>');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    // Without the form's CSRF value: refused, nothing made.
    expect((await person.post(pathOf(shown), { password: 'a long enough password', _csrf: 'forged' })).status).toBe(403);
    const short = await person.post(pathOf(shown), { password: 'short' }, page.text);
    expect(short.status).toBe(422);
    expect(short.text).toContain('id="invitation-password-error"');
    const before = await counts();
    const set = await person.post(pathOf(shown), { password: 'a long enough password' }, page.text);
    expect(set).toMatchObject({ status: 303, location: '/projects/1' });
    expect(await counts()).toEqual({ ...before, users: before.users + 1, members: before.members + 1 });
    const project = await person.get('/projects/1');
    expect(project.status).toBe(200);
    expect(project.text).toContain('<span class="who">Ivan Sparks</span>');
    // Limited to Sparks' items: none yet.
    expect(project.text).not.toContain('href="/items/1000"');
    // The password works for signing in later.
    expect((await new WebClient(server.url).signIn('ivan@sparks.test', 'a long enough password')).status).toBe(303);

    // Used: its page says so, a second use makes nothing.
    const used = await new WebClient(server.url).get(pathOf(shown));
    expect(used.status).toBe(410);
    expect(used.text).toContain('data-state="used"');
    const after = await counts();
    const stranger = new WebClient(server.url);
    const reuse = await stranger.post(pathOf(shown), { password: 'a long enough password' }, (await stranger.get('/login')).text);
    expect(reuse.status).toBe(303);
    expect(reuse.location).toBe(pathOf(shown));
    expect([...stranger.cookies.keys()].some((name) => name.includes('session'))).toBe(false);
    expect(await counts()).toEqual(after);
  });

  it('expires after 7 days, and a forged link is unknown: both say so and make nothing', async () => {
    const web = await as('manager');
    const form = await web.get('/projects/1/invite');
    const sent = await web.post(
      '/projects/1/invite',
      { name: 'Late', email: 'late@sparks.test', company: '', role: 'observer' },
      form.text,
    );
    const link = linkIn(decode(sent.text))!;
    const start = clock.now();
    clock.advance(7 * 24 * 3_600_000 + 1000);
    const before = await counts();
    const expired = await new WebClient(server.url).get(pathOf(link));
    expect(expired.status).toBe(410);
    expect(expired.text).toContain('The link has expired');
    const forged = await new WebClient(server.url).get(`/invitations/${'A'.repeat(43)}`);
    expect(forged.status).toBe(404);
    expect(forged.text).toContain('The link is not known');
    const client = new WebClient(server.url);
    // The sign-in form's CSRF value serves the invitation's form too (the same signed cookie).
    const csrf = (await client.get('/login')).text;
    expect((await client.post(pathOf(link), { password: 'a long enough password' }, csrf)).status).toBe(303);
    expect(await counts()).toEqual(before);
    clock.set(start);
  });

  it('adds a person who already has an account instead, and emails them that they were added', async () => {
    const web = await as('manager');
    const form = await web.get('/projects/1/invite');
    const before = await counts();
    const added = await web.post(
      '/projects/1/invite',
      { name: 'Bystander', email: 'outsider@punchlist.test', company: '', role: 'observer' },
      form.text,
    );
    expect(added.status).toBe(201);
    expect(added.text).toContain('data-testid="invitation-added"');
    expect(linkIn(decode(added.text))).toBeUndefined();
    expect(await counts()).toEqual({ ...before, members: before.members + 1, invitations: before.invitations + 1 });
    await sendEmails();
    const [mail] = await smtp.waitFor('outsider@punchlist.test');
    expect(mail!.parsed.subject).toMatch(/^Punchlist: you were added to /);
    expect((await (await as('outsider')).get('/projects/1')).status).toBe(200);
  });
});
