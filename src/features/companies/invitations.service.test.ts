import { describe, expect, it } from 'vitest';
import { verifyPassword } from '../../domain/passwords.js';
import { createTestClock, makeMember, makeProject, makeUser, useTestContext } from '../../../test/helpers/factories.js';
import { INVITATION_LIFETIME_MS } from './invitations.service.js';

/**
 * Invitations on both dialects (docs/design.md §20): the link's expiry with a test clock, single use, a person who
 * already has an account, and every refusal leaving nothing behind. SMTP is set (nobody listens: the emails stay
 * queued), so what would be emailed is in the queue.
 */
const clock = createTestClock('2026-11-28T10:00:00Z');
const t = useTestContext({ clock, env: { SMTP_URL: 'smtp://127.0.0.1:9' } });
const db = () => t.ctx.db.kysely;
const tokenOf = (link: string) => link.split('/invitations/')[1]!;
const input = (over: Partial<{ name: string; email: string; company: string; role: string; companyItemsOnly: boolean }> = {}) => ({
  name: 'Ivan Electrician',
  email: `ivan${Math.random().toString(36).slice(2, 8)}@sparks.test`,
  company: '',
  role: 'executor',
  companyItemsOnly: false,
  ...over,
});
const counts = async () => ({
  users: Number(
    (
      await db()
        .selectFrom('users')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  ),
  members: Number(
    (
      await db()
        .selectFrom('project_members')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  ),
  invitations: Number(
    (
      await db()
        .selectFrom('invitations')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  ),
  emails: Number(
    (
      await db()
        .selectFrom('notification_emails')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  ),
});

async function setting() {
  const project = await makeProject(t, { name: 'Tower B' });
  const manager = { ...(await makeMember(t, project, 'manager')), name: 'Maria Manager' };
  const sparks = await t.ctx.companies.createCompany(t.admin, { name: 'Sparks Ltd', trade: 'Electrical' });
  return { project, manager, sparks };
}

describe('invitations', () => {
  it('gives a new person a single-use link, queued by email, that makes their account and membership with the company', async () => {
    const { project, manager, sparks } = await setting();
    const audits: unknown[] = [];
    const wanted = input({ company: String(sparks.id), companyItemsOnly: true, email: 'Ivan.New@Sparks.test ' });
    const made = await t.ctx.invitations.invite(manager, project.id, wanted, 'en', async (_trx, entity) => void audits.push(entity));
    expect(made).toMatchObject({ kind: 'invited', email: 'ivan.new@sparks.test', emailed: true });
    if (made.kind !== 'invited') throw new Error('not invited');
    expect(made.link).toMatch(/^http:\/\/punchlist\.test\/invitations\/[A-Za-z0-9_-]{43}$/);
    expect(made.expiresAt).toBe(new Date(Date.parse('2026-11-28T10:00:00Z') + INVITATION_LIFETIME_MS).toISOString());
    expect(audits).toEqual([{ type: 'invitation', id: made.invitationId }]);
    // Stored as its hash only; the queued email carries the link until it is sent.
    const row = await db().selectFrom('invitations').selectAll().where('id', '=', made.invitationId).executeTakeFirstOrThrow();
    expect(row.token_hash).not.toContain(tokenOf(made.link));
    const email = await db()
      .selectFrom('notification_emails')
      .selectAll()
      .where('key', '=', `invitation:${made.invitationId}`)
      .executeTakeFirstOrThrow();
    expect(email).toMatchObject({ user_id: 0, to_address: 'ivan.new@sparks.test', state: 'waiting' });
    expect(JSON.parse(email.message!)).toMatchObject({
      kind: 'invitation',
      link: made.link,
      projectName: 'Tower B',
      inviter: 'Maria Manager',
    });

    expect(await t.ctx.invitations.invitation(tokenOf(made.link))).toEqual({
      state: 'valid',
      projectName: 'Tower B',
      name: 'Ivan Electrician',
      email: 'ivan.new@sparks.test',
    });
    // Too short a password: refused, nothing made, the link still works.
    await expect(t.ctx.invitations.accept(tokenOf(made.link), 'short')).rejects.toMatchObject({ status: 422 });
    expect((await t.ctx.invitations.invitation(tokenOf(made.link))).state).toBe('valid');

    clock.advance(INVITATION_LIFETIME_MS - 60_000);
    const accepted = await t.ctx.invitations.accept(tokenOf(made.link), 'a long enough password');
    expect(accepted).toMatchObject({
      projectId: project.id,
      user: { email: 'ivan.new@sparks.test', name: 'Ivan Electrician', role: 'member' },
    });
    const user = await db().selectFrom('users').selectAll().where('email', '=', 'ivan.new@sparks.test').executeTakeFirstOrThrow();
    expect(user.company_id).toBe(sparks.id);
    expect(await verifyPassword('a long enough password', user.password_hash)).toBe(true);
    expect(
      await db()
        .selectFrom('project_members')
        .select(['role', 'company_items_only'])
        .where('user_id', '=', user.id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ role: 'executor', company_items_only: 1 });
    expect(
      (await db().selectFrom('invitations').select(['used_at', 'user_id']).where('id', '=', made.invitationId).executeTakeFirstOrThrow())
        .user_id,
    ).toBe(user.id);

    // Single use: the link is spent, a second use makes nothing.
    const before = await counts();
    expect(await t.ctx.invitations.invitation(tokenOf(made.link))).toEqual({ state: 'used' });
    expect(await t.ctx.invitations.accept(tokenOf(made.link), 'another long password')).toBeNull();
    expect(await counts()).toEqual(before);
  });

  it('expires after 7 days: the link says so and makes nothing', async () => {
    const { project, manager } = await setting();
    const made = await t.ctx.invitations.invite(manager, project.id, input({ email: 'late@sparks.test' }), 'en');
    if (made.kind !== 'invited') throw new Error('not invited');
    clock.advance(INVITATION_LIFETIME_MS);
    const before = await counts();
    expect(await t.ctx.invitations.invitation(tokenOf(made.link))).toEqual({ state: 'expired' });
    expect(await t.ctx.invitations.accept(tokenOf(made.link), 'a long enough password')).toBeNull();
    expect(await counts()).toEqual(before);
  });

  it('knows no forged link', async () => {
    const before = await counts();
    for (const token of ['x'.repeat(43), 'short', '../../etc', '']) {
      expect(await t.ctx.invitations.invitation(token)).toEqual({ state: 'unknown' });
      expect(await t.ctx.invitations.accept(token, 'a long enough password')).toBeNull();
    }
    expect(await counts()).toEqual(before);
  });

  it('adds a person who already has an account to the project instead (no second account) and tells them by email', async () => {
    const { project, manager, sparks } = await setting();
    const existing = await makeUser(t, { email: 'known@sparks.test', name: 'Known Person' });
    const before = await counts();
    const made = await t.ctx.invitations.invite(
      manager,
      project.id,
      input({ email: 'KNOWN@sparks.test', company: String(sparks.id), role: 'observer' }),
      'en',
    );
    expect(made).toEqual({ kind: 'added', userId: existing.id, email: 'known@sparks.test', emailed: true });
    const after = await counts();
    expect(after).toEqual({ ...before, members: before.members + 1, invitations: before.invitations + 1, emails: before.emails + 1 });
    expect(
      await db()
        .selectFrom('project_members')
        .select(['role'])
        .where('user_id', '=', existing.id)
        .where('project_id', '=', project.id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ role: 'observer' });
    expect((await db().selectFrom('users').select('company_id').where('id', '=', existing.id).executeTakeFirstOrThrow()).company_id).toBe(
      sparks.id,
    );
    const email = await db().selectFrom('notification_emails').selectAll().where('user_id', '=', existing.id).executeTakeFirstOrThrow();
    expect(JSON.parse(email.message!)).toMatchObject({ kind: 'member_added', projectId: project.id });
    // Invited again: already a member → 422, nothing changed.
    await expect(t.ctx.invitations.invite(manager, project.id, input({ email: 'known@sparks.test' }), 'en')).rejects.toMatchObject({
      status: 422,
      details: [{ field: 'email' }],
    });
    expect(await counts()).toEqual(after);
  });

  it('refuses a missing or retired company, a bad role, name or email with 422, and non-managers with 403 or 404', async () => {
    const { project, manager, sparks } = await setting();
    const retired = await t.ctx.companies.createCompany(t.admin, { name: 'Gone Ltd', trade: '' });
    await t.ctx.companies.setRetired(t.admin, retired.id, true);
    const before = await counts();
    const refusals: [Parameters<typeof input>[0], string][] = [
      [{ company: '999999' }, 'company'],
      [{ company: String(retired.id) }, 'company'],
      [{ company: 'abc' }, 'company'],
      [{ companyItemsOnly: true }, 'company'],
      [{ role: 'manager' }, 'role'],
      [{ name: '  ' }, 'name'],
      [{ email: 'not-an-email' }, 'email'],
    ];
    for (const [over, field] of refusals) {
      await expect(t.ctx.invitations.invite(manager, project.id, input(over), 'en')).rejects.toMatchObject({
        status: 422,
        details: [{ field }],
      });
    }
    expect(await counts()).toEqual(before);
    const executor = { ...(await makeMember(t, project, 'executor')), name: 'E' };
    const observer = { ...(await makeMember(t, project, 'observer')), name: 'O' };
    const outsider = { ...(await makeUser(t)), name: 'X' };
    const archived = await makeProject(t, { archived: true });
    const beforeOthers = await counts();
    await expect(t.ctx.invitations.invite(executor, project.id, input({ company: String(sparks.id) }), 'en')).rejects.toMatchObject({
      status: 403,
    });
    await expect(t.ctx.invitations.invite(observer, project.id, input(), 'en')).rejects.toMatchObject({ status: 403 });
    await expect(t.ctx.invitations.invite(outsider, project.id, input(), 'en')).rejects.toMatchObject({ status: 404 });
    await expect(t.ctx.invitations.invite({ ...t.admin, name: 'A' }, archived.id, input(), 'en')).rejects.toMatchObject({ status: 403 });
    expect(await counts()).toEqual(beforeOthers);
    // An admin who is no member may invite.
    expect(await t.ctx.invitations.invite({ ...t.admin, name: 'A' }, project.id, input(), 'en')).toMatchObject({ kind: 'invited' });
  });
});
