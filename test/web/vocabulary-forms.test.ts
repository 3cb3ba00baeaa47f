import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { USERS, type UserKey } from '../helpers/workspace.js';
import { pdfText } from '../reports/pdf-text.js';
import { decode, signedInClients } from './web-client.js';

/**
 * The project's vocabulary in the web (docs/design.md §21), role by role: categories and fields on the structure
 * page (managers and admins; executors and observers get the 403 page), the item forms' "Category" and field
 * controls, the project page's filters and columns; bad input is 422 beside the field with nothing saved; a
 * change shows at once in the cached items/get and tree.
 */
let server: TestServer;
const as = signedInClients(() => server.url);

async function submit(user: UserKey, pagePath: string, action: string, fields: Record<string, string | string[]>) {
  const web = await as(user);
  const page = await web.get(pagePath);
  return web.post(action, fields, page.text);
}

const card = async (id: number) => (await server.call(`${V1}/items/get.php?id=${id}`, { token: server.tokens.manager })).body.data.item;
const treeItem = async (id: number) =>
  (await server.call(`${V1}/projects/tree.php?id=1`, { token: server.tokens.manager })).body.data.sections
    .flatMap((s: any) => s.checklists)
    .flatMap((c: any) => c.items)
    .find((i: any) => i.id === id);
const vocabulary = () => server.ctx.vocabulary.definitions(1);

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('categories and fields on the structure page', () => {
  it('are added by managers and admins; executors, observers and outsiders are refused, nothing saved', async () => {
    const page = (await (await as('manager')).get('/projects/1/structure')).text;
    for (const label of ['Category name', 'Field name', 'Field kind', 'Options', 'Required']) {
      expect(page, label).toMatch(new RegExp(`<label[^>]* for="[a-z-]+"[^>]*>(<input[^>]+> )?${label}</label>`));
    }
    expect(page).toContain('>Add category</button>');
    expect(page).toContain('>Add field</button>');
    for (const user of ['executor', 'observer', 'partial'] as const) {
      const web = await as(user);
      const csrf = await web.csrf('/profile');
      expect((await web.post('/projects/1/categories', { name: `By ${user}`, _csrf: csrf })).status, user).toBe(403);
      expect((await web.post('/projects/1/fields', { name: `By ${user}`, kind: 'text', _csrf: csrf })).status, user).toBe(403);
    }
    const outsider = await as('outsider');
    expect((await outsider.post('/projects/1/categories', { name: 'Nope', _csrf: await outsider.csrf('/profile') })).status).toBe(404);
    expect((await vocabulary()).categories).toEqual([]);

    const added = await submit('manager', '/projects/1/structure', '/projects/1/categories', { name: 'Electrical' });
    expect(added.status, decode(added.text)).toBe(303);
    expect((await submit('admin', '/projects/1/structure', '/projects/1/categories', { name: 'Plumbing' })).status).toBe(303);
    const field = await submit('manager', '/projects/1/structure', '/projects/1/fields', {
      name: 'Severity',
      kind: 'choice',
      options: 'low\r\nmedium\r\nhigh',
    });
    expect(field.status, decode(field.text)).toBe(303);
    expect((await submit('manager', '/projects/1/structure', '/projects/1/fields', { name: 'Cost estimate', kind: 'number' })).status).toBe(
      303,
    );
    const defined = await vocabulary();
    expect(defined.categories.map((c) => c.name)).toEqual(['Electrical', 'Plumbing']);
    expect(defined.fields.map((f) => [f.name, f.kind, f.options])).toEqual([
      ['Severity', 'choice', ['low', 'medium', 'high']],
      ['Cost estimate', 'number', []],
    ]);
  });

  it('refuses a name used twice, an unknown kind and a choice without options: 422 beside the field', async () => {
    const cases: [string, Record<string, string>, RegExp][] = [
      ['/projects/1/categories', { name: 'electrical' }, /id="new-category-name-error"[^>]*>[^<]*already used/],
      ['/projects/1/fields', { name: 'Severity', kind: 'text' }, /id="new-field-name-error"[^>]*>[^<]*already used/],
      ['/projects/1/fields', { name: 'Colour', kind: 'colour' }, /id="new-field-kind-error"/],
      ['/projects/1/fields', { name: 'Colour', kind: 'choice', options: '  ' }, /id="new-field-options-error"/],
    ];
    for (const [action, fields, message] of cases) {
      const response = await submit('manager', '/projects/1/structure', action, fields);
      expect(response.status, JSON.stringify(fields)).toBe(422);
      expect(response.text).toMatch(message);
    }
    expect((await vocabulary()).fields).toHaveLength(2);
  });
});

