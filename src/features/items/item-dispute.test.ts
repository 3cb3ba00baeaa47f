import { describe, expect, it } from 'vitest';
import { makeChecklist, makeItem, makeMember, makeProject, makeSection, useTestContext } from '../../../test/helpers/factories.js';

/** Disputes (docs/design.md §20) through the item's write path, on both dialects. */
const t = useTestContext();
const db = () => t.ctx.db.kysely;

async function disputed() {
  const project = await makeProject(t);
  const checklist = await makeChecklist(t, await makeSection(t, project));
  const manager = await makeMember(t, project, 'manager');
  const executor = await makeMember(t, project, 'executor');
  const bystander = await makeMember(t, project, 'executor');
  const observer = await makeMember(t, project, 'observer');
  const sparks = await t.ctx.companies.createCompany(t.admin, { name: `Sparks ${project.id}`, trade: '' });
  const dry = await t.ctx.companies.createCompany(t.admin, { name: `Drywall ${project.id}`, trade: '' });
  const item = await makeItem(t, { checklist, participants: [executor] });
  await t.ctx.itemWrites.setCompany(manager, item.id, sparks.id);
  return { manager, executor, bystander, observer, sparks, dry, item };
}

const eventsOf = async (itemId: number) =>
  (await db().selectFrom('events').select(['type', 'data']).where('item_id', '=', itemId).orderBy('id').execute()).map((e) => ({
    type: e.type,
    data: JSON.parse(e.data),
  }));

describe('disputes', () => {
  it('lets the item’s executor dispute it and a manager resolve it by reassigning, each with history and events', async () => {
    const { manager, executor, sparks, dry, item } = await disputed();
    await t.ctx.itemDisputes.dispute(executor, item.id, { reason: 'Not electrical: a drywall crack' });
    const open = (await t.ctx.items.getItemCard(manager, item.id)).item;
    expect(open.disputed).toMatchObject({ reason: 'Not electrical: a drywall crack', by: { id: executor.id } });
    expect(open.ball_in_court).toBe('review');
    // A second dispute while one is open: 422, nothing changed.
    await expect(t.ctx.itemDisputes.dispute(executor, item.id, { reason: 'Again' })).rejects.toMatchObject({ status: 422 });

    // In the managers' "To review" while open.
    const queue = await t.ctx.worklists.reviewQueue(manager, 1);
    expect(queue.rows.filter((r) => r.kind === 'dispute').map((r) => r.item_id)).toEqual([item.id]);
    expect((await t.ctx.worklists.reviewQueue(executor, 1)).toReview).toBeNull();

    await t.ctx.itemDisputes.resolve(manager, item.id, { note: 'Right, drywall it is', companyId: dry.id });
    expect((await t.ctx.worklists.reviewQueue(manager, 1)).rows.filter((r) => r.kind === 'dispute')).toEqual([]);
    const resolved = (await t.ctx.items.getItemCard(manager, item.id)).item;
    expect(resolved).toMatchObject({ disputed: null, responsible_company: { id: dry.id }, ball_in_court: 'company' });
    expect(resolved.status_history.filter((h) => h.kind.startsWith('dispute')).map((h) => [h.kind, h.note])).toEqual([
      ['disputed', 'Not electrical: a drywall crack'],
      ['dispute_resolved', 'Right, drywall it is'],
    ]);
    const events = (await eventsOf(item.id)).filter((e) => e.type !== 'item.created');
    expect(events.map((e) => e.type)).toEqual(['item.updated', 'item.disputed', 'item.updated', 'item.dispute_resolved']);
    expect(events[3]!.data).toEqual({
      reason: 'Not electrical: a drywall crack',
      note: 'Right, drywall it is',
      company: { from: { id: sparks.id, name: sparks.name }, to: { id: dry.id, name: dry.name } },
      by: executor.id,
    });
  });

  it('keeps the company when the manager says so', async () => {
    const { manager, executor, sparks, item } = await disputed();
    await t.ctx.itemDisputes.dispute(executor, item.id, { reason: 'Not ours' });
    await t.ctx.itemDisputes.resolve(manager, item.id, { note: 'It is yours', companyId: sparks.id });
    const card = (await t.ctx.items.getItemCard(manager, item.id)).item;
    expect(card).toMatchObject({ disputed: null, responsible_company: { id: sparks.id } });
    expect((await eventsOf(item.id)).at(-1)).toEqual({
      type: 'item.dispute_resolved',
      data: { reason: 'Not ours', note: 'It is yours', company: null, by: executor.id },
    });
  });

  it('refuses a dispute by someone not on the item (403) and bad input (422), a resolution by an executor (403), changing nothing', async () => {
    const { manager, executor, bystander, observer, item } = await disputed();
    const before = await eventsOf(item.id);
    for (const who of [bystander, observer, manager]) {
      await expect(t.ctx.itemDisputes.dispute(who, item.id, { reason: 'Not mine' })).rejects.toMatchObject({ status: 403 });
    }
    await expect(t.ctx.itemDisputes.dispute(executor, item.id, { reason: '  ' })).rejects.toMatchObject({ status: 422 });
    await expect(t.ctx.itemDisputes.resolve(manager, item.id, { note: 'Nothing open' })).rejects.toMatchObject({ status: 422 });
    await t.ctx.itemDisputes.dispute(executor, item.id, { reason: 'Not mine' });
    await expect(t.ctx.itemDisputes.resolve(executor, item.id, { note: 'Mine' })).rejects.toMatchObject({ status: 403 });
    await expect(t.ctx.itemDisputes.resolve(manager, item.id, { note: 'ok', companyId: 999_999 })).rejects.toMatchObject({ status: 422 });
    expect((await eventsOf(item.id)).length).toBe(before.length + 1);
    expect((await t.ctx.items.getItemCard(manager, item.id)).item.disputed).not.toBeNull();
  });
});
