import { describe, expect, it } from 'vitest';
import { refuseInserts } from '../../../test/helpers/database.js';
import { archiveProject, auditRecord, makeTeamItem, makeToken, makeUser, useTestContext } from '../../../test/helpers/factories.js';

/**
 * Status, planning and links: each write is one transaction holding the change, its history entry, its audit
 * record and its event (STYLE.md 13), refused by the policy with 404 or 403, on both dialects.
 */
const t = useTestContext();

const setting = () => makeTeamItem(t);

const db = () => t.ctx.db.kysely;
const historyOf = (itemId: number) =>
  db()
    .selectFrom('item_history')
    .select(['kind', 'from_status', 'to_status', 'user_id'])
    .where('item_id', '=', itemId)
    .orderBy('id')
    .execute();
const eventsOf = async (itemId: number) =>
  (
    await db()
      .selectFrom('events')
      // The item's own creation (the factory raised it) is not what these writes are about.
      .where('type', '!=', 'item.created')
      .select(['type', 'data', 'actor_id', 'token_id', 'project_id', 'item_id'])
      .where('item_id', '=', itemId)
      .orderBy('id')
      .execute()
  ).map((e) => ({ ...e, data: JSON.parse(e.data) as unknown }));
const auditOf = (requestId: string) =>
  db().selectFrom('audit_log').select(['request_id', 'token_id', 'user_id']).where('request_id', '=', requestId).execute();
const itemRow = (itemId: number) => db().selectFrom('items').selectAll().where('id', '=', itemId).executeTakeFirstOrThrow();

describe('itemWrites.setStatus', () => {
  it('writes the status, a history entry, the audit record and the event (with the token of the record)', async () => {
    const { item, participant, project } = await setting();
    const token = await makeToken(t, participant, ['items:status.write']);
    const record = { ...auditRecord(participant), token_id: token.id };
    t.clock.advance(1000);
    const result = await t.ctx.itemWrites.setStatus(participant, item.id, 'in_progress', () => record);
    expect(result).toEqual({ item: { id: item.id, status: 'in_progress', updated_at: t.clock.now().toISOString() }, changed: true });
    expect(await itemRow(item.id)).toMatchObject({ status: 'in_progress', updated_at: t.clock.now().toISOString() });
    expect((await historyOf(item.id)).at(-1)).toEqual({
      kind: 'status_changed',
      from_status: 'pending',
      to_status: 'in_progress',
      user_id: participant.id,
    });
    expect(await auditOf(record.request_id)).toEqual([{ request_id: record.request_id, token_id: token.id, user_id: participant.id }]);
    expect(await eventsOf(item.id)).toEqual([
      {
        type: 'item.status_changed',
        data: { from: 'pending', to: 'in_progress' },
        actor_id: participant.id,
        token_id: token.id,
        project_id: project.id,
        item_id: item.id,
      },
    ]);
  });

  it('changes nothing for the same status again: changed false, no history, no event, updated_at kept', async () => {
    const { item, manager } = await setting();
    const first = await t.ctx.itemWrites.setStatus(manager, item.id, 'blocked');
    const history = await historyOf(item.id);
    t.clock.advance(1000);
    const again = await t.ctx.itemWrites.setStatus(manager, item.id, 'blocked');
    expect(again).toEqual({ item: first.item, changed: false });
    expect(await historyOf(item.id)).toEqual(history);
    expect(await eventsOf(item.id)).toHaveLength(1);
  });

  it('allows the admin, a manager and a participating executor; 403 for a bystanding executor and an observer; 404 for an outsider', async () => {
    const { item, manager, participant, bystander, observer } = await setting();
    await t.ctx.itemWrites.setStatus(t.admin, item.id, 'in_progress');
    await t.ctx.itemWrites.setStatus(manager, item.id, 'blocked');
    await t.ctx.itemWrites.setStatus(participant, item.id, 'done');
    for (const actor of [bystander, observer]) {
      await expect(t.ctx.itemWrites.setStatus(actor, item.id, 'pending')).rejects.toMatchObject({ status: 403, code: 'forbidden' });
    }
    await expect(t.ctx.itemWrites.setStatus(await makeUser(t), item.id, 'pending')).rejects.toMatchObject({
      status: 404,
      code: 'not_found',
    });
    expect((await itemRow(item.id)).status).toBe('done');
    expect((await historyOf(item.id)).map((h) => h.to_status)).toEqual(['pending', 'in_progress', 'blocked', 'done']);
  });

  it('refuses every write on an archived project with 403, for the admin too', async () => {
    const { project, item, manager } = await setting();
    await archiveProject(t, project);
    for (const actor of [t.admin, manager]) {
      await expect(t.ctx.itemWrites.setStatus(actor, item.id, 'done')).rejects.toMatchObject({
        status: 403,
        message: 'The project is archived: its items are read-only',
      });
      await expect(t.ctx.itemWrites.setPlanning(actor, item.id, { priority: 'low' })).rejects.toMatchObject({ status: 403 });
      await expect(t.ctx.itemWrites.replaceItemLinks(actor, item.id, [])).rejects.toMatchObject({ status: 403 });
    }
    expect(await eventsOf(item.id)).toEqual([]);
  });

  it('rolls back the status and its history when the event or the audit record cannot be written', async () => {
    const { item, manager } = await setting();
    for (const table of ['events', 'audit_log', 'item_history']) {
      const record = auditRecord(manager);
      const undo = await refuseInserts(db(), table);
      try {
        await expect(t.ctx.itemWrites.setStatus(manager, item.id, 'done', () => record)).rejects.toThrow(/refused by test/);
      } finally {
        await undo();
      }
      expect((await itemRow(item.id)).status).toBe('pending');
      expect(await historyOf(item.id)).toHaveLength(1);
      expect(await auditOf(record.request_id)).toEqual([]);
      expect(await eventsOf(item.id)).toEqual([]);
    }
  });

  it('keeps the history chain unbroken under concurrent changes of one item', async () => {
    const { item, manager, participant } = await setting();
    const statuses = ['in_progress', 'blocked', 'done', 'in_progress', 'pending', 'done', 'blocked', 'in_progress'] as const;
    await Promise.all(statuses.map((status, i) => t.ctx.itemWrites.setStatus(i % 2 ? manager : participant, item.id, status)));
    const history = await historyOf(item.id);
    for (let i = 1; i < history.length; i++) expect(history[i]!.from_status).toBe(history[i - 1]!.to_status);
    expect((await itemRow(item.id)).status).toBe(history.at(-1)!.to_status);
    expect(await eventsOf(item.id)).toHaveLength(history.length - 1);
  });
});