describe('the item forms and the project page', () => {
  it('set a category and values on an item (Edit item), shown at once in the cached items/get and tree', async () => {
    const { categories, fields } = await vocabulary();
    const [severity, cost] = fields;
    // Both answers are cached before the change.
    expect((await card(1000)).category).toBeNull();
    expect((await card(1000)).fields).toEqual({});
    expect((await treeItem(1000)).fields).toEqual({});
    const page = (await (await as('manager')).get('/items/1000')).text;
    expect(page).toMatch(/<label for="edit-category">Category<\/label>/);
    expect(page).toMatch(/<label for="edit-field_\d+">Severity \(optional\)<\/label>/);
    const saved = await submit('manager', '/items/1000', '/items/1000/edit', {
      vocabulary_sent: '1',
      category: String(categories[0]!.id),
      [`field_${severity!.id}`]: 'high',
      [`field_${cost!.id}`]: '1250',
    });
    expect(saved.status, decode(saved.text)).toBe(303);
    expect(await card(1000)).toMatchObject({ category: 'Electrical', fields: { Severity: 'high', 'Cost estimate': '1250' } });
    expect(await treeItem(1000)).toMatchObject({ category: 'Electrical', fields: { Severity: 'high', 'Cost estimate': '1250' } });
    // A rename is seen at once too, the values kept.
    expect(
      (await submit('manager', '/projects/1/structure', `/categories/${categories[0]!.id}/rename`, { name: 'Electrics' })).status,
    ).toBe(303);
    expect((await card(1000)).category).toBe('Electrics');
    expect((await treeItem(1000)).category).toBe('Electrics');
    const landed = (await (await as('observer')).get('/items/1000')).text;
    expect(landed).toContain('data-testid="item-category">Electrics<');
    expect(landed).not.toContain('action="/items/1000/edit"');
    // The timeline says it, by name.
    expect(decode(landed)).toContain('set the category: — → Electrical; set Severity: — → high; set Cost estimate: — → 1250');
    const feed = await server.call(`${V1}/events/list.php?item_id=1000&types=item.updated`, { token: server.tokens.manager });
    expect(feed.body.data.events.at(-1).data.changes).toMatchObject({
      category: { from: null, to: 'Electrical' },
      fields: { Severity: { from: null, to: 'high' } },
    });
  });

  it('refuses a value of the wrong kind beside its field, nothing saved; executors cannot post it', async () => {
    const { fields } = await vocabulary();
    const cost = fields[1]!;
    const before = await card(1000);
    const refused = await submit('manager', '/items/1000', '/items/1000/edit', {
      vocabulary_sent: '1',
      text: 'Changed text',
      [`field_${cost.id}`]: 'twelve hundred',
    });
    expect(refused.status).toBe(422);
    expect(refused.text).toMatch(new RegExp(`id="edit-field_${cost.id}-error"[^>]*>[^<]*must be a number`));
    expect(refused.text).toContain('value="twelve hundred"');
    expect(await card(1000)).toMatchObject({ text: before.text, fields: before.fields });
    const executor = await as('executor');
    const forged = await executor.post(
      '/items/1000/edit',
      { vocabulary_sent: '1', [`field_${cost.id}`]: '1' },
      (await executor.get('/items/1000')).text,
    );
    expect(forged.status).toBe(403);
  });

  it('filters the project page by category and by a choice field, with a column per field', async () => {
    const web = await as('observer');
    const all = (await web.get('/projects/1')).text;
    expect(all).toMatch(/<label for="filter-category">Category<\/label>/);
    expect(all).toContain('<th scope="col">Severity</th>');
    const rowsOf = (text: string) => [...text.matchAll(/data-testid="item-row" data-item-id="(\d+)"/g)].map((m) => Number(m[1]));
    expect(rowsOf((await web.get('/projects/1?category=Electrics')).text)).toEqual([1000]);
    expect(rowsOf((await web.get('/projects/1?field.Severity=high')).text)).toEqual([1000]);
    expect(rowsOf((await web.get('/projects/1?field.Severity=low')).text)).toEqual([]);
    expect(rowsOf((await web.get('/projects/1?category=Plumbing')).text)).toEqual([]);
    // The report of that filter: the CSV appends `category` and a column per field.
    const csv = await web.get('/projects/1/report.csv?field.Severity=high');
    expect(csv.status).toBe(200);
    const [header, first, ...rest] = csv.text
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(header!.split(',').slice(-3)).toEqual(['category', 'Severity', 'Cost estimate']);
    expect(first!.startsWith('1000,')).toBe(true);
    expect(first!.split(',').slice(-3)).toEqual(['Electrics', 'high', '1250']);
    expect(rest).toEqual([]);
    // The PDF of that filter prints each item's category and values; in the reader's language around them.
    const pdf = async () => {
      const cookie = [...web.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      const res = await fetch(`${server.url}/projects/1/report.pdf?field.Severity=high`, { headers: { cookie } });
      expect(res.status).toBe(200);
      return (await pdfText(new Uint8Array(await res.arrayBuffer()))).replace(/\s+/g, ' ');
    };
    expect(await pdf()).toContain('Category: Electrics · Severity: high · Cost estimate: 1250');
    await server.ctx.db.kysely.updateTable('users').set({ language: 'ru' }).where('id', '=', USERS.observer).execute();
    expect(await pdf()).toContain('Категория: Electrics · Severity: high · Cost estimate: 1250');
    await server.ctx.db.kysely.updateTable('users').set({ language: null }).where('id', '=', USERS.observer).execute();
  });

  it('sets the category of selected items in bulk (managers; one write and event per item); executors refused', async () => {
    const plumbing = (await vocabulary()).categories.find((c) => c.name === 'Plumbing')!;
    expect((await (await as('manager')).get('/projects/1')).text).toMatch(/<label for="bulk-category">New category<\/label>/);
    const done = await submit('manager', '/projects/1', '/projects/1/bulk', { items: ['1001'], category: String(plumbing.id) });
    expect(done.status, decode(done.text)).toBe(303);
    expect((await card(1001)).category).toBe('Plumbing');
    const feed = await server.call(`${V1}/events/list.php?item_id=1001&types=item.updated`, { token: server.tokens.manager });
    expect(feed.body.data.events.at(-1).data.changes).toEqual({ category: { from: null, to: 'Plumbing' } });
    const executor = await as('executor');
    const forged = await executor.post('/projects/1/bulk', { items: '1000', category: 'none', _csrf: await executor.csrf('/profile') });
    expect(forged.status).toBe(403);
    expect((await card(1000)).category).toBe('Electrics');
  });

  it('requires a required field on Add item (422 beside it, nothing created)', async () => {
    expect(
      (await submit('manager', '/projects/1/structure', '/projects/1/fields', { name: 'Trade ref', kind: 'text', required: '1' })).status,
    ).toBe(303);
    const field = (await vocabulary()).fields.find((f) => f.name === 'Trade ref')!;
    const web = await as('manager');
    const page = await web.get('/projects/1/items/new');
    expect(page.text).toMatch(new RegExp(`<label for="item-field_${field.id}">Trade ref</label>`));
    const form = new FormData();
    const key = /name="_key" value="([^"]+)"/.exec(page.text)?.[1];
    if (key) form.append('_key', key);
    for (const [name, value] of Object.entries({ text: 'Without ref', checklist: '100', vocabulary_sent: '1', category: '' }))
      form.append(name, value);
    const refused = await web.postMultipart('/projects/1/items', form, page.text);
    expect(refused.status).toBe(422);
    expect(refused.text).toMatch(new RegExp(`id="item-field_${field.id}-error"[^>]*>[^<]*is required`));
    const count = await server.ctx.db.kysely.selectFrom('items').select('id').where('text', '=', 'Without ref').execute();
    expect(count).toEqual([]);
  });
});

