import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { refuseInserts } from '../../../test/helpers/database.js';
import {
  archiveProject,
  auditRecord,
  makeChecklist,
  makeMember,
  makeProject,
  makeSection,
  makeTeamItem,
  makeUser,
  useTestContext,
} from '../../../test/helpers/factories.js';
import { solid } from '../../../test/helpers/images.js';

/**
 * Structure through the one write path (docs/design.md §14): every change takes its lock, writes its history,
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
const itemsIn = (checklistId: number) => db().selectFrom('items').select(['id', 'text']).where('checklist_id', '=', checklistId).execute();

/** Where the photos wait, as the upload reader's temp files do; removed after the tests. */
const photos = mkdtempSync(join(tmpdir(), 'punchlist-item-edits-'));
afterAll(() => rmSync(photos, { recursive: true, force: true }));

async function photo(name: string) {
  const path = join(mkdtempSync(join(photos, 'photo-')), name);
  const bytes = await solid(64, 48, 'png');
  writeFileSync(path, bytes);
  return { originalName: name, path, size: bytes.length, oversized: false };
}

async function team() {
  const setting = await makeTeamItem(t);
  const checklist = { id: setting.item.checklistId, sectionId: setting.item.sectionId, projectId: setting.project.id };
  return { ...setting, checklist };
}

describe('itemEdits.createItem', () => {
  it('raises an item with its planning, participants and photos: created history, audit record, item.created event', async () => {
    const { manager, participant, bystander, checklist, project } = await team();
    const record = auditRecord(manager, { path: `/projects/${project.id}/items` });
    const files = [await photo('crack.png')];
    const id = await t.ctx.itemEdits.createItem(
      manager,
      checklist.id,
      {
        text: '  Crack in the wall  ',
        description: 'Room 12',
        participantIds: [bystander.id, participant.id, participant.id],
        priority: 'high',
        deadline: '2099-01-31',
        requires_answer: true,
        prepareImages: () => t.ctx.attachments.prepare(files),
      },
      () => record,
    );
    const { item } = await t.ctx.items.getItemCard(manager, id);
    expect(item).toMatchObject({
      text: 'Crack in the wall',
      description: 'Room 12',
      status: 'pending',
      priority: 'high',
      deadline: '2099-01-31',
      requires_answer: true,
      checklist_id: checklist.id,
    });
    expect(item.participants.map((p) => p.id)).toEqual([participant.id, bystander.id].sort((a, b) => a - b));
    expect(item.attachments).toHaveLength(1);
    expect(item.status_history).toMatchObject([{ kind: 'created', from: null, to: 'pending', user: { id: manager.id } }]);
    expect(await auditOf(record.request_id)).toEqual([{ user_id: manager.id, path: record.path }]);
    const [event, ...more] = await eventsOf({ item_id: id });
    expect(more).toEqual([]);
    expect(event).toMatchObject({
      type: 'item.created',
      actor_id: manager.id,
      project_id: project.id,
      section_id: checklist.sectionId,
      checklist_id: checklist.id,
      item_id: id,
    });
    expect(event!.data.item).toMatchObject({
      id,
      text: 'Crack in the wall',
      participants: item.participants,
      attachments: item.attachments,
    });
  });

  it('changes nothing when a part fails: an unknown participant, a refused event, an empty text, the wrong role', async () => {
    const { manager, participant, bystander, observer, checklist } = await team();
    const outsider = await makeUser(t);
    const before = await itemsIn(checklist.id);
    const blobsBefore = (await db().selectFrom('attachments').select('id').execute()).length;
    const attempt = (actor: typeof manager, input: Record<string, unknown>) =>
      t.ctx.itemEdits.createItem(actor, checklist.id, { text: 'Loose tile', ...input });
    await expect(attempt(manager, { participantIds: [participant.id, outsider.id] })).rejects.toMatchObject({
      status: 422,
      details: [{ field: 'participants' }],
    });
    await expect(attempt(manager, { text: '   ' })).rejects.toMatchObject({ status: 422, details: [{ field: 'text' }] });
    await expect(attempt(manager, { priority: 'urgent' })).rejects.toMatchObject({ status: 422 });
    await expect(attempt(manager, { deadline: '2099-02-30' })).rejects.toMatchObject({ status: 422 });
    for (const actor of [participant, bystander, observer]) await expect(attempt(actor, {})).rejects.toMatchObject({ status: 403 });
    await expect(attempt(outsider, {})).rejects.toMatchObject({ status: 404 });
    const undo = await refuseInserts(db(), 'events');
    try {
      const files = [await photo('tile.png')];
      await expect(attempt(manager, { prepareImages: () => t.ctx.attachments.prepare(files) })).rejects.toThrow();
    } finally {
      await undo();
    }
    expect(await itemsIn(checklist.id)).toEqual(before);
    expect((await db().selectFrom('attachments').select('id').execute()).length).toBe(blobsBefore);
  });

  it('refuses a checklist the manager does not see, and any item of an archived project', async () => {
    const project = await makeProject(t);
    const [seen, unseen] = [await makeChecklist(t, await makeSection(t, project)), await makeChecklist(t, await makeSection(t, project))];
    const limited = await makeMember(t, project, 'manager', { checklists: [seen] });
    expect(await t.ctx.itemEdits.createItem(limited, seen.id, { text: 'In my checklist' })).toBeGreaterThan(0);
    await expect(t.ctx.itemEdits.createItem(limited, unseen.id, { text: 'Elsewhere' })).rejects.toMatchObject({ status: 404 });
    await archiveProject(t, project);
    await expect(t.ctx.itemEdits.createItem(t.admin, seen.id, { text: 'Late' })).rejects.toMatchObject({ status: 403 });
  });
});

