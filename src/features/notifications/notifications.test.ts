import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../shared/config.js';
import { createContext } from '../../composition/context.js';
import { createMetrics } from '../../metrics/prometheus.js';
import type { EventType } from '../../domain/values.js';
import { createTestClock } from '../../../test/helpers/factories.js';
import { startReceiver } from '../../../test/helpers/receiver.js';
import { startSmtpReceiver, type SmtpReceiver } from '../../../test/helpers/smtp.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { USERS } from '../../../test/helpers/workspace.js';
import { excerpt, factsNeeded, recipientsOf } from './notification-kinds.js';
import { ITEM_EMAIL_WINDOW_MS } from './notifications.repository.js';

/**
 * Notifications end to end on a real server (both dialects) and a real SMTP server on loopback: who is told
 * what, never of their own action nor of what they cannot see, emails within a minute (the changes of one item
 * for one person within it in one message), retried while the server is down, a refused address alone, digests,
 * reminders, and two nodes sending each email once.
 */
const clock = createTestClock();
let smtp: SmtpReceiver;
let server: TestServer;
const mail = (key: keyof typeof USERS) => `${key}@punchlist.test`;
const member = (key: keyof typeof USERS, name = key[0]!.toUpperCase() + key.slice(1)) => ({
  id: USERS[key],
  role: key === 'admin' ? ('admin' as const) : ('member' as const),
  name,
});
const drain = () => server.ctx.notificationWorker.drainNow();
const kindsOf = async (key: keyof typeof USERS) => (await server.ctx.notifications.list(USERS[key])).map((n) => n.kind);
const emailsOf = (key: keyof typeof USERS) =>
  server.ctx.db.kysely.selectFrom('notification_emails').selectAll().where('user_id', '=', USERS[key]).orderBy('id').execute();

/** Appends an event the way the item write path does (in a transaction, then `committed`). */
async function appendEvent(type: EventType, itemId: number, actorId: number, data: unknown) {
  const item = await server.ctx.db.kysely.selectFrom('items').selectAll().where('id', '=', itemId).executeTakeFirstOrThrow();
  await server.ctx.db.kysely.transaction().execute((trx) =>
    server.ctx.events.append(trx, [
      {
        type,
        at: clock.now().toISOString(),
        project_id: item.project_id,
        section_id: item.section_id,
        checklist_id: item.checklist_id,
        item_id: itemId,
        actor_id: actorId,
        token_id: null,
        data,
      },
    ]),
  );
  server.ctx.events.committed();
}

beforeAll(async () => {
  smtp = await startSmtpReceiver({ refused: [mail('bystander')] });
  server = await startTestServer({
    clock,
    env: { SMTP_URL: smtp.url, MAIL_FROM: 'Punchlist <noreply@punchlist.test>', WEBHOOK_ALLOW_PRIVATE: '1' },
  });
  await drain(); // the consumer starts at the end of the outbox
});
afterAll(async () => {
  await server.close();
  await smtp.stop();
});