describe('templates in the web', () => {
  it('Save as template (managers), New project from it (admins, /admin), Add checklist from template; others refused', async () => {
    const page = (await (await as('manager')).get('/projects/1/structure')).text;
    expect(page).toMatch(/<label for="save-template-name">Template name<\/label>/);
    expect(page).toContain('>Save template</button>');
    expect((await (await as('manager')).get('/projects/1')).text).toContain('>Save as template</a>');
    for (const user of ['executor', 'observer'] as const) {
      const web = await as(user);
      const csrf = await web.csrf('/profile');
      expect((await web.post('/projects/1/template', { name: `By ${user}`, _csrf: csrf })).status, user).toBe(403);
    }
    const saved = await submit('manager', '/projects/1/structure', '/projects/1/template', { name: 'Site handover' });
    expect(saved.status, decode(saved.text)).toBe(303);
    const again = await submit('manager', '/projects/1/structure', '/projects/1/template', { name: 'Site handover' });
    expect(again.status).toBe(422);
    expect(again.text).toMatch(/id="save-template-name-error"[^>]*>[^<]*exists already/);
    const [template] = await server.ctx.templates.list();
    expect(template).toMatchObject({ name: 'Site handover' });

    // /admin lists it and offers it to "New project".
    const adminHome = (await (await as('admin')).get('/admin')).text;
    expect(adminHome).toContain('id="templates-title">Templates</h2>');
    expect(adminHome).toContain('Site handover');
    const projects = (await (await as('admin')).get('/admin/projects')).text;
    expect(projects).toMatch(/<label for="new-project-template">Template<\/label>/);
    const created = await submit('admin', '/admin/projects', '/admin/projects', {
      name: 'From the template',
      template: String(template!.id),
    });
    expect(created.status, decode(created.text)).toBe(303);
    const projectId = Number(/\/admin\/projects\/(\d+)/.exec(created.location!)![1]);
    const copied = await server.ctx.projects.getTree({ id: 1, role: 'admin' } as never, projectId);
    expect(copied.sections.map((s) => s.name)).toEqual(
      (await server.ctx.projects.getTree({ id: 1, role: 'admin' } as never, 1)).sections.map((s) => s.name),
    );
    expect((await server.ctx.vocabulary.definitions(projectId)).categories.map((c) => c.name)).toEqual(['Electrics', 'Plumbing']);
    const refused = await submit('admin', '/admin/projects', '/admin/projects', { name: 'Bad template', template: '999999' });
    expect(refused.status).toBe(422);

    // Add checklist from template, into a section of the project.
    const structure = (await (await as('manager')).get('/projects/1/structure')).text;
    expect(structure).toMatch(/<label for="from-template-template">Template<\/label>/);
    const choice = /<select id="from-template-template" name="template"[^>]*><option value="([^"]+)"/.exec(structure)![1]!;
    const section = /<select id="from-template-section" name="section"[^>]*><option value="(\d+)"/.exec(structure)![1]!;
    const before = (await server.ctx.projects.getTree({ id: 1, role: 'admin' } as never, 1)).sections.flatMap((s) => s.checklists).length;
    const executor = await as('executor');
    const forged = await executor.post('/projects/1/checklists/from-template', {
      template: choice,
      section,
      _csrf: await executor.csrf('/profile'),
    });
    expect(forged.status).toBe(403);
    const added = await submit('manager', '/projects/1/structure', '/projects/1/checklists/from-template', { template: choice, section });
    expect(added.status, decode(added.text)).toBe(303);
    const after = (await server.ctx.projects.getTree({ id: 1, role: 'admin' } as never, 1)).sections.flatMap((s) => s.checklists).length;
    expect(after).toBe(before + 1);
  });
});

