import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { USERS, type UserKey } from '../helpers/workspace.js';
import { decode, signedInClients } from './web-client.js';

/**
 * Every form of the project's vocabulary (docs/design.md §21) posted by every role, over real HTTP on both dialects:
 * the project's manager and an admin get their change (303); an executor and an observer of the project get the 403
 * page, a person outside it the 404 page (the project is not shown to them), and nothing they sent is saved. "New
 * project" from a template is for admins only.
 */
let server: TestServer;
const as = signedInClients(() => server.url);
const admin = { id: USERS.admin, role: 'admin' as const, name: 'Admin' };
const ROLES = ['executor', 'observer', 'outsider', 'manager', 'admin'] as const satisfies readonly UserKey[];
let ids: { category: number; field: number; spare: number; template: number };

/** What a refused post must leave as it was: the vocabulary, ladder, templates, projects and the items' values. */
async function state() {
  const db = server.ctx.db.kysely;
  const [vocabulary, ladder, templates, projects, values, categories] = await Promise.all([
    server.ctx.vocabulary.definitions(1),
    db.selectFrom('project_escalations').selectAll().execute(),
    db.selectFrom('templates').select(['id', 'name']).orderBy('id').execute(),
    db.selectFrom('projects').select(['id', 'name']).orderBy('id').execute(),
    db.selectFrom('item_field_values').selectAll().orderBy('item_id').orderBy('field_id').execute(),
    db.selectFrom('items').select(['id', 'category_id']).where('project_id', '=', 1).orderBy('id').execute(),
  ]);
  const checklists = (await server.ctx.projects.getTree(admin, 1)).sections.flatMap((s) => s.checklists.map((c) => c.name));
  return { vocabulary, ladder, templates, projects, values, categories, checklists };
}

beforeAll(async () => {
  server = await startTestServer();
  const category = await server.ctx.vocabulary.addCategory(admin, 1, 'Base');
  const field = await server.ctx.vocabulary.addField(admin, 1, { name: 'Severity', kind: 'choice', options: 'low\nhigh' });
  const spare = await server.ctx.vocabulary.addField(admin, 1, { name: 'Spare', kind: 'text' });
  const template = await server.ctx.templates.saveProject(admin, 1, 'Base template');
  ids = { category, field, spare, template };
});
afterAll(() => server.close());

const FORMS: { name: string; action: () => string; fields: (role: UserKey) => Record<string, string>; adminOnly?: boolean }[] = [
  { name: 'Add category', action: () => '/projects/1/categories', fields: (r) => ({ name: `Category by ${r}` }) },
  { name: 'Rename category', action: () => `/categories/${ids.category}/rename`, fields: (r) => ({ name: `Base (${r})` }) },
  { name: 'Add field', action: () => '/projects/1/fields', fields: (r) => ({ name: `Field by ${r}`, kind: 'choice', options: 'a\nb' }) },
  { name: 'Rename field', action: () => `/fields/${ids.field}/rename`, fields: (r) => ({ name: `Severity (${r})` }) },
  { name: 'Retire field', action: () => `/fields/${ids.spare}/retire`, fields: (r) => ({ retired: r === 'admin' ? '0' : '1' }) },
  {
    name: 'Escalation',
    action: () => '/projects/1/escalation',
    fields: (r) => ({ enabled: '1', every_days: '2', managers_after_days: r === 'admin' ? '9' : '7' }),
  },
  { name: 'Save as template', action: () => '/projects/1/template', fields: (r) => ({ name: `Template by ${r}` }) },
  {
    name: 'Add checklist from template',
    action: () => '/projects/1/checklists/from-template',
    fields: () => ({ template: `${ids.template}:0`, section: '10' }),
  },
  {
    name: 'Edit item (category and field)',
    action: () => '/items/1000/edit',
    fields: (r) => ({ vocabulary_sent: '1', category: String(ids.category), [`field_${ids.field}`]: r === 'admin' ? 'low' : 'high' }),
  },
  { name: 'Bulk category', action: () => '/projects/1/bulk', fields: () => ({ items: '1001', category: String(ids.category) }) },
  {
    name: 'New project from template',
    action: () => '/admin/projects',
    fields: (r) => ({ name: `From the template by ${r}`, template: String(ids.template) }),
    adminOnly: true,
  },
];

