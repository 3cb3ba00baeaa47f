import { describe, expect, it } from 'vitest';
import { makeMembership, makeProject, makeSection, makeUser, useTestContext } from '../../../test/helpers/factories.js';
import { verifyPassword } from '../../domain/passwords.js';

/** A user's own settings through the users service, on both dialects: time zone, password, project roles. */
const t = useTestContext();

const row = async (id: number) => (await t.ctx.users.findById(id))!;

describe('users.setTimeZone', () => {
  it('stores a zone in its listed spelling, clears it with an empty value, and refuses anything else', async () => {
    const user = await makeUser(t);
    expect(await t.ctx.users.setTimeZone(user.id, 'europe/berlin')).toBe('Europe/Berlin');
    expect((await row(user.id)).time_zone).toBe('Europe/Berlin');
    await expect(t.ctx.users.setTimeZone(user.id, 'Europe/Atlantis')).rejects.toMatchObject({
      status: 422,
      details: [{ field: 'time_zone' }],
    });
    expect((await row(user.id)).time_zone).toBe('Europe/Berlin');
    expect(await t.ctx.users.setTimeZone(user.id, '')).toBeNull();
    expect((await row(user.id)).time_zone).toBeNull();
  });
});

describe('users.changePassword', () => {
  it('needs the current password and the rule, then stores a new hash', async () => {
    const user = await makeUser(t, { password: 'first password 1' });
    const change = (current: string, next: string, confirm = next) => t.ctx.users.changePassword(user.id, { current, next, confirm });
    await expect(change('nope', 'second password 2')).rejects.toMatchObject({ status: 422, details: [{ field: 'current_password' }] });
    await expect(change('first password 1', 'short')).rejects.toMatchObject({ status: 422, details: [{ field: 'new_password' }] });
    await expect(change('first password 1', 'x'.repeat(1025))).rejects.toMatchObject({ status: 422, details: [{ field: 'new_password' }] });
    await expect(change('first password 1', 'second password 2', 'typo')).rejects.toMatchObject({
      details: [{ field: 'confirm_password' }],
    });
    expect(await verifyPassword('first password 1', (await row(user.id)).password_hash)).toBe(true);
    await change('first password 1', 'second password 2');
    const hash = (await row(user.id)).password_hash;
    expect(await verifyPassword('second password 2', hash)).toBe(true);
    expect(await verifyPassword('first password 1', hash)).toBe(false);
  });

  it('refuses an account without a password (no web sign-in) like a wrong one', async () => {
    const user = await makeUser(t);
    await expect(
      t.ctx.users.changePassword(user.id, { current: '', next: 'second password 2', confirm: 'second password 2' }),
    ).rejects.toMatchObject({
      status: 422,
    });
    expect((await row(user.id)).password_hash).toBeNull();
  });
});

describe('users.projectRoles', () => {
  it('lists the memberships with the project names, active projects first, limits noted', async () => {
    const user = await makeUser(t);
    const b = await makeProject(t, { name: 'B site' });
    const a = await makeProject(t, { name: 'A site' });
    const old = await makeProject(t, { name: 'Old site', archived: true });
    await makeMembership(t, b, user, 'manager');
    await makeMembership(t, a, user, 'executor', { sections: [await makeSection(t, a)] });
    await makeMembership(t, old, user, 'executor');
    expect(await t.ctx.users.projectRoles(user.id)).toEqual([
      { projectId: a.id, name: 'A site', archived: false, role: 'executor', limited: true },
      { projectId: b.id, name: 'B site', archived: false, role: 'manager', limited: false },
      { projectId: old.id, name: 'Old site', archived: true, role: 'executor', limited: false },
    ]);
    expect(await t.ctx.users.projectRoles((await makeUser(t)).id)).toEqual([]);
  });
});