describe('itemWrites.setPlanning', () => {
  it('applies only the fields given, moves updated_at when a value changes, and records the event from/to', async () => {
    const { item, manager } = await setting();
    t.clock.advance(1000);
    const result = await t.ctx.itemWrites.setPlanning(manager, item.id, { deadline: '2099-12-31', requires_answer: true });
    const at = t.clock.now().toISOString();
    expect(result).toEqual({ item: { id: item.id, deadline: '2099-12-31', priority: 'medium', requires_answer: true, updated_at: at } });
    t.clock.advance(1000);
    // Same values again: nothing changes, no event; "" clears the deadline.
    expect((await t.ctx.itemWrites.setPlanning(manager, item.id, { deadline: '2099-12-31', priority: 'medium' })).item.updated_at).toBe(at);
    const cleared = await t.ctx.itemWrites.setPlanning(manager, item.id, { deadline: '' });
    expect(cleared.item).toMatchObject({ deadline: null, requires_answer: true });
    expect((await eventsOf(item.id)).map((e) => e.data)).toEqual([
      {
        from: { deadline: null, priority: 'medium', requires_answer: false },
        to: { deadline: '2099-12-31', priority: 'medium', requires_answer: true },
      },
      {
        from: { deadline: '2099-12-31', priority: 'medium', requires_answer: true },
        to: { deadline: null, priority: 'medium', requires_answer: true },
      },
    ]);
    // Planning leaves the status history alone.
    expect(await historyOf(item.id)).toHaveLength(1);
  });

  it('is for the admin and managers only: 403 for executors (participants included) and observers', async () => {
    const { item, manager, participant, bystander, observer } = await setting();
    await t.ctx.itemWrites.setPlanning(t.admin, item.id, { priority: 'high' });
    await t.ctx.itemWrites.setPlanning(manager, item.id, { priority: 'low' });
    for (const actor of [participant, bystander, observer]) {
      await expect(t.ctx.itemWrites.setPlanning(actor, item.id, { priority: 'high' })).rejects.toMatchObject({ status: 403 });
    }
    expect((await itemRow(item.id)).priority).toBe('low');
  });

  it('validates before the access check: no field, or a date that does not exist → 422', async () => {
    const { item } = await setting();
    const outsider = await makeUser(t);
    await expect(t.ctx.itemWrites.setPlanning(outsider, item.id, {})).rejects.toMatchObject({ status: 422, details: [{ field: 'body' }] });
    for (const deadline of ['2099-02-30', '31.12.2099', '2099-1-1']) {
      await expect(t.ctx.itemWrites.setPlanning(t.admin, item.id, { deadline })).rejects.toMatchObject({
        status: 422,
        details: [{ field: 'deadline' }],
      });
    }
    await expect(t.ctx.itemWrites.setPlanning(outsider, item.id, { priority: 'low' })).rejects.toMatchObject({ status: 404 });
  });
});