/** Add item with a category and a field value: the multipart form. */
async function addItem(role: UserKey) {
  const web = await as(role);
  const form = new FormData();
  const fields = {
    _csrf: await web.csrf('/profile'),
    text: `Raised by ${role}`,
    checklist: '100',
    vocabulary_sent: '1',
    category: String(ids.category),
    [`field_${ids.field}`]: 'high',
  };
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return web.postMultipart('/projects/1/items', form);
}

describe('every vocabulary form, every role', () => {
  it('refuses executors and observers (403) and outsiders (404), nothing saved; managers and admins get 303', async () => {
    const expected = (role: UserKey, adminOnly = false): number =>
      role === 'admin' ? 303 : adminOnly ? 403 : role === 'manager' ? 303 : role === 'outsider' ? 404 : 403;
    const got: Record<string, Record<string, number>> = {};
    const want: Record<string, Record<string, number>> = {};
    for (const role of ROLES) {
      const before = role === 'manager' || role === 'admin' ? null : await state();
      const web = await as(role);
      const csrf = await web.csrf('/profile');
      for (const form of FORMS) {
        const response = await web.post(form.action(), { ...form.fields(role), _csrf: csrf });
        (got[form.name] ??= {})[role] = response.status;
        (want[form.name] ??= {})[role] = expected(role, form.adminOnly);
        if (response.status === 303) continue;
        expect(response.headers.get('content-type'), `${form.name} by ${role}`).toMatch(/^text\/html/);
      }
      const raised = await addItem(role);
      (got['Add item'] ??= {})[role] = raised.status;
      (want['Add item'] ??= {})[role] = expected(role);
      if (before) expect(await state(), role).toEqual(before);
      if (raised.status !== 303) expect(decode(raised.text), role).not.toContain(`Raised by ${role}`);
    }
    expect(got).toEqual(want);
  });

  it('saved what the manager and the admin sent', async () => {
    const { vocabulary, ladder, templates, projects, values, categories, checklists } = await state();
    // The template's checklist also brings back, by name, the template's categories and fields the project lacks.
    const categoryNames = vocabulary.categories.map((c) => c.name);
    const fieldNames = vocabulary.fields.map((f) => f.name);
    expect(categoryNames).toEqual(expect.arrayContaining(['Base (admin)', 'Category by manager', 'Category by admin']));
    expect(fieldNames).toEqual(expect.arrayContaining(['Severity (admin)', 'Spare', 'Field by manager', 'Field by admin']));
    expect(vocabulary.fields.find((f) => f.name === 'Spare')!.retired).toBe(false); // retired by the manager, back by the admin
    for (const refused of ['executor', 'observer', 'outsider']) {
      expect([...categoryNames, ...fieldNames].join()).not.toContain(refused);
    }
    expect(ladder).toMatchObject([{ project_id: 1, every_days: 2, managers_after_days: 9 }]);
    expect(templates.map((t) => t.name)).toEqual(['Base template', 'Template by manager', 'Template by admin']);
    expect(projects.map((p) => p.name)).toContain('From the template by admin');
    expect(projects.map((p) => p.name)).not.toContain('From the template by manager');
    expect(values).toContainEqual(expect.objectContaining({ item_id: 1000, field_id: ids.field, option_value: 'low' }));
    expect(categories.filter((i) => [1000, 1001].includes(i.id)).map((i) => i.category_id)).toEqual([ids.category, ids.category]);
    expect(checklists.filter((c) => c === 'Fire')).toHaveLength(3); // the original and one per permitted post
    const raised = await server.ctx.db.kysely
      .selectFrom('items')
      .select(['text', 'category_id'])
      .where('text', 'like', 'Raised by %')
      .execute();
    expect(raised.map((r) => r.text).sort()).toEqual(['Raised by admin', 'Raised by manager']);
  });
});
