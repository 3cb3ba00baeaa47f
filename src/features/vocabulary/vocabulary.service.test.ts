import { describe, expect, it } from 'vitest';
import { auditRecord, makeItem, makeTeamItem, useTestContext } from '../../../test/helpers/factories.js';

/**
 * A project's vocabulary (docs/design.md §21) on both dialects: definitions by managers only, unique names, values
 * typed in their columns through the one item write path (event `item.updated` with `category` and `fields`),
 * renames keep values, retired fields keep theirs, bad values refused with nothing saved.
 */
const t = useTestContext();
const db = () => t.ctx.db.kysely;

async function setting() {
  const team = await makeTeamItem(t);
  const { manager, project } = team;
  const trade = await t.ctx.vocabulary.addCategory(manager, project.id, 'Electrical');
  const plumbing = await t.ctx.vocabulary.addCategory(manager, project.id, 'Plumbing');
  const severity = await t.ctx.vocabulary.addField(manager, project.id, {
    name: 'Severity',
    kind: 'choice',
    options: 'low\nhigh\n\nhigh',
    required: true,
  });
  const cost = await t.ctx.vocabulary.addField(manager, project.id, { name: 'Cost estimate', kind: 'number' });
  const due = await t.ctx.vocabulary.addField(manager, project.id, { name: 'Inspected on', kind: 'date' });
  return { ...team, trade, plumbing, severity, cost, due };
}

const values = (entries: [number, string][]) => new Map(entries);
const card = async (itemId: number) => (await t.ctx.items.getItemCard(t.admin, itemId)).item;

describe('vocabulary definitions', () => {
  it('are added by managers (structure.changed, audit record), refused to executors and observers, names unique', async () => {
    const { manager, participant, observer, project, severity } = await setting();
    const vocabulary = await t.ctx.vocabulary.vocabularyOf(observer, project.id);
    expect(vocabulary.categories.map((c) => c.name)).toEqual(['Electrical', 'Plumbing']);
    expect(vocabulary.fields.find((f) => f.id === severity)).toMatchObject({ kind: 'choice', options: ['low', 'high'], required: true });
    for (const who of [participant, observer]) {
      await expect(t.ctx.vocabulary.addCategory(who, project.id, 'Carpentry')).rejects.toMatchObject({ status: 403 });
      await expect(t.ctx.vocabulary.addField(who, project.id, { name: 'X', kind: 'text' })).rejects.toMatchObject({ status: 403 });
    }
    await expect(t.ctx.vocabulary.addField(manager, project.id, { name: 'severity', kind: 'text' })).rejects.toMatchObject({
      status: 422,
      details: [{ field: 'name' }],
    });
    await expect(t.ctx.vocabulary.addCategory(manager, project.id, 'Electrical')).rejects.toMatchObject({ status: 422 });
    await expect(t.ctx.vocabulary.addField(manager, project.id, { name: 'Kind', kind: 'colour' })).rejects.toMatchObject({
      status: 422,
      details: [{ field: 'kind' }],
    });
    await expect(t.ctx.vocabulary.addField(manager, project.id, { name: 'Kind', kind: 'choice', options: '' })).rejects.toMatchObject({
      status: 422,
      details: [{ field: 'options' }],
    });
    const record = auditRecord(manager, { path: `/projects/${project.id}/categories` });
    await t.ctx.vocabulary.addCategory(manager, project.id, 'Carpentry', () => record);
    expect(await db().selectFrom('audit_log').select('path').where('request_id', '=', record.request_id).execute()).toHaveLength(1);
    const events = await db()
      .selectFrom('events')
      .select('data')
      .where('project_id', '=', project.id)
      .where('type', '=', 'structure.changed')
      .execute();
    const changes = events.map((e) => JSON.parse(e.data).change).filter((c: string) => /^(category|field)_/.test(c));
    expect(changes).toEqual(['category_added', 'category_added', 'field_added', 'field_added', 'field_added', 'category_added']);
  });
});