describe('itemWrites.replaceItemLinks', () => {
  it('replaces the whole list (new rows, new ids), keeps answer links, and [] clears it', async () => {
    const { item, participant } = await setting();
    await t.ctx.answers.addAnswer(participant, item.id, {
      text: 'See',
      document_links: [{ title: 'Answer link', url: 'https://example.test/a' }],
    });
    const first = await t.ctx.itemWrites.replaceItemLinks(participant, item.id, [
      { title: 'One', url: 'https://example.test/1' },
      { kind: 'folder', title: 'Two', url: 'https://example.test/2' },
    ]);
    const second = await t.ctx.itemWrites.replaceItemLinks(participant, item.id, [{ title: 'One', url: 'https://example.test/1' }]);
    expect(second.document_links).toEqual([{ id: expect.any(Number), kind: 'document', title: 'One', url: 'https://example.test/1' }]);
    expect(first.document_links.map((l) => l.id)).not.toContain(second.document_links[0]!.id);
    let card = (await t.ctx.items.getItemCard(t.admin, item.id)).item;
    expect(card.document_links).toEqual(second.document_links);
    expect(card.answers[0]!.document_links).toMatchObject([{ title: 'Answer link' }]);

    expect(await t.ctx.itemWrites.replaceItemLinks(participant, item.id, [])).toEqual({ document_links: [] });
    card = (await t.ctx.items.getItemCard(t.admin, item.id)).item;
    expect(card.document_links).toEqual([]);
    expect(card.answers[0]!.document_links).toHaveLength(1);
    expect((await eventsOf(item.id)).filter((e) => e.type === 'item.links_replaced').map((e) => e.data)).toEqual([
      first,
      second,
      { document_links: [] },
    ]);
  });

  it('allows the admin, managers and participating executors; 403 for the others; 422 for a bad link, nothing replaced', async () => {
    const { item, manager, bystander, observer } = await setting();
    const kept = await t.ctx.itemWrites.replaceItemLinks(manager, item.id, [{ title: 'Kept', url: 'https://example.test/k' }]);
    for (const actor of [bystander, observer]) {
      await expect(t.ctx.itemWrites.replaceItemLinks(actor, item.id, [])).rejects.toMatchObject({ status: 403 });
    }
    await expect(t.ctx.itemWrites.replaceItemLinks(manager, item.id, [{ title: 'Bad', url: 'javascript:alert(1)' }])).rejects.toMatchObject(
      {
        status: 422,
        details: [{ field: 'document_links[0].url' }],
      },
    );
    expect((await t.ctx.items.getItemCard(t.admin, item.id)).item.document_links).toEqual(kept.document_links);
  });
});

describe('itemWrites.changeItem', () => {
  it('writes status and planning in one transaction with one audit record, or nothing when one is refused', async () => {
    const { item, participant, manager } = await setting();
    const before = (await eventsOf(item.id)).length;
    const refused = t.ctx.itemWrites.changeItem(participant, item.id, { status: 'done', planning: { priority: 'high' } });
    await expect(refused).rejects.toMatchObject({ status: 403 });
    expect(await itemRow(item.id)).toMatchObject({ status: 'pending', priority: 'medium' });
    expect(await eventsOf(item.id)).toHaveLength(before);

    const record = auditRecord(manager);
    const done = await t.ctx.itemWrites.changeItem(manager, item.id, { status: 'done', planning: { priority: 'high' } }, () => record);
    expect(done).toEqual({ changed: true });
    expect(await itemRow(item.id)).toMatchObject({ status: 'done', priority: 'high' });
    expect((await eventsOf(item.id)).slice(before).map((e) => e.type)).toEqual(['item.status_changed', 'item.planning_changed']);
    expect(await auditOf(record.request_id)).toHaveLength(1);
    expect(await t.ctx.itemWrites.changeItem(manager, item.id, { status: 'done' })).toEqual({ changed: false });
    await expect(t.ctx.itemWrites.changeItem(manager, item.id, {})).rejects.toMatchObject({ status: 422 });
  });
});
