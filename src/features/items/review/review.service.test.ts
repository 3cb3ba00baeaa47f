import { describe, expect, it } from 'vitest';
import { refuseInserts } from '../../../../test/helpers/database.js';
import { archiveProject, auditRecord, makeAnswer, makeTeamItem, makeUser, useTestContext } from '../../../../test/helpers/factories.js';

/** The manager's side (web only): answer reviews, item and project verdicts, return to rework, on both dialects. */
const t = useTestContext();

async function setting() {
  const team = await makeTeamItem(t);
  const answer = await makeAnswer(t, team.item, team.participant);
  return { ...team, answer };
}

const db = () => t.ctx.db.kysely;
const eventsOf = async (type: string, where: { item_id?: number; project_id?: number }) => {
  let query = db().selectFrom('events').select(['item_id', 'data']).where('type', '=', type);
  if (where.item_id !== undefined) query = query.where('item_id', '=', where.item_id);
  if (where.project_id !== undefined) query = query.where('project_id', '=', where.project_id);
  return (await query.orderBy('id').execute()).map((e) => ({ item_id: e.item_id, data: JSON.parse(e.data) as unknown }));
};
const answerRow = (id: number) =>
  db().selectFrom('answers').select(['status', 'updated_at']).where('id', '=', id).executeTakeFirstOrThrow();
const historyOf = (itemId: number, kind: string) =>
  db()
    .selectFrom('item_history')
    .select(['from_status', 'to_status', 'note', 'user_id'])
    .where('item_id', '=', itemId)
    .where('kind', '=', kind)
    .orderBy('id')
    .execute();

describe('review.reviewAnswer', () => {
  it('approves or rejects an answer: review entry, event, audit record; the same decision again changes nothing', async () => {
    const { item, answer, manager } = await setting();
    const record = auditRecord(manager);
    t.clock.advance(1000);
    expect(await t.ctx.review.reviewAnswer(manager, answer.id, 'approved', { buildAudit: () => record })).toEqual({
      answer: { id: answer.id, item_id: item.id, status: 'approved' },
      changed: true,
    });
    expect(await answerRow(answer.id)).toEqual({ status: 'approved', updated_at: t.clock.now().toISOString() });
    expect((await t.ctx.items.getItemCard(t.admin, item.id)).item.updated_at).toBe(t.clock.now().toISOString());
    const reviews = await db()
      .selectFrom('answer_reviews')
      .select(['from_status', 'to_status', 'user_id'])
      .where('answer_id', '=', answer.id)
      .execute();
    expect(reviews).toEqual([{ from_status: 'pending', to_status: 'approved', user_id: manager.id }]);
    expect(await db().selectFrom('audit_log').select('id').where('request_id', '=', record.request_id).execute()).toHaveLength(1);

    expect((await t.ctx.review.reviewAnswer(manager, answer.id, 'approved')).changed).toBe(false);
    await t.ctx.review.reviewAnswer(t.admin, answer.id, 'rejected');
    expect((await eventsOf('answer.reviewed', { item_id: item.id })).map((e) => e.data)).toEqual([
      { answer_id: answer.id, from: 'pending', to: 'approved' },
      { answer_id: answer.id, from: 'approved', to: 'rejected' },
    ]);
  });

  it('refuses a review of an answer that changed since the reviewer saw it (409 answer_changed), nothing written', async () => {
    const { answer, manager } = await setting();
    const seen = await answerRow(answer.id);
    await expect(
      t.ctx.review.reviewAnswer(manager, answer.id, 'approved', { seenUpdatedAt: '2000-01-01T00:00:00.000Z' }),
    ).rejects.toMatchObject({
      status: 409,
      code: 'answer_changed',
    });
    expect(await answerRow(answer.id)).toEqual(seen);
    expect((await t.ctx.review.reviewAnswer(manager, answer.id, 'approved', { seenUpdatedAt: seen.updated_at })).changed).toBe(true);
  });

  it('is for the admin and managers: 403 for the executor who wrote it and an observer, 404 for an outsider, 422 for another decision', async () => {
    const { answer, participant, observer } = await setting();
    for (const actor of [participant, observer]) {
      await expect(t.ctx.review.reviewAnswer(actor, answer.id, 'approved')).rejects.toMatchObject({ status: 403, code: 'forbidden' });
    }
    await expect(t.ctx.review.reviewAnswer(await makeUser(t), answer.id, 'approved')).rejects.toMatchObject({ status: 404 });
    await expect(t.ctx.review.reviewAnswer(t.admin, 987_654_321, 'approved')).rejects.toMatchObject({ status: 404 });
    await expect(t.ctx.review.reviewAnswer(t.admin, answer.id, 'pending')).rejects.toMatchObject({
      status: 422,
      details: [{ field: 'decision' }],
    });
    expect((await answerRow(answer.id)).status).toBe('pending');
  });
});

