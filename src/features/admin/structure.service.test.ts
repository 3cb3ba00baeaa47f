import { describe, expect, it } from 'vitest';
import {
  auditRecord,
  makeMember,
  makeProject,
  makeSection,
  makeTeamItem,
  makeUser,
  useTestContext,
} from '../../../test/helpers/factories.js';

/**
 * Sections and checklists through the one write path (docs/design.md §14; items: features/items/item-edits.service.test.ts): every change takes its lock, writes its history,
 * its audit record and its event in one transaction, or nothing at all; managers and admins only.
 */
const t = useTestContext();

const db = () => t.ctx.db.kysely;
const eventsOf = async (where: { item_id?: number; project_id?: number; type?: string }) => {
  let q = db().selectFrom('events').select(['type', 'data', 'actor_id', 'project_id', 'section_id', 'checklist_id', 'item_id']);
  if (where.item_id !== undefined) q = q.where('item_id', '=', where.item_id);
  if (where.project_id !== undefined) q = q.where('project_id', '=', where.project_id);
  if (where.type !== undefined) q = q.where('type', '=', where.type);
  return (await q.orderBy('id').execute()).map((e) => ({ ...e, data: JSON.parse(e.data) as any }));
};
const auditOf = (requestId: string) =>
  db().selectFrom('audit_log').select(['user_id', 'path']).where('request_id', '=', requestId).execute();
async function team() {
  const setting = await makeTeamItem(t);
  const checklist = { id: setting.item.checklistId, sectionId: setting.item.sectionId, projectId: setting.project.id };
  return { ...setting, checklist };
}

describe('sections and checklists', () => {
  it('adds, renames and moves under the project lock, each with structure.changed and an audit record', async () => {
    const { manager, project } = await team();
    const record = auditRecord(manager);
    const a = await t.ctx.structure.createSection(manager, project.id, 'Floor 1', () => record);
    const b = await t.ctx.structure.createSection(manager, project.id, 'Floor 2');
    const list = await t.ctx.structure.createChecklist(manager, b, 'Doors');
    await t.ctx.structure.renameSection(manager, a, 'Ground floor');
    await t.ctx.structure.renameSection(manager, a, 'Ground floor');
    await t.ctx.structure.moveSection(manager, b, 'up');
    await t.ctx.structure.renameChecklist(manager, list, 'Fire doors');
    expect(await auditOf(record.request_id)).toHaveLength(1);
    const changes = (await eventsOf({ project_id: project.id, type: 'structure.changed' })).slice(-6);
    expect(changes.map((e) => [e.data.change, e.section_id, e.checklist_id, e.item_id])).toEqual([
      ['section_added', a, null, null],
      ['section_added', b, null, null],
      ['checklist_added', b, list, null],
      ['section_renamed', a, null, null],
      ['section_moved', b, null, null],
      ['checklist_renamed', b, list, null],
    ]);
    expect(changes[3]!.data).toMatchObject({ section: { id: a, name: 'Ground floor' }, from: 'Floor 1' });
    const tree = await t.ctx.projects.getTree(manager, project.id);
    expect(tree.sections.slice(-2).map((s) => s.name)).toEqual(['Floor 2', 'Ground floor']);
  });

  it('is for admins and unlimited managers: executors, observers and limited managers get 403, outsiders 404', async () => {
    const { participant, observer, project } = await team();
    const section = await makeSection(t, project);
    const limited = await makeMember(t, project, 'manager', { sections: [section] });
    const outsider = await makeUser(t);
    for (const actor of [participant, observer, limited]) {
      await expect(t.ctx.structure.createSection(actor, project.id, 'Mine')).rejects.toMatchObject({ status: 403 });
      await expect(t.ctx.structure.renameSection(actor, section.id, 'Mine')).rejects.toMatchObject({ status: 403 });
    }
    await expect(t.ctx.structure.createSection(outsider, project.id, 'Mine')).rejects.toMatchObject({ status: 404 });
    await expect(t.ctx.structure.renameSection(outsider, section.id, 'Mine')).rejects.toMatchObject({ status: 404 });
    await expect(t.ctx.structure.createSection(t.admin, project.id, '\u0000')).rejects.toMatchObject({ status: 422 });
  });

  it('shows a limited member only the structure changes of what they see', async () => {
    const project = await makeProject(t);
    const [seen, unseen] = [await makeSection(t, project), await makeSection(t, project)];
    const limited = await makeMember(t, project, 'executor', { sections: [seen] });
    await t.ctx.structure.renameSection(t.admin, seen.id, 'Seen, renamed');
    await t.ctx.structure.renameSection(t.admin, unseen.id, 'Unseen, renamed');
    const { events } = await t.ctx.events.list(limited, {
      after: 0,
      limit: 100,
      projectId: project.id,
      itemId: null,
      types: null,
      wait: 0,
    });
    const renames = events.filter((e) => (e.data as { change?: string }).change === 'section_renamed');
    expect(renames.map((e) => (e.data as { section: { id: number } }).section.id)).toEqual([seen.id]);
  });
});