describe('itemEdits.updateItem', () => {
  it('edits text, description, participants and moves within the project: one item.updated event with each change', async () => {
    const { manager, participant, bystander, item, checklist, project } = await team();
    const other = await makeChecklist(t, await makeSection(t, project));
    const record = auditRecord(manager);
    const result = await t.ctx.itemEdits.updateItem(
      manager,
      item.id,
      { text: 'Fix the crack', description: 'Both sides', participantIds: [bystander.id], checklistId: other.id },
      () => record,
    );
    expect(result).toEqual({ item: { id: item.id }, changed: true });
    const { item: card } = await t.ctx.items.getItemCard(manager, item.id);
    expect(card).toMatchObject({ text: 'Fix the crack', description: 'Both sides', checklist_id: other.id, section_id: other.sectionId });
    expect(card.participants.map((p) => p.id)).toEqual([bystander.id]);
    const updated = await eventsOf({ item_id: item.id, type: 'item.updated' });
    expect(updated).toHaveLength(1);
    expect(updated[0]!.data).toEqual({
      changes: {
        text: { from: item.text, to: 'Fix the crack' },
        description: { from: '', to: 'Both sides' },
        participants: { from: [participant.id], to: [bystander.id] },
        checklist: { from: checklist.id, to: other.id },
      },
    });
    expect(await auditOf(record.request_id)).toHaveLength(1);
    // The same values again: nothing changes, no event.
    expect(await t.ctx.itemEdits.updateItem(manager, item.id, { text: 'Fix the crack', participantIds: [bystander.id] })).toEqual({
      item: { id: item.id },
      changed: false,
    });
    expect(await eventsOf({ item_id: item.id, type: 'item.updated' })).toHaveLength(1);
  });

  it('refuses what is not allowed, changing nothing: a non-member, a checklist of another project, an executor', async () => {
    const { manager, participant, item } = await team();
    const elsewhere = await makeChecklist(t);
    const outsider = await makeUser(t);
    await expect(t.ctx.itemEdits.updateItem(manager, item.id, { participantIds: [outsider.id] })).rejects.toMatchObject({ status: 422 });
    await expect(t.ctx.itemEdits.updateItem(manager, item.id, { checklistId: elsewhere.id })).rejects.toMatchObject({
      status: 422,
      details: [{ field: 'checklist' }],
    });
    await expect(t.ctx.itemEdits.updateItem(participant, item.id, { text: 'Mine now' })).rejects.toMatchObject({ status: 403 });
    await expect(t.ctx.itemEdits.updateItem(manager, item.id, {})).rejects.toMatchObject({ status: 422 });
    expect((await t.ctx.items.getItemCard(manager, item.id)).item).toMatchObject({ text: item.text, checklist_id: item.checklistId });
    expect(await eventsOf({ item_id: item.id, type: 'item.updated' })).toEqual([]);
  });

  it('serializes concurrent edits of one item on its lock: both apply, each with its event', async () => {
    const { manager, bystander, item } = await team();
    await Promise.all([
      t.ctx.itemEdits.updateItem(manager, item.id, { text: 'First edit' }),
      t.ctx.itemEdits.updateItem(t.admin, item.id, { participantIds: [bystander.id] }),
      t.ctx.itemWrites.setStatus(manager, item.id, 'in_progress'),
    ]);
    const { item: card } = await t.ctx.items.getItemCard(manager, item.id);
    expect(card.text).toBe('First edit');
    expect(card.participants.map((p) => p.id)).toEqual([bystander.id]);
    expect((await eventsOf({ item_id: item.id })).map((e) => e.type).sort()).toEqual([
      'item.created',
      'item.status_changed',
      'item.updated',
      'item.updated',
    ]);
  });
});