describe('the Escalation block of the structure page', () => {
  const ladder = () => server.ctx.db.kysely.selectFrom('project_escalations').selectAll().where('project_id', '=', 1).executeTakeFirst();

  it('is off by default; managers and admins set it; others are refused, nothing saved', async () => {
    const page = (await (await as('manager')).get('/projects/1/structure')).text;
    expect(page).toContain('id="escalation-title">Escalation</h2>');
    expect(page).toContain('data-testid="escalation-state"><strong>Off: an overdue item is reminded of once.');
    expect(page).toMatch(
      /<label class="inline" for="escalation-enabled"><input id="escalation-enabled" type="checkbox" name="enabled" value="1" > Escalate/,
    );
    expect(page).toMatch(/<label for="escalation-every">Every how many days while overdue<\/label>\n<input[^>]+value="2"/);
    expect(page).toMatch(/<label for="escalation-managers">To the managers after how many days<\/label>\n<input[^>]+value="7"/);
    for (const user of ['executor', 'observer', 'partial'] as const) {
      const web = await as(user);
      const forged = await web.post('/projects/1/escalation', {
        enabled: '1',
        every_days: '1',
        managers_after_days: '1',
        _csrf: await web.csrf('/profile'),
      });
      expect(forged.status, user).toBe(403);
    }
    const outsider = await as('outsider');
    const hidden = await outsider.post('/projects/1/escalation', {
      enabled: '1',
      every_days: '1',
      managers_after_days: '1',
      _csrf: await outsider.csrf('/profile'),
    });
    expect(hidden.status).toBe(404);
    expect(await ladder()).toBeUndefined();

    const saved = await submit('manager', '/projects/1/structure', '/projects/1/escalation', {
      enabled: '1',
      every_days: '3',
      managers_after_days: '10',
    });
    expect(saved.status, decode(saved.text)).toBe(303);
    expect(saved.location).toBe('/projects/1/structure?saved=escalation');
    expect(await ladder()).toMatchObject({ every_days: 3, managers_after_days: 10 });
    const shown = decode((await (await as('manager')).get(saved.location!)).text);
    expect(shown).toContain('The escalation was saved.');
    expect(shown).toContain('On: every 3 days while overdue, to the managers from day 10.');
    expect(
      (
        await submit('admin', '/projects/1/structure', '/projects/1/escalation', {
          enabled: '1',
          every_days: '1',
          managers_after_days: '4',
        })
      ).status,
    ).toBe(303);
    expect(await ladder()).toMatchObject({ every_days: 1, managers_after_days: 4 });
    const feed = await server.call(`${V1}/events/list.php?project_id=1&types=structure.changed`, { token: server.tokens.manager });
    expect(feed.body.data.events.at(-1).data).toMatchObject({
      change: 'escalation_changed',
      escalation: { every_days: 1, managers_after_days: 4 },
    });
  });

  it('refuses days that are no whole number in range, beside the field, nothing saved; unticked switches it off', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ every_days: '0', managers_after_days: '7' }, 'escalation-every'],
      [{ every_days: '1.5', managers_after_days: '7' }, 'escalation-every'],
      [{ every_days: 'two', managers_after_days: '7' }, 'escalation-every'],
      [{ every_days: '31', managers_after_days: '7' }, 'escalation-every'],
      [{ every_days: '2', managers_after_days: '' }, 'escalation-managers'],
      [{ every_days: '2', managers_after_days: '400' }, 'escalation-managers'],
    ];
    for (const [fields, id] of cases) {
      const refused = await submit('manager', '/projects/1/structure', '/projects/1/escalation', { enabled: '1', ...fields });
      expect(refused.status, JSON.stringify(fields)).toBe(422);
      expect(refused.text).toMatch(new RegExp(`id="${id}-error"[^>]*>[^<]*must be a whole number of days from 1 to`));
      expect(refused.text).toContain(`value="${fields.every_days}"`);
    }
    expect(await ladder()).toMatchObject({ every_days: 1, managers_after_days: 4 });
    // The box unticked: off, whatever the days say.
    const off = await submit('manager', '/projects/1/structure', '/projects/1/escalation', { every_days: 'x', managers_after_days: '' });
    expect(off.status, decode(off.text)).toBe(303);
    expect(await ladder()).toBeUndefined();
  });

  it('names the kind in the Profile, in the user’s language', async () => {
    const web = await as('observer');
    expect((await web.get('/profile')).text).toContain(
      '<label for="pref-overdue_escalated">An item stays overdue (the escalation ladder)</label>',
    );
    await server.ctx.db.kysely.updateTable('users').set({ language: 'ru' }).where('id', '=', USERS.observer).execute();
    expect((await web.get('/profile')).text).toContain(
      '<label for="pref-overdue_escalated">Пункт остаётся просроченным (эскалация)</label>',
    );
    await server.ctx.db.kysely.updateTable('users').set({ language: null }).where('id', '=', USERS.observer).execute();
  });
});
