import { describe, expect, it } from 'vitest';
import { makeTeamItem, useTestContext } from '../../../test/helpers/factories.js';

/**
 * Templates (docs/design.md §21) on both dialects: a project saved as a template keeps its shape and vocabulary but
 * no states or people; a new project from it, and one of its checklists added to another project, give the same
 * shape; a document with an unknown key or a broken reference is refused as a whole, the first problem named.
 */
const t = useTestContext();

const shapeOf = async (projectId: number) => {
  const tree = await t.ctx.projects.getTree(t.admin, projectId);
  return tree.sections.map((s) => ({
    name: s.name,
    checklists: s.checklists.map((c) => ({
      name: c.name,
      items: c.items.map((i) => ({ text: i.text, priority: i.priority, category: i.category, fields: i.fields, status: i.status })),
    })),
  }));
};

describe('templates', () => {
  it('save a project (no states, no people), start a new project from it, add one of its checklists', async () => {
    const { manager, participant, project, item } = await makeTeamItem(t);
    const trade = await t.ctx.vocabulary.addCategory(manager, project.id, 'Electrical');
    const severity = await t.ctx.vocabulary.addField(manager, project.id, { name: 'Severity', kind: 'choice', options: 'low\nhigh' });
    const retired = await t.ctx.vocabulary.addField(manager, project.id, { name: 'Old', kind: 'text' });
    await t.ctx.itemEdits.updateItem(manager, item.id, {
      vocabulary: {
        categoryId: trade,
        values: new Map([
          [severity, 'high'],
          [retired, 'kept'],
        ]),
      },
    });
    await t.ctx.vocabulary.retireField(manager, retired, true);
    await t.ctx.itemWrites.setStatus(t.admin, item.id, 'done');

    await expect(t.ctx.templates.saveProject(participant, project.id, 'By an executor')).rejects.toMatchObject({ status: 403 });
    const id = await t.ctx.templates.saveProject(manager, project.id, 'Apartment handover');
    await expect(t.ctx.templates.saveProject(manager, project.id, 'Apartment handover')).rejects.toMatchObject({ status: 422 });
    const body = await t.ctx.templates.exportTemplate(id);
    expect(body.categories).toEqual(['Electrical']);
    expect(body.fields).toEqual([{ name: 'Severity', kind: 'choice', options: ['low', 'high'], required: false }]);
    const saved = body.sections.flatMap((s) => s.checklists).flatMap((c) => c.items);
    expect(saved).toEqual([expect.objectContaining({ text: item.text, category: 'Electrical', fields: { Severity: 'high' } })]);
    expect(JSON.stringify(body)).not.toMatch(/participants|status|done/);
    expect((await t.ctx.templates.list()).find((x) => x.id === id)).toMatchObject({ name: 'Apartment handover', sections: 1 });

    await expect(t.ctx.templates.createProject(manager, { name: 'Not admin' }, id)).rejects.toMatchObject({ status: 403 });
    const copy = await t.ctx.templates.createProject(t.admin, { name: 'Block B' }, id);
    const original = (await shapeOf(project.id)).map((s) => ({
      ...s,
      checklists: s.checklists.map((c) => ({
        ...c,
        items: c.items.map((i) => ({ ...i, status: 'pending', fields: { Severity: 'high' } })),
      })),
    }));
    expect(await shapeOf(copy)).toEqual(original);

    // One of its checklists into another project: its categories and fields come along.
    const other = await makeTeamItem(t);
    const section = (await t.ctx.projects.getTree(t.admin, other.project.id)).sections[0]!;
    await expect(
      t.ctx.templates.addChecklist(other.participant, other.project.id, { templateId: id, checklist: 0, sectionId: section.id }),
    ).rejects.toMatchObject({ status: 403 });
    await expect(
      t.ctx.templates.addChecklist(other.manager, other.project.id, { templateId: id, checklist: 0, sectionId: 999_999 }),
    ).rejects.toMatchObject({ status: 422 });
    const added = await t.ctx.templates.addChecklist(other.manager, other.project.id, {
      templateId: id,
      checklist: 0,
      sectionId: section.id,
    });
    const inserted = (await shapeOf(other.project.id))[0]!.checklists.at(-1)!;
    expect(inserted.items).toEqual([
      { text: item.text, priority: 'medium', category: 'Electrical', fields: { Severity: 'high' }, status: 'pending' },
    ]);
    expect(added).toBeGreaterThan(0);
  });

  it('imports a documented JSON; unknown keys or broken references refuse it as a whole, the first problem named', async () => {
    const good = {
      name: 'Handover import',
      categories: ['Plumbing'],
      fields: [{ name: 'Cost', kind: 'number' }],
      sections: [
        { name: 'Kitchen', checklists: [{ name: 'Sink', items: [{ text: 'Tap drips', category: 'Plumbing', fields: { Cost: '12.5' } }] }] },
      ],
    };
    const cases: [unknown, RegExp][] = [
      [{ ...good, colour: 'red' }, /colour: is not a key/],
      [
        { ...good, sections: [{ name: 'K', checklists: [{ name: 'S', items: [{ text: 'X', category: 'Tiling' }] }] }] },
        /sections\[0\]\.checklists\[0\]\.items\[0\]\.category: "Tiling" is not one/,
      ],
      [
        { ...good, sections: [{ name: 'K', checklists: [{ name: 'S', items: [{ text: 'X', fields: { Colour: 'red' } }] }] }] },
        /items\[0\]\.fields\.Colour: is not a key/,
      ],
      [
        { ...good, sections: [{ name: 'K', checklists: [{ name: 'S', items: [{ text: 'X', fields: { Cost: 'much' } }] }] }] },
        /fields\.Cost: Cost: must be a number/,
      ],
      [{ ...good, fields: [{ name: 'Cost', kind: 'money' }] }, /fields\[0\]\.kind/],
    ];
    const before = (await t.ctx.templates.list()).length;
    for (const [input, message] of cases) {
      await expect(t.ctx.templates.importTemplate(t.admin, input)).rejects.toThrow(message);
    }
    expect(await t.ctx.templates.list()).toHaveLength(before);
    const id = await t.ctx.templates.importTemplate(t.admin, good);
    expect(await t.ctx.templates.exportTemplate(id)).toEqual({
      name: 'Handover import',
      categories: ['Plumbing'],
      fields: [{ name: 'Cost', kind: 'number', options: [], required: false }],
      sections: [
        {
          name: 'Kitchen',
          checklists: [
            {
              name: 'Sink',
              items: [
                {
                  text: 'Tap drips',
                  description: '',
                  priority: 'medium',
                  requires_answer: false,
                  category: 'Plumbing',
                  fields: { Cost: '12.5' },
                },
              ],
            },
          ],
        },
      ],
    });
    await expect(t.ctx.templates.importTemplate(t.admin, good)).rejects.toMatchObject({ status: 422 });
  });
});
