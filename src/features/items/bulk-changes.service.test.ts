import { describe, expect, it } from 'vitest';
import { archiveProject, auditRecord, makeItem, makeTeamItem, useTestContext } from '../../../test/helpers/factories.js';

/**
 * Bulk changes through the item write path, on both dialects: one transaction per item (its audit record and
 * events with it), all or nothing per item, refusals collected while the other items go on.
 */
const t = useTestContext();

const db = () => t.ctx.db.kysely;
const itemRow = (id: number) =>
  db().selectFrom('items').select(['status', 'priority', 'deadline']).where('id', '=', id).executeTakeFirstOrThrow();
const eventsOf = (ids: number[]) =>
  db().selectFrom('events').select(['type', 'item_id']).where('item_id', 'in', ids).orderBy('id').execute();
const auditOf = (path: string) => db().selectFrom('audit_log').select(['entity_id']).where('path', '=', path).orderBy('id').execute();

async function setting() {
  const team = await makeTeamItem(t);
  const row = await db()
    .selectFrom('items')
    .select(['checklist_id', 'section_id'])
    .where('id', '=', team.item.id)
    .executeTakeFirstOrThrow();
  const other = await makeItem(t, { checklist: { id: row.checklist_id, sectionId: row.section_id, projectId: team.project.id } });
  return { ...team, other };
}

describe('bulkChanges.apply', () => {
  it('writes each item in its own transaction with its audit record and one event per kind of change', async () => {
    const { project, item, other, manager } = await setting();
    const path = `/bulk-${item.id}`;
    const earlier = (await eventsOf([item.id, other.id])).length;
    const outcome = await t.ctx.bulkChanges.apply(
      manager,
      project.id,
      [item.id, other.id, item.id],
      { status: 'done', priority: 'high' },
      (id) => () => auditRecord(manager, { path, entity_type: 'item', entity_id: id }),
    );
    expect(outcome).toEqual({ changed: [item.id, other.id], unchanged: [], refused: [] });
    for (const id of [item.id, other.id]) expect(await itemRow(id)).toMatchObject({ status: 'done', priority: 'high' });
    expect((await eventsOf([item.id, other.id])).slice(earlier)).toEqual(
      [item.id, other.id].flatMap((id) => [
        { type: 'item.status_changed', item_id: id },
        { type: 'item.planning_changed', item_id: id },
      ]),
    );
    expect(await auditOf(path)).toEqual([{ entity_id: item.id }, { entity_id: other.id }]);
    // The same values again: nothing written, reported unchanged.
    const again = await t.ctx.bulkChanges.apply(manager, project.id, [item.id], { status: 'done', priority: 'high' }, () => undefined);
    expect(again).toEqual({ changed: [], unchanged: [item.id], refused: [] });
  });

  it('adds and removes a participant in the same write as the status, or refuses the item whole', async () => {
    const { project, item, other, manager, participant, bystander } = await setting();
    const earlier = (await eventsOf([item.id])).length;
    const change = { status: 'in_progress' as const, addParticipant: bystander.id, removeParticipant: participant.id };
    expect(await t.ctx.bulkChanges.apply(manager, project.id, [item.id], change, () => undefined)).toMatchObject({ changed: [item.id] });
    const crew = await db().selectFrom('item_participants').select('user_id').where('item_id', '=', item.id).execute();
    expect(crew.map((r) => r.user_id)).toEqual([bystander.id]);
    expect((await eventsOf([item.id])).slice(earlier).map((e) => e.type)).toEqual(['item.status_changed', 'item.updated']);
    // Not a member: refused before anything is written.
    await expect(
      t.ctx.bulkChanges.apply(manager, project.id, [other.id], { status: 'done', addParticipant: 999_999 }, () => undefined),
    ).rejects.toMatchObject({ status: 422, details: [{ field: 'add_participant' }] });
    expect(await itemRow(other.id)).toMatchObject({ status: 'pending' });
    await expect(
      t.ctx.bulkChanges.apply(participant, project.id, [item.id], { removeParticipant: bystander.id }, () => undefined),
    ).rejects.toMatchObject({
      status: 403,
    });
  });

  it("refuses an executor's items they do not take part in, whole (status and nothing else), and goes on", async () => {
    const { project, item, other, participant } = await setting();
    const before = await eventsOf([other.id]);
    const outcome = await t.ctx.bulkChanges.apply(participant, project.id, [other.id, item.id], { status: 'blocked' }, () => undefined);
    expect(outcome).toEqual({ changed: [item.id], unchanged: [], refused: [{ id: other.id, code: 'forbidden' }] });
    expect(await itemRow(other.id)).toMatchObject({ status: 'pending' });
    expect(await eventsOf([other.id])).toEqual(before);
  });

  it('refuses the whole form when the role may make the change on no item, or the project is archived', async () => {
    const { project, item, participant, observer, manager } = await setting();
    await expect(t.ctx.bulkChanges.apply(participant, project.id, [item.id], { priority: 'low' }, () => undefined)).rejects.toMatchObject({
      status: 403,
    });
    await expect(t.ctx.bulkChanges.apply(observer, project.id, [item.id], { status: 'done' }, () => undefined)).rejects.toMatchObject({
      status: 403,
    });
    await archiveProject(t, project);
    await expect(t.ctx.bulkChanges.apply(manager, project.id, [item.id], { status: 'done' }, () => undefined)).rejects.toMatchObject({
      status: 403,
    });
    expect(await itemRow(item.id)).toMatchObject({ status: 'pending' });
  });

  it('checks the form before anything: items, a change, a real date; an unseen project does not exist', async () => {
    const { project, item, manager } = await setting();
    const apply = (ids: number[], change: object) => t.ctx.bulkChanges.apply(manager, project.id, ids, change, () => undefined);
    await expect(apply([], { status: 'done' })).rejects.toMatchObject({ status: 422, details: [{ field: 'items' }] });
    await expect(apply([item.id], {})).rejects.toMatchObject({ status: 422, details: [{ field: 'change' }] });
    await expect(apply([item.id], { deadline: '2027-13-01' })).rejects.toMatchObject({ status: 422, details: [{ field: 'deadline' }] });
    await expect(
      apply(
        Array.from({ length: 201 }, (_, i) => i + 1),
        { status: 'done' },
      ),
    ).rejects.toMatchObject({ status: 422 });
    const outsider = { id: 999_999, role: 'member' as const };
    await expect(t.ctx.bulkChanges.apply(outsider, project.id, [item.id], { status: 'done' }, () => undefined)).rejects.toMatchObject({
      status: 404,
    });
    // An item of another project is not found in this one.
    const elsewhere = await setting();
    expect(await apply([elsewhere.item.id], { deadline: null })).toEqual({
      changed: [],
      unchanged: [],
      refused: [{ id: elsewhere.item.id, code: 'not_found' }],
    });
    expect(await itemRow(item.id)).toMatchObject({ status: 'pending', deadline: null });
  });
});