describe('notification rules', () => {
  it('tells each person once whatever their reasons, and never the actor', () => {
    const facts = { participantIds: [2, 3], managerIds: [2, 9] };
    const answer = { id: 1, type: 'answer.created' as const, item_id: 5, actor_id: 3, data: {} };
    expect([...recipientsOf(answer, facts)]).toEqual([
      [2, 'answer_created'],
      [9, 'answer_created'],
    ]);
    const updated = {
      id: 2,
      type: 'item.updated' as const,
      item_id: 5,
      actor_id: 1,
      data: { changes: { participants: { from: [2], to: [2, 1, 4] } } },
    };
    expect([...recipientsOf(updated, facts)]).toEqual([[4, 'participant_added']]);
    const done = { id: 3, type: 'item.status_changed' as const, item_id: 5, actor_id: 2, data: { from: 'pending', to: 'done' } };
    expect([...recipientsOf(done, facts)]).toEqual([[9, 'item_done']]);
  });

  it('names the facts each rule reads, and none for an event that can tell nobody', () => {
    const event = (type: EventType, data: unknown) => ({ id: 1, type, item_id: 5, actor_id: 1, data });
    expect(factsNeeded(event('item.status_changed', { from: 'pending', to: 'in_progress' }))).toBeNull();
    expect(factsNeeded(event('item.status_changed', { from: 'pending', to: 'blocked' }))).toEqual(new Set(['managerIds']));
    expect(factsNeeded(event('comment.created', { comment: { text: 'x' } }))).toEqual(new Set(['participantIds']));
    expect(factsNeeded(event('answer.reviewed', { answer_id: 7, to: 'approved' }))).toEqual(new Set(['answerAuthorId']));
    expect(factsNeeded(event('item.created', { item: { participants: [{ id: 3 }] } }))).toEqual(new Set());
    expect(factsNeeded(event('item.created', { item: { participants: [{ id: 1 }] } }))).toBeNull(); // only the actor
    expect(factsNeeded(event('item.planning_changed', {}))).toBeNull();
  });

  it('cuts texts at a number of characters, not of UTF-16 units', () => {
    expect(excerpt('  Проверить \n крепление  ', 20)).toBe('Проверить крепление');
    expect(excerpt('🔥'.repeat(5), 5)).toBe('🔥'.repeat(5));
    expect(excerpt('🔥'.repeat(6), 5)).toBe('🔥'.repeat(4) + '…');
  });
});

describe('mail configuration', () => {
  it('reads SMTP_URL, MAIL_FROM and NOTIFICATION_RETENTION_DAYS, and refuses what is not usable', () => {
    const base = { SESSION_SECRET: 'x', BASE_URL: 'https://punch.example.com' };
    expect(loadConfig(base)).toMatchObject({
      smtpUrl: null,
      mailFrom: 'Punchlist <punchlist@punch.example.com>',
      notificationRetentionDays: 90,
    });
    expect(loadConfig({ ...base, SMTP_URL: 'smtps://u:p@mail.example.com:465' }).smtpUrl).toBe('smtps://u:p@mail.example.com:465');
    expect(() => loadConfig({ ...base, SMTP_URL: 'http://u:secret@mail.example.com' })).toThrow(
      new ConfigError('SMTP_URL must look like smtp://[user:pass@]host:port or smtps://…, got "http://…@mail.example.com"'),
    );
    expect(() => loadConfig({ ...base, MAIL_FROM: 'A <a@x.test>\r\nBcc: b@x.test' })).toThrow(ConfigError);
    // An IP address is no mail domain: the default writes it as an address literal (RFC 5321 §4.1.3).
    expect(loadConfig({ ...base, BASE_URL: 'http://192.168.1.20:3000' }).mailFrom).toBe('Punchlist <punchlist@[192.168.1.20]>');
    expect(loadConfig({ ...base, BASE_URL: 'http://[2001:db8::1]:3000' }).mailFrom).toBe('Punchlist <punchlist@[IPv6:2001:db8::1]>');
    expect(loadConfig({ ...base, BASE_URL: 'http://localhost:3000' }).mailFrom).toBe('Punchlist <punchlist@localhost>');
    expect(() => loadConfig({ ...base, NOTIFICATION_RETENTION_DAYS: '0' })).toThrow(ConfigError);
  });
});

describe('email metrics', () => {
  it('exposes the emails sent, the failed attempts and the emails waiting', async () => {
    const metrics = createMetrics({
      auditQueueDepth: () => 0,
      webhookDeliveriesPending: () => 0,
      emails: () => ({ sent: 3, failed: 2, waiting: 1 }),
    });
    const { body } = await metrics.render();
    expect(body).toContain('punchlist_notification_emails_sent_total 3');
    expect(body).toContain('punchlist_notification_emails_failed_total 2');
    expect(body).toContain('punchlist_notification_emails_waiting 1');
  });
});

