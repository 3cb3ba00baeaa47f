import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClock } from '../helpers/factories.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startSmtpReceiver, type SmtpReceiver } from '../helpers/smtp.js';
import { USERS } from '../helpers/workspace.js';
import { signedInClients } from '../web/web-client.js';
import { pdfText } from './pdf-text.js';

/**
 * Company packs (docs/design.md §20) with a real SMTP receiver on loopback: "Send to companies" emails each company's
 * people in the project one PDF of their company's open items; pdftotext finds only that company's items; sending
 * again with nothing changed sends nothing new, and a changed pack goes only to that company.
 */
const clock = createTestClock();
let smtp: SmtpReceiver;
let server: TestServer;
const as = signedInClients(() => server.url);
const admin = { id: USERS.admin, role: 'admin' as const };
const send = () => server.ctx.notificationWorker.drainNow();
const mailOf = (user: string) => `${user}@punchlist.test`;

async function pressSend(expected: string) {
  const web = await as('manager');
  const page = await web.get('/projects/1');
  expect(page.text).toContain('Send to companies</button>');
  const sent = await web.post('/projects/1/company-packs', { _key: crypto.randomUUID() }, page.text);
  expect(sent).toMatchObject({ status: 303, location: `/projects/1?packs=${expected}` });
  await send();
}

/** The text of the one PDF attached to a message. */
async function packText(mail: { parsed: { attachments: { contentType: string; content: Buffer; filename?: string }[] } }) {
  const pdfs = mail.parsed.attachments.filter((a) => a.contentType === 'application/pdf');
  expect(pdfs).toHaveLength(1);
  expect(pdfs[0]!.filename).toMatch(/^open-items-.+\.pdf$/);
  return pdfText(pdfs[0]!.content);
}

beforeAll(async () => {
  smtp = await startSmtpReceiver();
  server = await startTestServer({ clock, env: { SMTP_URL: smtp.url } });
  const sparks = await server.ctx.companies.createCompany(admin, { name: 'Sparks Ltd', trade: 'Electrical' });
  const dry = await server.ctx.companies.createCompany(admin, { name: 'Drywall Co', trade: 'Drywall' });
  await server.ctx.companies.createCompany(admin, { name: 'Idle Crew', trade: 'Paint' });
  // Sparks: 1000 (open), 1011 (blocked), 2000 (done: not in the pack). Drywall: 2001, 2010. Nobody's: 1001, 1010.
  for (const [item, company] of [
    [1000, sparks.id],
    [1011, sparks.id],
    [2000, sparks.id],
    [2001, dry.id],
    [2010, dry.id],
  ] as const) {
    await server.ctx.itemWrites.setCompany(admin, item, company);
  }
  await server.ctx.companies.setUserCompany(admin, USERS.executor, sparks.id);
  await server.ctx.companies.setUserCompany(admin, USERS.bystander, dry.id);
  await server.ctx.companies.setUserCompany(admin, USERS.observer, dry.id);
  // A Sparks person who is no member of project 1 gets nothing.
  await server.ctx.companies.setUserCompany(admin, USERS.outsider, sparks.id);
  await send();
});
afterAll(async () => {
  await server.close();
  await smtp.stop();
});

describe('"Send to companies"', () => {
  it('emails each company’s people one PDF of their company’s open items, and only those', async () => {
    await pressSend('3,0');
    const [sparksMail] = await smtp.waitFor(mailOf('executor'));
    expect(sparksMail!.parsed.subject).toBe('Punchlist: open items of Sparks Ltd in Plant audit');
    expect(sparksMail!.parsed.text).toContain('Manager sent you the open items of Sparks Ltd');
    const sparksText = await packText(sparksMail!);
    expect(sparksText).toContain('Items in this report: 2');
    // The cover names the company, not its id.
    expect(sparksText.replace(/\s+/g, ' ')).toContain('company Sparks Ltd');
    expect(sparksText).toContain('#1000 Extinguishers checked');
    expect(sparksText).toContain('#1011 Item 1011');
    for (const other of ['#2000', '#2001', '#2010', '#1001', '#1010']) expect(sparksText).not.toContain(other);

    for (const person of ['bystander', 'observer']) {
      const [mail] = await smtp.waitFor(mailOf(person));
      expect(mail!.parsed.subject).toBe('Punchlist: open items of Drywall Co in Plant audit');
      const text = await packText(mail!);
      expect(text).toContain('#2001 Item 2001');
      expect(text).toContain('#2010 Item 2010');
      for (const other of ['#1000', '#1011', '#2000', '#1001', '#1010']) expect(text).not.toContain(other);
    }
    expect(smtp.received).toHaveLength(3);
    expect(smtp.to(mailOf('outsider'))).toEqual([]);
    expect(smtp.to(mailOf('manager'))).toEqual([]);
    const sends = await server.ctx.db.kysely.selectFrom('company_pack_sends').select(['user_id']).orderBy('user_id').execute();
    expect(sends.map((s) => s.user_id)).toEqual([USERS.executor, USERS.bystander, USERS.observer].sort((a, b) => a - b));
  });

  it('sends nothing new when pressed again with nothing changed; a changed pack goes to its company only', async () => {
    await pressSend('0,3');
    expect(smtp.received).toHaveLength(3);
    expect((await (await as('manager')).get('/projects/1?packs=0,3')).text).toContain(
      'No new pack to send; 3 were sent already, nothing changed since.',
    );

    clock.advance(1000);
    await server.ctx.itemWrites.setStatus(admin, 1000, 'in_progress');
    await pressSend('1,2');
    const mails = await smtp.waitFor(mailOf('executor'), 2);
    expect(mails).toHaveLength(2);
    expect(smtp.received).toHaveLength(4);
  });

  it('is retried from the durable queue while the mail server is down, and sent once when it is back', async () => {
    await smtp.stop();
    clock.advance(1000);
    await server.ctx.itemWrites.setStatus(admin, 2001, 'in_progress');
    await pressSend('2,1');
    const waiting = await server.ctx.db.kysely
      .selectFrom('notification_emails')
      .select(['state', 'attempts'])
      .where('key', 'like', 'pack:%')
      .where('state', '=', 'waiting')
      .execute();
    expect(waiting).toEqual([
      { state: 'waiting', attempts: 1 },
      { state: 'waiting', attempts: 1 },
    ]);
    await smtp.start();
    clock.advance(60_000);
    await send();
    await smtp.waitFor(mailOf('bystander'), 2);
    await smtp.waitFor(mailOf('observer'), 2);
    clock.advance(3_600_000);
    await send();
    expect(smtp.to(mailOf('bystander'))).toHaveLength(2);
    expect(smtp.received).toHaveLength(6);
  });

  it('is for the project’s managers: other roles get 403 and nothing is queued', async () => {
    const before = await server.ctx.db.kysely.selectFrom('notification_emails').select('id').execute();
    for (const user of ['executor', 'observer'] as const) {
      const web = await as(user);
      const page = await web.get('/projects/1');
      expect(page.text).not.toContain('Send to companies');
      expect((await web.post('/projects/1/company-packs', {}, page.text)).status).toBe(403);
    }
    expect(
      (await (await as('outsider')).post('/projects/1/company-packs', {}, (await (await as('outsider')).get('/projects')).text)).status,
    ).toBe(404);
    expect(await server.ctx.db.kysely.selectFrom('notification_emails').select('id').execute()).toEqual(before);
  });
});
