import { describe, expect, it } from 'vitest';
import { makeMember, makeProject, makeUser, useTestContext } from '../../../test/helpers/factories.js';
import { exportFixture } from '../fixtures/export.service.js';
import { importFixture } from '../fixtures/import.service.js';

/** Companies on both dialects (docs/design.md §20): the admin's use cases, their refusals, the fixture keys. */
const t = useTestContext();
const db = () => t.ctx.db.kysely;

async function exported(): Promise<any> {
  let text = '';
  await exportFixture(db(), (chunk) => void (text += chunk));
  return JSON.parse(text);
}

describe('companies', () => {
  it('adds companies, retires them (kept, out of pickers) and sets a person’s company, with audit records', async () => {
    const audits: unknown[] = [];
    const record = async (_trx: unknown, entity?: unknown) => void audits.push(entity);
    const sparks = await t.ctx.companies.createCompany(t.admin, { name: '  Sparks Ltd ', trade: 'Electrical' }, record);
    expect(sparks).toMatchObject({ name: 'Sparks Ltd', trade: 'Electrical', retired: false });
    const dry = await t.ctx.companies.createCompany(t.admin, { name: 'Drywall & Co', trade: '' });
    const person = await makeUser(t);
    await t.ctx.companies.setUserCompany(t.admin, person.id, sparks.id, record);
    expect((await db().selectFrom('users').select('company_id').where('id', '=', person.id).executeTakeFirstOrThrow()).company_id).toBe(
      sparks.id,
    );
    await t.ctx.companies.setRetired(t.admin, dry.id, true, record);
    expect(audits).toEqual([
      { type: 'company', id: sparks.id },
      { type: 'user', id: person.id },
      { type: 'company', id: dry.id },
    ]);
    expect((await t.ctx.companies.activeCompanies()).map((c) => c.id)).toContain(sparks.id);
    expect((await t.ctx.companies.activeCompanies()).map((c) => c.id)).not.toContain(dry.id);
    expect((await t.ctx.companies.listCompanies()).find((c) => c.id === dry.id)).toMatchObject({ retired: true });
    // A retired company is given nothing new; the person keeps what they had.
    await expect(t.ctx.companies.setUserCompany(t.admin, person.id, dry.id)).rejects.toMatchObject({ status: 422 });
    await t.ctx.companies.setUserCompany(t.admin, person.id, null);
    expect((await db().selectFrom('users').select('company_id').where('id', '=', person.id).executeTakeFirstOrThrow()).company_id).toBe(
      null,
    );
  });

  it('refuses bad input with 422 and non-admins with 403, changing nothing', async () => {
    const before = (await t.ctx.companies.listCompanies()).length;
    for (const name of ['', '   ', 'Evil\u202Ename']) {
      await expect(t.ctx.companies.createCompany(t.admin, { name, trade: '' })).rejects.toMatchObject({ status: 422 });
    }
    await expect(t.ctx.companies.createCompany(t.admin, { name: 'x'.repeat(201), trade: '' })).rejects.toMatchObject({ status: 422 });
    const project = await makeProject(t);
    const manager = await makeMember(t, project, 'manager');
    await expect(t.ctx.companies.createCompany(manager, { name: 'Mine', trade: '' })).rejects.toMatchObject({ status: 403 });
    await expect(t.ctx.companies.setUserCompany(t.admin, manager.id, 999_999)).rejects.toMatchObject({ status: 422 });
    await expect(t.ctx.companies.setUserCompany(t.admin, 999_999, null)).rejects.toMatchObject({ status: 422 });
    await expect(t.ctx.companies.setRetired(t.admin, 999_999, true)).rejects.toMatchObject({ status: 404 });
    expect((await t.ctx.companies.listCompanies()).length).toBe(before);
  });

  it('carries companies, a person’s company, a member’s company_items_only and an item’s company through export and import', async () => {
    await importFixture(
      db(),
      t.ctx.db.dialect,
      {
        companies: [{ id: 900, name: 'Roofers', trade: 'Roofing' }],
        users: [{ id: 900, email: 'roofer@example.test', name: 'Roofer', company_id: 900 }],
        projects: [
          {
            id: 900,
            name: 'Roof',
            members: [{ user_id: 900, role: 'executor', sections: null, checklists: null, company_items_only: true }],
            sections: [
              { id: 900, name: 'S', checklists: [{ id: 900, name: 'C', items: [{ id: 900, text: 'Leak', responsible_company_id: 900 }] }] },
            ],
          },
        ],
      },
      t.clock,
    );
    const fixture = await exported();
    expect(fixture.companies.find((c: any) => c.id === 900)).toMatchObject({ name: 'Roofers', trade: 'Roofing', retired: false });
    expect(fixture.users.find((u: any) => u.id === 900)).toMatchObject({ company_id: 900 });
    const project = fixture.projects.find((p: any) => p.id === 900);
    expect(project.members[0]).toMatchObject({ company_items_only: true });
    expect(project.sections[0].checklists[0].items[0]).toMatchObject({ responsible_company_id: 900 });
  });

  it('refuses a fixture naming a company that does not exist, importing nothing', async () => {
    const users = async () => (await db().selectFrom('users').select('id').execute()).length;
    const before = await users();
    await expect(
      importFixture(db(), t.ctx.db.dialect, { users: [{ id: 950, email: 'x@example.test', name: 'X', company_id: 4242 }] }, t.clock),
    ).rejects.toThrow(/company 4242/);
    expect(await users()).toBe(before);
  });
});