describe('review.setItemVerdict', () => {
  it('sets, replaces and clears the verdict with a verdict_set history entry and an event each time', async () => {
    const { item, manager } = await setting();
    await t.ctx.itemWrites.setStatus(manager, item.id, 'done');
    expect(await t.ctx.review.setItemVerdict(manager, item.id, 'accepted')).toEqual({
      item: { id: item.id, verdict: 'accepted' },
      changed: true,
    });
    expect((await t.ctx.review.setItemVerdict(manager, item.id, 'accepted')).changed).toBe(false);
    await t.ctx.review.setItemVerdict(t.admin, item.id, 'rejected');
    expect(await t.ctx.review.setItemVerdict(manager, item.id, '')).toEqual({ item: { id: item.id, verdict: null }, changed: true });
    expect((await historyOf(item.id, 'verdict_set')).map((h) => h.note)).toEqual(['accepted', 'rejected', 'cleared']);
    expect((await eventsOf('item.verdict_set', { item_id: item.id })).map((e) => e.data)).toEqual([
      { from: null, to: 'accepted' },
      { from: 'accepted', to: 'rejected' },
      { from: 'rejected', to: null },
    ]);
    expect((await t.ctx.items.getItemCard(t.admin, item.id)).item.verdict).toBeNull();
  });

  it('accepts only a done item (422 on verdict, nothing written); rejecting is open whatever the status', async () => {
    const { item, manager } = await setting();
    for (const status of ['pending', 'in_progress', 'blocked'] as const) {
      await t.ctx.itemWrites.setStatus(manager, item.id, status);
      await expect(t.ctx.review.setItemVerdict(manager, item.id, 'accepted')).rejects.toMatchObject({
        status: 422,
        details: [{ field: 'verdict', message: expect.stringContaining('Only a done item can be accepted') }],
      });
    }
    expect(await historyOf(item.id, 'verdict_set')).toEqual([]);
    expect((await t.ctx.review.setItemVerdict(manager, item.id, 'rejected')).changed).toBe(true);
    await t.ctx.itemWrites.setStatus(manager, item.id, 'done');
    expect((await t.ctx.review.setItemVerdict(manager, item.id, 'accepted')).changed).toBe(true);
  });

  it('refuses executors and observers (403), outsiders (404), an unknown verdict (422), an archived project (403)', async () => {
    const { project, item, manager, participant, observer } = await setting();
    for (const actor of [participant, observer]) {
      await expect(t.ctx.review.setItemVerdict(actor, item.id, 'accepted')).rejects.toMatchObject({ status: 403 });
    }
    await expect(t.ctx.review.setItemVerdict(await makeUser(t), item.id, 'accepted')).rejects.toMatchObject({ status: 404 });
    await expect(t.ctx.review.setItemVerdict(manager, item.id, 'approved')).rejects.toMatchObject({
      status: 422,
      details: [{ field: 'verdict' }],
    });
    await archiveProject(t, project);
    await expect(t.ctx.review.setItemVerdict(manager, item.id, 'accepted')).rejects.toMatchObject({ status: 403 });
    expect(await historyOf(item.id, 'verdict_set')).toEqual([]);
  });
});

describe('review.returnToRework', () => {
  it('puts the item back in progress with the reason and deadline, a history entry from the status it had, and an event', async () => {
    const { item, manager } = await setting();
    await t.ctx.itemWrites.setStatus(manager, item.id, 'done');
    await t.ctx.review.setItemVerdict(manager, item.id, 'accepted');
    t.clock.set('2030-05-10T23:30:00.000Z');
    const result = await t.ctx.review.returnToRework(manager, item.id, { reason: '  Photos missing ', deadline: '2030-05-10' });
    expect(result).toEqual({
      item: { id: item.id, status: 'in_progress', rework_reason: 'Photos missing', rework_deadline: '2030-05-10', verdict: null },
    });
    expect((await t.ctx.items.getItemCard(t.admin, item.id)).item).toMatchObject({
      status: 'in_progress',
      rework_reason: 'Photos missing',
      rework_deadline: '2030-05-10',
      verdict: null,
    });
    expect(await historyOf(item.id, 'returned_to_rework')).toEqual([
      { from_status: 'done', to_status: 'in_progress', note: 'Photos missing', user_id: manager.id },
    ]);
    expect((await eventsOf('item.returned_to_rework', { item_id: item.id })).map((e) => e.data)).toEqual([
      { from: 'done', to: 'in_progress', reason: 'Photos missing', rework_deadline: '2030-05-10', verdict: { from: 'accepted', to: null } },
    ]);
  });

  it('validates the reason and the deadline (a date, today or later somewhere by the clock) before the access check', async () => {
    const { item, manager, participant } = await setting();
    t.clock.set('2030-05-10T08:00:00.000Z');
    const cases = [
      [{ reason: ' ', deadline: '2030-05-11' }, 'reason'],
      [{ reason: 'x'.repeat(2001), deadline: '2030-05-11' }, 'reason'],
      [{ reason: 'Redo', deadline: '11.05.2030' }, 'deadline'],
      [{ reason: 'Redo', deadline: '2030-02-30' }, 'deadline'],
      [{ reason: 'Redo', deadline: '2030-05-08' }, 'deadline'],
      [{ reason: 'Redo', deadline: '' }, 'deadline'],
    ] as const;
    for (const [input, field] of cases) {
      await expect(t.ctx.review.returnToRework(manager, item.id, input)).rejects.toMatchObject({ status: 422, details: [{ field }] });
    }
    await expect(t.ctx.review.returnToRework(participant, item.id, { reason: 'Redo', deadline: '2030-05-11' })).rejects.toMatchObject({
      status: 403,
    });
    await expect(t.ctx.review.returnToRework(await makeUser(t), item.id, { reason: 'Redo', deadline: '2030-05-11' })).rejects.toMatchObject(
      { status: 404 },
    );
    expect(await historyOf(item.id, 'returned_to_rework')).toEqual([]);
  });
});

