import { describe, expect, it } from 'vitest';
import { makeMember, makeProject, makeUser, useTestContext } from '../../../test/helpers/factories.js';

/**
 * Without SMTP_URL (both dialects): "Send to companies" cannot send and says so (422, nothing recorded); an invitation
 * is still made, its link shown to the manager only (nothing queued). The refusals by role come before.
 */
const t = useTestContext();
const db = () => t.ctx.db.kysely;
const rows = async () => ({
  sends: (await db().selectFrom('company_pack_sends').select('id').execute()).length,
  emails: (await db().selectFrom('notification_emails').select('id').execute()).length,
});

describe('without email', () => {
  it('refuses to send the packs with 422 on company_packs, after 404 and 403 for those who may not', async () => {
    const project = await makeProject(t);
    const manager = { ...(await makeMember(t, project, 'manager')), name: 'M' };
    const executor = { ...(await makeMember(t, project, 'executor')), name: 'E' };
    const outsider = { ...(await makeUser(t)), name: 'X' };
    await expect(t.ctx.companyPacks.sendPacks(outsider, project.id, 'en')).rejects.toMatchObject({ status: 404 });
    await expect(t.ctx.companyPacks.sendPacks(executor, project.id, 'en')).rejects.toMatchObject({ status: 403 });
    await expect(t.ctx.companyPacks.sendPacks(manager, project.id, 'en')).rejects.toMatchObject({
      status: 422,
      details: [{ field: 'company_packs' }],
    });
    expect(await rows()).toEqual({ sends: 0, emails: 0 });
  });

  it('makes an invitation whose link only the manager sees, and queues nothing', async () => {
    const project = await makeProject(t);
    const manager = { ...(await makeMember(t, project, 'manager')), name: 'M' };
    const made = await t.ctx.invitations.invite(
      manager,
      project.id,
      { name: 'New Person', email: 'new.person@example.test', company: '', role: 'observer', companyItemsOnly: false },
      'en',
    );
    expect(made).toMatchObject({ kind: 'invited', emailed: false });
    expect(await rows()).toEqual({ sends: 0, emails: 0 });
  });
});