describe('item values through the write path', () => {
  it('are typed in their columns, shown in items/get and the tree, and in item.updated changes', async () => {
    const { manager, project, item, trade, severity, cost, due } = await setting();
    const update = await t.ctx.itemEdits.updateItem(manager, item.id, {
      vocabulary: {
        categoryId: trade,
        values: values([
          [severity, 'high'],
          [cost, '1250.5'],
          [due, '2026-12-01'],
        ]),
      },
    });
    expect(update.changed).toBe(true);
    const rows = await db().selectFrom('item_field_values').selectAll().where('item_id', '=', item.id).orderBy('field_id').execute();
    expect(rows).toEqual([
      expect.objectContaining({ field_id: severity, option_value: 'high', number_value: null, text_value: null }),
      expect.objectContaining({ field_id: cost, number_value: 1250.5, option_value: null }),
      expect.objectContaining({ field_id: due, date_value: '2026-12-01' }),
    ]);
    expect(await card(item.id)).toMatchObject({
      category: 'Electrical',
      fields: { Severity: 'high', 'Cost estimate': '1250.5', 'Inspected on': '2026-12-01' },
    });
    const tree = await t.ctx.projects.getTree(manager, project.id);
    const line = tree.sections
      .flatMap((s) => s.checklists)
      .flatMap((c) => c.items)
      .find((i) => i.id === item.id);
    expect(line).toMatchObject({ category: 'Electrical', fields: { Severity: 'high' } });
    const event = await db()
      .selectFrom('events')
      .select('data')
      .where('item_id', '=', item.id)
      .where('type', '=', 'item.updated')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(event.data).changes).toEqual({
      category: { from: null, to: 'Electrical' },
      fields: {
        Severity: { from: null, to: 'high' },
        'Cost estimate': { from: null, to: '1250.5' },
        'Inspected on': { from: null, to: '2026-12-01' },
      },
    });
    // The same values again change nothing.
    expect((await t.ctx.itemEdits.updateItem(manager, item.id, { vocabulary: { values: values([[severity, 'high']]) } })).changed).toBe(
      false,
    );
  });

  it('refuses a value of the wrong kind beside its field, a required field empty on create, nothing saved', async () => {
    const { manager, participant, item, severity, cost, due, plumbing } = await setting();
    for (const [field, value] of [
      [cost, 'twelve'],
      [due, '2026-02-30'],
      [severity, 'medium'],
    ] as [number, string][]) {
      await expect(
        t.ctx.itemEdits.updateItem(manager, item.id, { text: 'Changed', vocabulary: { values: values([[field, value]]) } }),
      ).rejects.toMatchObject({
        status: 422,
        details: [{ field: `field_${field}` }],
      });
    }
    expect((await card(item.id)).text).not.toBe('Changed');
    expect(await db().selectFrom('item_field_values').selectAll().where('item_id', '=', item.id).execute()).toEqual([]);
    await expect(t.ctx.itemEdits.updateItem(participant, item.id, { vocabulary: { categoryId: plumbing } })).rejects.toMatchObject({
      status: 403,
    });
    await expect(t.ctx.itemEdits.updateItem(manager, item.id, { vocabulary: { categoryId: 999_999 } })).rejects.toMatchObject({
      status: 422,
      details: [{ field: 'category' }],
    });
    const checklist = { id: item.checklistId, sectionId: item.sectionId, projectId: item.projectId, name: 'x' };
    const before = await db().selectFrom('items').select('id').where('checklist_id', '=', item.checklistId).execute();
    await expect(makeItem(t, { checklist })).rejects.toMatchObject({ status: 422, details: [{ field: `field_${severity}` }] });
    expect(await db().selectFrom('items').select('id').where('checklist_id', '=', item.checklistId).execute()).toEqual(before);
    const created = await t.ctx.itemEdits.createItem(manager, item.checklistId, {
      text: 'With severity',
      vocabulary: { categoryId: plumbing, values: values([[severity, 'low']]) },
    });
    expect(await card(created)).toMatchObject({ category: 'Plumbing', fields: { Severity: 'low' } });
    // Clearing a required field later is refused too.
    await expect(t.ctx.itemEdits.updateItem(manager, created, { vocabulary: { values: values([[severity, '']]) } })).rejects.toMatchObject({
      status: 422,
    });
  });

  it('keeps values through renames and retirement; a retired field leaves the forms and keeps its values', async () => {
    const { manager, item, trade, severity, cost, project } = await setting();
    await t.ctx.itemEdits.updateItem(manager, item.id, {
      vocabulary: {
        categoryId: trade,
        values: values([
          [severity, 'low'],
          [cost, '10'],
        ]),
      },
    });
    await t.ctx.vocabulary.renameCategory(manager, trade, 'Electrics');
    await t.ctx.vocabulary.renameField(manager, cost, 'Cost');
    expect(await card(item.id)).toMatchObject({ category: 'Electrics', fields: { Severity: 'low', Cost: '10' } });
    await expect(t.ctx.vocabulary.renameField(manager, cost, 'Severity')).rejects.toMatchObject({ status: 422 });
    await t.ctx.vocabulary.retireField(manager, cost, true);
    const fields = (await t.ctx.vocabulary.vocabularyOf(manager, project.id)).fields;
    expect(fields.find((f) => f.id === cost)?.retired).toBe(true);
    // A form's values leave a retired field alone; its value stays.
    await t.ctx.itemEdits.updateItem(manager, item.id, { vocabulary: { values: values([[severity, 'high']]) } });
    expect((await card(item.id)).fields).toEqual({ Severity: 'high', Cost: '10' });
    await expect(t.ctx.itemEdits.updateItem(manager, item.id, { vocabulary: { values: values([[cost, '11']]) } })).rejects.toMatchObject({
      status: 422,
    });
    expect(await db().selectFrom('custom_fields').select('id').where('id', '=', cost).execute()).toHaveLength(1);
  });
});
