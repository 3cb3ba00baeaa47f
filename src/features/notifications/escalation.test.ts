import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../composition/context.js';
import { testDialect } from '../../../test/helpers/database.js';
import { createTestClock } from '../../../test/helpers/factories.js';
import { startSmtpReceiver, type SmtpReceiver } from '../../../test/helpers/smtp.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { USERS } from '../../../test/helpers/workspace.js';
import { ITEM_EMAIL_WINDOW_MS } from './notifications.repository.js';

/**
 * The escalation ladder (docs/design.md §21, kind `overdue_escalated`) on a real server, both dialects, a fake clock
 * and a real SMTP receiver: off by default; on, each step once per person in their time zone (across a restart and
 * with two nodes at once), the managers from day M, the preferences respected, a closed item stops climbing and a
 * deadline moved starts a new ladder.
 */
const clock = createTestClock('2030-02-27T09:00:00Z');
let smtp: SmtpReceiver;
let server: TestServer;
const manager = { id: USERS.manager, role: 'member' as const, name: 'Manager' };
const drain = () => server.ctx.notificationWorker.drainNow();
/** The escalation notifications of a user about item 1000: `key` and text, oldest first. */
const escalations = async (key: keyof typeof USERS) =>
  (await server.ctx.notifications.list(USERS[key], 10_000))
    .filter((n) => n.kind === 'overdue_escalated' && n.item_id === 1000)
    .reverse()
    .map((n) => ({ key: n.key, text: n.text, delivery: n.delivery }));
const keysOf = async (key: keyof typeof USERS) => (await escalations(key)).map((n) => n.key);

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  server = await startTestServer({ clock, env: { SMTP_URL: smtp.url, MAIL_FROM: 'Punchlist <noreply@punchlist.test>' } });
  await drain();
  // The executor works in Auckland (UTC+13 in March) and reads Russian; the partial executor has no time zone (UTC).
  await server.ctx.db.kysely
    .updateTable('users')
    .set({ time_zone: 'Pacific/Auckland', language: 'ru' })
    .where('id', '=', USERS.executor)
    .execute();
  await server.ctx.notifications.setPreferences(USERS.partial, { overdue_escalated: 'web' });
  // Item 1000: participants executor and partial; overdue from 2030-03-02.
  await server.ctx.itemWrites.setPlanning(manager, 1000, { deadline: '2030-03-01' });
});
afterAll(async () => {
  await server?.close();
  await smtp?.stop();
});