describe('review.setProjectVerdict', () => {
  it('sets and clears the project verdict with its audit record and a project event; same value again changes nothing', async () => {
    const { project, manager } = await setting();
    expect(await t.ctx.review.canSetProjectVerdict(manager, project.id)).toBe(true);
    const record = auditRecord(manager, { entity_type: 'project', entity_id: project.id });
    expect(await t.ctx.review.setProjectVerdict(manager, project.id, 'accepted', () => record)).toEqual({
      project: { id: project.id, verdict: 'accepted' },
      changed: true,
    });
    expect((await t.ctx.review.setProjectVerdict(manager, project.id, 'accepted')).changed).toBe(false);
    await t.ctx.review.setProjectVerdict(t.admin, project.id, null);
    expect((await t.ctx.projects.getProject(t.admin, project.id)).project.verdict).toBeNull();
    expect(await eventsOf('project.verdict_set', { project_id: project.id })).toEqual([
      { item_id: null, data: { from: null, to: 'accepted' } },
      { item_id: null, data: { from: 'accepted', to: null } },
    ]);
    expect(await db().selectFrom('audit_log').select('id').where('request_id', '=', record.request_id).execute()).toHaveLength(1);
  });

  it('of concurrent equal verdicts, one changes the project and writes one event', async () => {
    const { project, manager } = await setting();
    const results = await Promise.all([1, 2, 3, 4].map(() => t.ctx.review.setProjectVerdict(manager, project.id, 'accepted')));
    expect(results.filter((r) => r.changed)).toHaveLength(1);
    expect(await eventsOf('project.verdict_set', { project_id: project.id })).toEqual([
      { item_id: null, data: { from: null, to: 'accepted' } },
    ]);
  });

  it('rolls the verdict back when its event cannot be written', async () => {
    const { project, manager } = await setting();
    const undo = await refuseInserts(db(), 'events');
    try {
      await expect(t.ctx.review.setProjectVerdict(manager, project.id, 'rejected')).rejects.toThrow(/refused by test/);
    } finally {
      await undo();
    }
    expect((await t.ctx.projects.getProject(t.admin, project.id)).project.verdict).toBeNull();
  });

  it('refuses executors and observers (403), outsiders and unknown projects (404), archived projects (403)', async () => {
    const { project, participant, observer } = await setting();
    for (const actor of [participant, observer]) {
      expect(await t.ctx.review.canSetProjectVerdict(actor, project.id)).toBe(false);
      await expect(t.ctx.review.setProjectVerdict(actor, project.id, 'accepted')).rejects.toMatchObject({ status: 403 });
    }
    await expect(t.ctx.review.setProjectVerdict(await makeUser(t), project.id, 'accepted')).rejects.toMatchObject({ status: 404 });
    await expect(t.ctx.review.setProjectVerdict(t.admin, 987_654_321, 'accepted')).rejects.toMatchObject({ status: 404 });
    await expect(t.ctx.review.setProjectVerdict(t.admin, project.id, 'maybe')).rejects.toMatchObject({ status: 422 });
    await archiveProject(t, project);
    expect(await t.ctx.review.canSetProjectVerdict(t.admin, project.id)).toBe(false);
    await expect(t.ctx.review.setProjectVerdict(t.admin, project.id, 'accepted')).rejects.toMatchObject({
      status: 403,
      message: 'The project is archived: it is read-only',
    });
  });
});
