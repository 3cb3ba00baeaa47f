import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClock } from '../helpers/factories.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startSmtpReceiver, type SmtpReceiver } from '../helpers/smtp.js';
import { USERS } from '../helpers/workspace.js';
import { decode, signedInClients } from './web-client.js';

/**
 * Notifications in the web (docs/design.md §15) over real HTTP: the navigation's unread count, the list, following
 * one marks it read, "Mark all read" (CSRF), the count for the script, the Profile's preferences and the
 * warning when the user's address is refused by the mail server.
 */
let smtp: SmtpReceiver;
let server: TestServer;
/** Moved on by the test that sends emails: an item's email waits a minute for more changes of it. */
const clock = createTestClock();
const as = signedInClients(() => server.url);
const manager = { id: USERS.manager, role: 'member' as const, name: 'Manager' };
const drain = () => server.ctx.notificationWorker.drainNow();
const auditOf = (path: string, userId: number) =>
  server.ctx.db.kysely
    .selectFrom('audit_log')
    .select(['status', 'entity_type', 'entity_id'])
    .where('path', '=', path)
    .where('user_id', '=', userId)
    .execute();
const navCount = (page: string) =>
  /<span class="nav-count" data-notification-count\s*(hidden)?>.*?<span data-count>(\d+)<\/span>/.exec(page);

beforeAll(async () => {
  smtp = await startSmtpReceiver({ refused: ['bystander@punchlist.test'] });
  server = await startTestServer({ clock, env: { SMTP_URL: smtp.url } });
  await drain();
});
afterAll(async () => {
  await server.close();
  await smtp.stop();
});

describe('/notifications', () => {
  it('counts the unread ones in the navigation, lists them newest first, and marks one read when followed', async () => {
    const web = await as('executor');
    const empty = await web.get('/projects');
    expect(empty.text).toContain('<a href="/notifications" >Notifications');
    expect(navCount(empty.text)).toMatchObject({ 1: 'hidden', 2: '0' });

    await server.ctx.comments.addComment(manager, 1001, { text: 'First <b>remark</b>' });
    await server.ctx.comments.addComment(manager, 1000, { text: 'Second remark' });
    await drain();
    const projects = await web.get('/projects');
    expect(navCount(projects.text)).toMatchObject({ 1: undefined, 2: '2' });
    expect((await web.get('/notifications/count')).text).toBe('{"unread":2}');

    const list = await web.get('/notifications');
    expect(list.status).toBe(200);
    expect(list.text).toContain('aria-current="page">Notifications');
    const texts = [
      ...list.text.matchAll(
        /<a href="\/notifications\/(\d+)\/open">(?:<span class="sr-only">Unread: <\/span>)?([^<]*(?:<[^/][^<]*)*?)<\/a>/g,
      ),
    ];
    expect(texts.map((m) => decode(m[2]!))).toEqual([
      'Manager commented on “Extinguishers checked”: Second remark',
      'Manager commented on “Item 1001”: First <b>remark</b>',
    ]);
    expect(list.text).toContain('First &lt;b&gt;remark&lt;/b&gt;');

    const open = await web.get(`/notifications/${texts[1]![1]}/open`);
    expect(open).toMatchObject({ status: 303, location: '/items/1001' });
    expect((await web.get('/notifications/count')).text).toBe('{"unread":1}');
    // Somebody else's notification is not there for this user.
    expect((await (await as('partial')).get(`/notifications/${texts[0]![1]}/open`)).status).toBe(404);
    expect((await web.get('/notifications/count')).text).toBe('{"unread":1}');
  });

  it('"Mark all read" goes through the form path: without the CSRF field it changes nothing', async () => {
    const web = await as('executor');
    const list = await web.get('/notifications');
    expect(list.text).toContain('<button type="submit">Mark all read</button>');
    expect((await web.post('/notifications/read-all', {})).status).toBe(403);
    expect((await web.get('/notifications/count')).text).toBe('{"unread":1}');
    const done = await web.post('/notifications/read-all', {}, list.text);
    expect(done).toMatchObject({ status: 303, location: '/notifications?read=all' });
    expect((await web.get('/notifications/count')).text).toBe('{"unread":0}');
    expect((await web.get('/notifications?read=all')).text).toContain('Every notification is marked read.');
    expect(await auditOf('/notifications/read-all', USERS.executor)).toEqual([
      { status: 303, entity_type: 'user', entity_id: USERS.executor },
    ]);
  });
});

describe('the Profile’s "Notifications" block', () => {
  it('offers Email / Daily digest / Web only per kind, Email by default, and saves the choice', async () => {
    const web = await as('observer');
    const profile = await web.get('/profile');
    expect(profile.text).toContain('<h2 id="notifications-title">Notifications</h2>');
    expect(profile.text).toMatch(
      /<select id="pref-comment_created" name="comment_created"><option value="email" selected>Email<\/option><option value="digest" >Daily digest<\/option><option value="web" >Web only<\/option><\/select>/,
    );
    const saved = await web.post('/profile/notifications', { comment_created: 'web', item_done: 'digest' }, profile.text);
    expect(saved).toMatchObject({ status: 303, location: '/profile?notifications=saved#notifications' });
    const after = await web.get('/profile?notifications=saved');
    expect(after.text).toContain('Your notification preferences were saved.');
    expect(after.text).toMatch(/name="comment_created">.*<option value="web" selected>/);
    expect(await server.ctx.notifications.preferences(USERS.observer)).toMatchObject({
      comment_created: 'web',
      item_done: 'digest',
      verdict_set: 'email',
    });

    const refused = await web.post('/profile/notifications', { comment_created: 'email', verdict_set: 'pigeon' }, after.text);
    expect(refused.status).toBe(422);
    expect(await server.ctx.notifications.preferences(USERS.observer)).toMatchObject({ comment_created: 'web', verdict_set: 'email' });
    // The saved form is audited; the refused one changed nothing and left no record (as every web write).
    expect(await auditOf('/profile/notifications', USERS.observer)).toEqual([
      { status: 303, entity_type: 'user', entity_id: USERS.observer },
    ]);
  });

  it('says when the user’s address is refused by the mail server', async () => {
    const web = await as('bystander');
    expect((await web.get('/profile')).text).not.toContain('are failing');
    await server.ctx.db.kysely.transaction().execute((trx) =>
      server.ctx.events.append(trx, [
        {
          type: 'item.updated',
          at: new Date().toISOString(),
          project_id: 1,
          section_id: 10,
          checklist_id: 101,
          item_id: 1011,
          actor_id: USERS.manager,
          token_id: null,
          data: { changes: { participants: { from: [], to: [USERS.bystander] } } },
        },
      ]),
    );
    server.ctx.events.committed();
    await drain();
    clock.advance(120_000);
    await drain();
    const profile = decode((await web.get('/profile')).text);
    expect(profile).toContain('Emails to your address bystander@punchlist.test are failing');
    expect(profile).toMatch(/550/);
    // MAIL_FROM's default, BASE_URL's host being an IP address: a valid address (an address literal), header and envelope.
    expect(smtp.received.length).toBeGreaterThan(0);
    for (const message of smtp.received) {
      expect(message.parsed.from?.value).toEqual([{ address: 'punchlist@[127.0.0.1]', name: 'Punchlist' }]);
      expect(message.from).toBe('punchlist@[127.0.0.1]');
    }
  });
});