describe('the escalation ladder', () => {
  it('is off by default: an overdue item is reminded of once, no step', async () => {
    clock.set('2030-03-04T09:00:00Z');
    await drain();
    expect(await keysOf('executor')).toEqual([]);
    expect((await server.ctx.notifications.list(USERS.manager)).filter((n) => n.kind === 'overdue_escalated')).toEqual([]);
    expect((await server.ctx.notifications.list(USERS.partial)).map((n) => n.key)).toContain('deadline_overdue:1000:2030-03-01');
  });

  it('reminds the participants every N days, each step once, counting days from their own midnight', async () => {
    await server.ctx.vocabulary.setEscalation(manager, 1, { everyDays: 2, managersAfterDays: 5 });
    // 2 March, 12:00 UTC: 3 March 01:00 in Auckland (day 2), still day 1 in UTC.
    clock.set('2030-03-02T12:00:00Z');
    await drain();
    await drain();
    expect(await keysOf('executor')).toEqual(['overdue_escalated:1000:2030-03-01:2']);
    // Item 1001, overdue for years when the ladder was switched on: its latest step only, once.
    const old = (await server.ctx.notifications.list(USERS.executor, 10_000)).filter(
      (n) => n.item_id === 1001 && n.kind === 'overdue_escalated',
    );
    expect(old.map((n) => n.key)).toEqual(['overdue_escalated:1001:2026-06-30:1342']);
    expect((await escalations('executor'))[0]!.text).toBe('«Extinguishers checked» просрочен уже 2 дня (срок 2030-03-01)');
    expect(await keysOf('partial')).toEqual([]);
    clock.set('2030-03-03T09:00:00Z'); // day 2 in UTC, still day 2 in Auckland (22:00)
    await drain();
    expect(await keysOf('partial')).toEqual(['overdue_escalated:1000:2030-03-01:2']);
    expect(await escalations('partial')).toMatchObject([
      { delivery: 'web', text: '“Extinguishers checked” has been overdue for 2 days (deadline 2030-03-01)' },
    ]);
    expect(await keysOf('executor')).toHaveLength(1);
    expect(await keysOf('manager')).toEqual([]);
  });

  it('tells each step once across a restart and with two nodes at once, and the managers from day M', async () => {
    const other = await createContext(server.ctx.config, { clock, migrate: false });
    try {
      await other.notificationWorker.drainNow(); // a node started afresh: nothing told again
      expect(await keysOf('executor')).toHaveLength(1);
      expect(await keysOf('partial')).toHaveLength(1);
      // Day 4 (UTC) and day 5 (Auckland, 6 March 00:30): two nodes run the pass at once, three times. On SQLite
      // the nodes take turns: better-sqlite3 waits for a lock synchronously, so two nodes in one process would hold
      // each other up (two processes, as in production, wait for each other instead).
      clock.set('2030-03-05T11:30:00Z');
      for (let i = 0; i < 3; i++) {
        if (testDialect() === 'postgres') await Promise.all([other.notificationWorker.drainNow(), drain()]);
        else for (const node of [other.notificationWorker, server.ctx.notificationWorker]) await node.drainNow();
      }
    } finally {
      await other.close();
    }
    expect(await keysOf('executor')).toEqual(['overdue_escalated:1000:2030-03-01:2', 'overdue_escalated:1000:2030-03-01:5']);
    expect(await keysOf('partial')).toEqual(['overdue_escalated:1000:2030-03-01:2', 'overdue_escalated:1000:2030-03-01:4']);
    // The managers join at day 5 in their time zone (UTC): not yet.
    expect(await keysOf('manager')).toEqual([]);
    clock.set('2030-03-06T08:00:00Z'); // day 5 in UTC; still day 5 in Auckland (21:00)
    await drain();
    expect(await keysOf('executor')).toHaveLength(2);
    expect((await keysOf('partial')).at(-1)).toBe('overdue_escalated:1000:2030-03-01:5');
    expect(await escalations('manager')).toEqual([
      {
        key: 'overdue_escalated:1000:2030-03-01:5',
        text: '“Extinguishers checked”, in a project you manage, has been overdue for 5 days (deadline 2030-03-01)',
        delivery: 'email',
      },
    ]);
    expect(await keysOf('inactive')).toEqual([]); // a deactivated manager
    expect(await keysOf('observer')).toEqual([]);
    const steps = await server.ctx.db.kysely.selectFrom('escalation_steps').selectAll().where('item_id', '=', 1000).execute();
    expect(steps).toHaveLength(6);
    // Emailed like the other kinds (after the item's gathering minute); the partial executor chose "Web only".
    clock.advance(ITEM_EMAIL_WINDOW_MS);
    await drain();
    const email = smtp.to('manager@punchlist.test').at(-1)!.parsed;
    expect(email.subject).toBe('Punchlist: “Extinguishers checked”');
    expect(email.text).toContain('has been overdue for 5 days');
    expect(email.text).toContain(`${server.url}/items/1000`);
    expect(smtp.to('partial@punchlist.test').filter((m) => (m.parsed.text ?? '').includes('overdue for'))).toEqual([]);
  });

  it('stops climbing when the item is done, and starts a new ladder when the deadline moves', async () => {
    await server.ctx.itemWrites.setStatus(manager, 1000, 'done');
    clock.set('2030-03-09T09:00:00Z'); // day 8
    await drain();
    expect(await keysOf('partial')).toHaveLength(3);
    expect(await keysOf('manager')).toHaveLength(1);
    await server.ctx.itemWrites.setStatus(manager, 1000, 'in_progress');
    await server.ctx.itemWrites.setPlanning(manager, 1000, { deadline: '2030-03-08' });
    await drain(); // day 1 of the new deadline: no step yet
    expect(await keysOf('partial')).toHaveLength(3);
    clock.set('2030-03-10T09:00:00Z'); // day 2 of the new deadline
    await drain();
    expect((await keysOf('partial')).at(-1)).toBe('overdue_escalated:1000:2030-03-08:2');
    expect(await keysOf('manager')).toHaveLength(1);
    // A deadline moved to the future: nothing more.
    await server.ctx.itemWrites.setPlanning(manager, 1000, { deadline: '2030-04-30' });
    clock.set('2030-03-20T09:00:00Z');
    await drain();
    expect(await keysOf('partial')).toHaveLength(4);
  });

  it('stops when the ladder is switched off', async () => {
    await server.ctx.itemWrites.setPlanning(manager, 1000, { deadline: '2030-03-10' });
    await server.ctx.vocabulary.setEscalation(manager, 1, null);
    clock.set('2030-03-30T09:00:00Z');
    await drain();
    expect(await keysOf('partial')).toHaveLength(4);
    expect(await server.ctx.vocabulary.escalationOf(manager, 1)).toBeNull();
  });
});