describe('notifications', () => {
  it('emails the executor within a minute when a manager returns the item to rework; the manager is not told', async () => {
    server.ctx.notificationWorker.start();
    await server.ctx.review.returnToRework(member('manager'), 1001, {
      reason: 'Paint <again>\r\nBcc: x@evil.test',
      deadline: '2099-01-01',
    });
    // The item's email waits its minute for more changes (none come), then the running sender sends it.
    await drain();
    expect(smtp.to(mail('executor'))).toEqual([]);
    clock.advance(ITEM_EMAIL_WINDOW_MS);
    const [message] = await smtp.waitFor(mail('executor'), 1, 15_000);
    const parsed = message!.parsed;
    expect(parsed.subject).toBe('Punchlist: “Item 1001”');
    expect(parsed.from?.text).toContain('noreply@punchlist.test');
    expect(parsed.text).toContain('Manager returned “Item 1001” to rework: Paint <again> Bcc: x@evil.test');
    expect(parsed.text).toContain(`${server.url}/items/1001`);
    expect(parsed.text).toContain(`${server.url}/profile#notifications`);
    expect(parsed.html).toContain('Paint &lt;again&gt;');
    expect(message!.raw).toContain(`List-Unsubscribe: <${server.url}/profile#notifications>`);
    expect(parsed.bcc).toBeUndefined();
    expect(await kindsOf('manager')).not.toContain('returned_to_rework');
    expect((await server.ctx.notifications.list(USERS.executor))[0]).toMatchObject({ kind: 'returned_to_rework', item_id: 1001 });
    await drain();
  });

  it('sends the changes of one item for one person within a minute as one message listing them', async () => {
    clock.advance(ITEM_EMAIL_WINDOW_MS);
    await drain(); // what earlier tests left waiting
    const before = smtp.to(mail('executor')).length;
    const manager = member('manager');
    await server.ctx.comments.addComment(manager, 1001, { text: 'The paint is still wet' });
    await drain();
    clock.advance(20_000);
    await server.ctx.review.setItemVerdict(manager, 1001, 'rejected');
    await drain();
    clock.advance(20_000);
    await server.ctx.review.returnToRework(manager, 1001, { reason: 'Second coat', deadline: '2099-01-01' });
    // Another item's change in the same minute is another message.
    await server.ctx.comments.addComment(manager, 1000, { text: 'Bracket next' });
    await drain();
    clock.advance(19_000); // 59 s after the first change: the minute is not over
    await drain();
    expect(smtp.to(mail('executor')).length).toBe(before);
    clock.advance(1_000);
    await drain();
    const got = smtp.to(mail('executor')).slice(before);
    expect(got.map((m) => m.parsed.subject)).toEqual(['Punchlist: “Item 1001” (3 changes)']);
    const gathered = got[0]!.parsed;
    expect(gathered.text).toContain('3 changes to “Item 1001”:');
    const listed = gathered.text!.split('\n').filter((line) => line.startsWith('- '));
    expect(listed).toEqual([
      expect.stringContaining('The paint is still wet'),
      expect.stringMatching(/Manager .*verdict.*rejected/i),
      expect.stringContaining('Second coat'),
    ]);
    expect(gathered.text).toContain(`${server.url}/items/1001`);
    expect(gathered.html).toContain('<li>');
    // Item 1000's minute began with its own change, 40 s after 1001's.
    clock.advance(40_000);
    await drain();
    expect(
      smtp
        .to(mail('executor'))
        .slice(before)
        .map((m) => m.parsed.subject),
    ).toEqual(['Punchlist: “Item 1001” (3 changes)', 'Punchlist: “Extinguishers checked”']);
    // Each notification is marked emailed; a change after the message went is a message of its own.
    expect((await server.ctx.notifications.list(USERS.executor, 4)).filter((n) => n.item_id === 1001).every((n) => n.emailed_at)).toBe(
      true,
    );
    await server.ctx.comments.addComment(manager, 1001, { text: 'One more thing' });
    clock.advance(ITEM_EMAIL_WINDOW_MS);
    await drain();
    await drain();
    const last = smtp.to(mail('executor')).at(-1)!.parsed;
    expect(last.subject).toBe('Punchlist: “Item 1001”');
    expect(last.text).toContain('One more thing');
  });

  it('never tells anybody of what they cannot see, nor of their own action', async () => {
    // partial sees section 10 and checklist 201, not checklist 200 (item 2000).
    const added = (from: number[], to: number[]) => ({ changes: { participants: { from, to } } });
    await appendEvent('item.updated', 2000, USERS.admin, added([], [USERS.partial, USERS.executor, USERS.admin]));
    await appendEvent('item.updated', 2010, USERS.admin, added([], [USERS.partial]));
    await appendEvent('item.created', 2001, USERS.manager, {
      item: { id: 2001, text: 'Item 2001', participants: [{ id: USERS.manager }, { id: USERS.observer }] },
    });
    await drain();
    const of = async (key: keyof typeof USERS) =>
      (await server.ctx.notifications.list(USERS[key])).filter((n) => n.kind === 'participant_added').map((n) => n.item_id);
    expect(await of('partial')).toEqual([2010]);
    expect(await of('executor')).toEqual([2000]);
    expect(await of('admin')).toEqual([]);
    expect(await of('manager')).toEqual([]);
    expect(await of('observer')).toEqual([2001]);

    await server.ctx.comments.addComment(member('manager'), 1000, { text: 'Look again' });
    await server.ctx.itemWrites.setStatus(member('executor'), 1001, 'done');
    await server.ctx.answers.addAnswer(member('executor'), 1001, { text: 'Repainted' });
    await drain();
    expect(await kindsOf('partial')).toContain('comment_created');
    expect(await kindsOf('manager')).toEqual(expect.arrayContaining(['item_done', 'answer_created']));
    expect(await kindsOf('manager')).not.toContain('comment_created');
    expect(await kindsOf('executor')).not.toContain('item_done');
    expect(await kindsOf('inactive')).toEqual([]); // a deactivated manager
    expect(await kindsOf('outsider')).toEqual([]);
  });

  it('keeps an email while the SMTP server is down and sends it once when it is back', async () => {
    clock.advance(ITEM_EMAIL_WINDOW_MS);
    await drain(); // what earlier tests left waiting
    await smtp.stop();
    const before = smtp.to(mail('executor')).length;
    await server.ctx.comments.addComment(member('manager'), 1001, { text: 'While the mail server sleeps' });
    clock.advance(ITEM_EMAIL_WINDOW_MS);
    await drain();
    await drain();
    const waiting = (await emailsOf('executor')).at(-1)!;
    expect(waiting).toMatchObject({ state: 'waiting', attempts: 1 });
    expect(Date.parse(waiting.next_attempt_at) - clock.now().getTime()).toBeLessThanOrEqual(30_000);
    await smtp.start();
    clock.advance(31_000);
    await drain();
    await drain();
    const got = smtp.to(mail('executor')).slice(before);
    expect(got.map((m) => m.parsed.text)).toEqual([expect.stringContaining('While the mail server sleeps')]);
    expect((await emailsOf('executor')).at(-1)).toMatchObject({ state: 'sent' });
    const [notification] = await server.ctx.notifications.list(USERS.executor, 1);
    expect(notification!.emailed_at).not.toBeNull();
  });

  it('gives an email up after 24 h of failures', async () => {
    await smtp.stop();
    await server.ctx.comments.addComment(member('manager'), 1001, { text: 'Nobody will read this' });
    await drain();
    clock.advance(25 * 3_600_000);
    await drain();
    expect((await emailsOf('executor')).at(-1)).toMatchObject({ state: 'given_up' });
    await smtp.start();
    expect(await server.ctx.notifications.failingAddress({ id: USERS.executor, email: mail('executor') })).not.toBeNull();
  });

  it('a refused address ends its own email at once and holds back nobody', async () => {
    await appendEvent('item.updated', 1010, USERS.manager, {
      changes: { participants: { from: [], to: [USERS.bystander, USERS.executor] } },
    });
    clock.advance(ITEM_EMAIL_WINDOW_MS);
    await drain();
    await drain();
    expect(smtp.to(mail('executor')).at(-1)!.parsed.text).toContain('added you as a participant of “Item 1010”');
    expect(smtp.to(mail('bystander'))).toEqual([]);
    const [refused] = await emailsOf('bystander');
    expect(refused).toMatchObject({ state: 'refused', attempts: 0 });
    expect(refused!.last_error).toMatch(/550/);
    clock.advance(3_600_000);
    await drain();
    expect(await emailsOf('bystander')).toEqual([refused]);
    expect(await server.ctx.notifications.failingAddress({ id: USERS.bystander, email: mail('bystander') })).toMatchObject({
      error: expect.stringMatching(/550/),
    });
    expect(await server.ctx.notifications.failingAddress({ id: USERS.executor, email: mail('executor') })).toBeNull();
  });

  it('sends a daily digest at 07:00 in the user’s time zone, once', async () => {
    await server.ctx.db.kysely.updateTable('users').set({ time_zone: 'Asia/Tokyo' }).where('id', '=', USERS.partial).execute();
    await server.ctx.notifications.setPreferences(USERS.partial, { comment_created: 'digest' });
    await expect(server.ctx.notifications.setPreferences(USERS.partial, { comment_created: 'sometimes' })).rejects.toMatchObject({
      status: 422,
    });
    clock.set('2030-03-01T10:00:00Z'); // 19:00 in Tokyo
    const before = smtp.to(mail('partial')).length;
    await server.ctx.comments.addComment(member('manager'), 1000, { text: 'First of the day' });
    await server.ctx.comments.addComment(member('executor'), 1000, { text: 'Second of the day' });
    await drain();
    expect(smtp.to(mail('partial')).length).toBe(before);
    clock.set('2030-03-01T22:10:00Z'); // 07:10 the next day in Tokyo
    await drain();
    await drain();
    const digests = smtp.to(mail('partial')).slice(before);
    expect(digests.map((m) => m.parsed.subject)).toEqual(['Punchlist: your daily digest (2 notifications)']);
    expect(digests[0]!.parsed.text).toContain('Second of the day');
  });

  it('reminds of deadlines and token expiry once each', async () => {
    clock.set('2030-05-10T09:00:00Z');
    await server.ctx.itemWrites.setPlanning(member('manager'), 1000, { deadline: '2030-05-11' });
    const token = await server.ctx.tokens.createToken({
      userId: USERS.observer,
      name: 'CI',
      scopes: ['projects:read'],
      expiresAt: new Date('2030-05-13T09:00:00Z'),
    });
    // A name with a line break, as stored before names refused control characters (kept as they were): the email's
    // headers must still not carry it.
    await server.ctx.db.kysely.updateTable('api_tokens').set({ name: 'CI\r\nBcc: x@evil.test' }).where('id', '=', token.id).execute();
    await drain();
    await drain();
    const reminded = async (key: keyof typeof USERS) =>
      (await server.ctx.notifications.list(USERS[key]))
        .filter((n) => n.kind.startsWith('deadline') || n.kind === 'token_expiring')
        .map((n) => n.key);
    expect(await reminded('executor')).toEqual(['deadline_tomorrow:1000:2030-05-11']);
    expect(await reminded('observer')).toEqual([`token_7d:${token.id}`]);
    const notice = smtp.to(mail('observer')).at(-1)!.parsed;
    expect(notice.subject).toBe('Punchlist: API token “CI Bcc: x@evil.test” expires soon');
    expect(notice.bcc).toBeUndefined();
    expect(notice.text).toContain(`${server.url}/profile`);
    clock.set('2030-05-12T10:00:00Z');
    await drain();
    await drain();
    expect(await reminded('executor')).toEqual(['deadline_overdue:1000:2030-05-11', 'deadline_tomorrow:1000:2030-05-11']);
    expect(await reminded('observer')).toEqual([`token_1d:${token.id}`, `token_7d:${token.id}`]);
  });

  it('tells the user when an application is connected and when their webhook is disabled after failing', async () => {
    const oauth = server.ctx.oauth;
    const client = await oauth.registerClient({
      client_name: 'Site <agent>',
      redirect_uris: ['https://agent.example/cb'],
    });
    const request = await oauth.checkAuthorization({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: 'https://agent.example/cb',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      scope: 'auth:me',
    });
    await oauth.approve(USERS.bystander, request, { scopes: ['auth:me'], expiresAt: null });
    const receiver = await startReceiver();
    try {
      await server.ctx.webhooks.create(member('observer'), { url: `${receiver.base}/gone`, events: ['comment.created'] });
      receiver.answers.set('/gone', [410]);
      await server.ctx.comments.addComment(member('manager'), 1001, { text: 'For the webhook' });
      server.ctx.webhookWorker.start();
      for (let i = 0; i < 100 && !(await kindsOf('observer')).includes('webhook_disabled'); i++)
        await new Promise((r) => setTimeout(r, 100));
    } finally {
      await server.ctx.webhookWorker.stop();
      receiver.close();
    }
    await drain();
    const [connected] = await server.ctx.notifications.list(USERS.bystander, 1);
    expect(connected).toMatchObject({ kind: 'oauth_client_connected', item_id: null });
    expect(connected!.text).toContain('was connected to your account');
    const [disabled] = await server.ctx.notifications.list(USERS.observer, 1);
    expect(disabled).toMatchObject({ kind: 'webhook_disabled' });
    expect(disabled!.text).toContain('410');
    expect(smtp.to(mail('observer')).at(-1)!.parsed.subject).toMatch(/^Punchlist: Webhook http:\/\/127\.0\.0\.1:\d+\/gone disabled$/);
  });

  it('turns hundreds of events into notifications in one batch, and tells nobody twice when a batch is read again', async () => {
    await server.ctx.notifications.setPreferences(USERS.manager, { item_blocked: 'web' });
    const blocked = async () =>
      (await server.ctx.notifications.list(USERS.manager, 10_000)).filter((n) => n.kind === 'item_blocked').length;
    await drain();
    const before = await blocked();
    const { cursor } = await server.ctx.db.kysely
      .selectFrom('outbox_consumers')
      .select('cursor')
      .where('name', '=', 'notifications')
      .executeTakeFirstOrThrow();
    // 300 status changes, 150 of them to `blocked`: one batch, its INSERTs of 128 + 16 + 4 + 2 rows.
    for (let i = 0; i < 300; i++) await server.ctx.itemWrites.setStatus(member('admin'), 1011, i % 2 ? 'blocked' : 'in_progress');
    await drain();
    expect(await blocked()).toBe(before + 150);
    await server.ctx.db.kysely.updateTable('outbox_consumers').set({ cursor }).where('name', '=', 'notifications').execute();
    await drain();
    expect(await blocked()).toBe(before + 150);
    await server.ctx.notifications.setPreferences(USERS.manager, { item_blocked: 'email' });
  });

  it('resumes from its stored cursor on another node, and two nodes send each email once', async () => {
    const other = await createContext(server.ctx.config, { clock, migrate: false });
    try {
      await other.notificationWorker.drainNow();
      const before = smtp.received.length;
      for (let i = 0; i < 6; i++) await server.ctx.comments.addComment(member('manager'), 1001, { text: `Batch ${i}` });
      await Promise.all([other.notificationWorker.drainNow(), drain()]);
      clock.advance(ITEM_EMAIL_WINDOW_MS);
      await Promise.all([other.notificationWorker.drainNow(), drain()]);
      const texts = smtp.received.slice(before).map((m) => m.parsed.text ?? '');
      for (let i = 0; i < 6; i++) expect(texts.filter((t) => t.includes(`Batch ${i}`)).length).toBe(1);
      const [{ cursor }] = [await server.ctx.db.kysely.selectFrom('outbox_consumers').select('cursor').executeTakeFirstOrThrow()];
      expect(Number(cursor)).toBe(await server.ctx.events.lastId());
    } finally {
      await other.close();
    }
  });
});
