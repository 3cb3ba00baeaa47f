import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { USERS } from '../helpers/workspace.js';
import { signedInClients } from './web-client.js';

/** `/admin/companies` (docs/design.md §20) for every role: administrators only; bad input → 422, nothing changed. */
let server: TestServer;
const as = signedInClients(() => server.url);
const companies = () => server.ctx.db.kysely.selectFrom('companies').selectAll().orderBy('id').execute();

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('/admin/companies', () => {
  it('lets an admin add a company, set a person’s company and retire it, each with its audit record', async () => {
    const web = await as('admin');
    const home = await web.get('/admin');
    expect(home.text).toContain('href="/admin/companies"');
    let page = await web.get('/admin/companies');
    expect(page.status).toBe(200);
    const added = await web.post('/admin/companies', { name: 'Sparks Ltd', trade: 'Electrical' }, page.text);
    expect(added.status).toBe(303);
    const [sparks] = await companies();
    expect(sparks).toMatchObject({ name: 'Sparks Ltd', trade: 'Electrical', retired: 0 });
    page = await web.get('/admin/companies');
    expect(page.text).toContain('Sparks Ltd');
    const set = await web.post('/admin/companies/people', { user: String(USERS.executor), company: String(sparks!.id) }, page.text);
    expect(set.status).toBe(303);
    const executor = await server.ctx.db.kysely
      .selectFrom('users')
      .select('company_id')
      .where('id', '=', USERS.executor)
      .executeTakeFirstOrThrow();
    expect(executor.company_id).toBe(sparks!.id);
    page = await web.get('/admin/companies');
    const retired = await web.post(`/admin/companies/${sparks!.id}/retired`, { retired: '1' }, page.text);
    expect(retired.status).toBe(303);
    expect((await companies())[0]).toMatchObject({ retired: 1 });
    const audit = await server.ctx.db.kysely
      .selectFrom('audit_log')
      .select(['path', 'status', 'entity_type'])
      .where('path', 'like', '/admin/companies%')
      .orderBy('id')
      .execute();
    expect(audit.map((a) => [a.status, a.entity_type])).toEqual([
      [303, 'company'],
      [303, 'user'],
      [303, 'company'],
    ]);
  });

  it('answers 422 beside the field for a missing name or an unknown company, changing nothing', async () => {
    const web = await as('admin');
    const before = await companies();
    let page = await web.get('/admin/companies');
    const empty = await web.post('/admin/companies', { name: ' ', trade: '' }, page.text);
    expect(empty.status).toBe(422);
    expect(empty.text).toContain('There is a problem');
    page = await web.get('/admin/companies');
    const unknown = await web.post('/admin/companies/people', { user: String(USERS.executor), company: '424242' }, page.text);
    expect(unknown.status).toBe(422);
    expect(await companies()).toEqual(before);
  });

  it('lets an admin limit a member to their company’s items from the project editor', async () => {
    const web = await as('admin');
    const page = await web.get('/admin/projects/1');
    expect(page.text).toContain('name="company_items_only"');
    const saved = await web.post(
      '/admin/projects/1/members',
      { user: String(USERS.bystander), role: 'executor', access: 'whole', company_items_only: '1' },
      page.text,
    );
    expect(saved.status).toBe(303);
    const row = await server.ctx.db.kysely
      .selectFrom('project_members')
      .select('company_items_only')
      .where('project_id', '=', 1)
      .where('user_id', '=', USERS.bystander)
      .executeTakeFirstOrThrow();
    expect(row.company_items_only).toBe(1);
    // Without a company, the bystander now sees no item of the project.
    const tree = await server.ctx.projects.getTree({ id: USERS.bystander, role: 'member' }, 1);
    expect(tree.sections.flatMap((s) => s.checklists.flatMap((c) => c.items))).toEqual([]);
  });

  it('is the 403 page for managers, executors, observers and company-limited members alike', async () => {
    for (const user of ['manager', 'executor', 'observer', 'partial'] as const) {
      const web = await as(user);
      expect((await web.get('/admin/companies')).status).toBe(403);
      const page = await web.get('/projects');
      const forged = await web.post('/admin/companies', { name: 'Forged', trade: '' }, page.text);
      expect(forged.status).toBe(403);
    }
    expect((await companies()).map((c) => c.name)).not.toContain('Forged');
  });
});
