import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClock } from '../../../test/helpers/factories.js';
import { startSmtpReceiver, type SmtpReceiver } from '../../../test/helpers/smtp.js';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';
import { USERS } from '../../../test/helpers/workspace.js';
import { ITEM_EMAIL_WINDOW_MS } from './notifications.repository.js';

/**
 * The kinds `dispute_raised` and `dispute_resolved` (docs/design.md §15, §20) on both dialects with a real SMTP server:
 * a dispute tells the project's managers, its resolution the item's executors and the disputer, never the actor, by
 * email as each person's preferences say.
 */
const clock = createTestClock();
let smtp: SmtpReceiver;
let server: TestServer;
const executor = { id: USERS.executor, role: 'member' as const };
const manager = { id: USERS.manager, role: 'member' as const };
const drain = () => server.ctx.notificationWorker.drainNow();
const listOf = async (user: number) => server.ctx.notifications.list(user);

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  server = await startTestServer({ clock, env: { SMTP_URL: smtp.url } });
  await drain();
});
afterAll(async () => {
  await server.close();
  await smtp.stop();
});

describe('dispute notifications', () => {
  it('tell the managers of a dispute and the item’s executors of its resolution, by email per their preferences', async () => {
    // Item 1000: participants executor and partial. The partial executor wants these in the web only.
    await server.ctx.notifications.setPreferences(USERS.partial, { dispute_resolved: 'web' });
    await server.ctx.itemDisputes.dispute(executor, 1000, { reason: 'Not ours: the <b>drywall</b> crew did it' });
    await drain();
    const raised = (await listOf(USERS.manager)).filter((n) => n.kind === 'dispute_raised');
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({ item_id: 1000, text: expect.stringContaining('Executor disputed “') });
    expect(raised[0]!.text).toContain('Not ours: the <b>drywall</b> crew did it');
    // Never the actor; never the item's other executors; the admin is no member of the project.
    for (const user of [USERS.executor, USERS.partial, USERS.admin, USERS.observer]) {
      expect((await listOf(user)).some((n) => n.kind === 'dispute_raised')).toBe(false);
    }

    clock.advance(ITEM_EMAIL_WINDOW_MS + 1000);
    await drain();
    const [email] = await smtp.waitFor('manager@punchlist.test');
    expect(email!.parsed.text).toContain('disputed');
    expect(email!.parsed.html).toContain('the &lt;b&gt;drywall&lt;/b&gt; crew');

    await server.ctx.itemDisputes.resolve(manager, 1000, { note: 'It is yours, see the plan' });
    await drain();
    for (const user of [USERS.executor, USERS.partial]) {
      const resolved = (await listOf(user)).filter((n) => n.kind === 'dispute_resolved');
      expect(resolved).toHaveLength(1);
      expect(resolved[0]!.text).toContain('resolved the dispute on “');
      expect(resolved[0]!.text).toContain('It is yours, see the plan');
    }
    expect((await listOf(USERS.manager)).some((n) => n.kind === 'dispute_resolved')).toBe(false);

    clock.advance(ITEM_EMAIL_WINDOW_MS + 1000);
    await drain();
    await smtp.waitFor('executor@punchlist.test');
    expect(smtp.to('executor@punchlist.test').some((m) => (m.parsed.text ?? '').includes('resolved the dispute'))).toBe(true);
    // "Web only" for the partial executor: no email for it.
    const partialEmails = await server.ctx.db.kysely
      .selectFrom('notification_emails')
      .select('id')
      .where('user_id', '=', USERS.partial)
      .execute();
    expect(partialEmails).toEqual([]);
    expect(smtp.to('partial@punchlist.test')).toEqual([]);
  });

  it('are offered in the Profile’s preferences', async () => {
    expect(await server.ctx.notifications.preferences(USERS.executor)).toMatchObject({
      dispute_raised: 'email',
      dispute_resolved: 'email',
    });
  });
});
