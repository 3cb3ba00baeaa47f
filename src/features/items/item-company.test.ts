import { describe, expect, it } from 'vitest';
import {
  auditRecord,
  makeAnswer,
  makeChecklist,
  makeItem,
  makeMember,
  makeProject,
  makeSection,
  type TestContext,
  useTestContext,
} from '../../../test/helpers/factories.js';

/**
 * An item's responsible company and whose move it is (docs/design.md §20), on both dialects: the change goes through
 * the item's one write path (lock, policy, history, audit, event) and shows at once in the card and the tree.
 */
const t = useTestContext();
const db = () => t.ctx.db.kysely;

async function team(t: TestContext) {
  const project = await makeProject(t);
  const checklist = await makeChecklist(t, await makeSection(t, project));
  const manager = await makeMember(t, project, 'manager');
  const executor = await makeMember(t, project, 'executor');
  const observer = await makeMember(t, project, 'observer');
  const sparks = await t.ctx.companies.createCompany(t.admin, { name: `Sparks ${project.id}`, trade: 'Electrical' });
  const dry = await t.ctx.companies.createCompany(t.admin, { name: `Drywall ${project.id}`, trade: 'Drywall' });
  return { project, checklist, manager, executor, observer, sparks, dry };
}

const eventsOf = (itemId: number) =>
  db().selectFrom('events').select(['type', 'data', 'actor_id']).where('item_id', '=', itemId).orderBy('id').execute();

describe('responsible company', () => {
  it('is set and changed by a manager through the write path: history, audit record, item.updated with responsible_company', async () => {
    const { checklist, manager, executor, sparks, dry } = await team(t);
    const item = await makeItem(t, { checklist, participants: [executor] });
    expect((await t.ctx.items.getItemCard(manager, item.id)).item).toMatchObject({ responsible_company: null, ball_in_court: 'company' });

    const record = auditRecord(manager, { entity_type: 'item', entity_id: item.id });
    const set = await t.ctx.itemWrites.setCompany(manager, item.id, sparks.id, () => record);
    expect(set).toMatchObject({ changed: true, item: { responsible_company: { id: sparks.id, name: sparks.name } } });
    await t.ctx.itemWrites.setCompany(manager, item.id, dry.id);
    expect((await t.ctx.itemWrites.setCompany(manager, item.id, dry.id)).changed).toBe(false);
    await t.ctx.itemWrites.setCompany(manager, item.id, null);

    const card = (await t.ctx.items.getItemCard(manager, item.id)).item;
    expect(card.responsible_company).toBeNull();
    expect(card.status_history.filter((h) => h.kind === 'company_changed').map((h) => h.note)).toEqual([sparks.name, dry.name, null]);
    const updates = (await eventsOf(item.id)).filter((e) => e.type === 'item.updated').map((e) => JSON.parse(e.data));
    expect(updates).toEqual([
      { changes: { responsible_company: { from: null, to: { id: sparks.id, name: sparks.name } } } },
      { changes: { responsible_company: { from: { id: sparks.id, name: sparks.name }, to: { id: dry.id, name: dry.name } } } },
      { changes: { responsible_company: { from: { id: dry.id, name: dry.name }, to: null } } },
    ]);
    const audit = await db().selectFrom('audit_log').select('request_id').where('request_id', '=', record.request_id).execute();
    expect(audit).toHaveLength(1);
  });

  it('refuses executors and observers (403), an unknown or retired company (422), changing nothing', async () => {
    const { checklist, manager, executor, observer, sparks, dry } = await team(t);
    const item = await makeItem(t, { checklist, participants: [executor] });
    await t.ctx.itemWrites.setCompany(manager, item.id, sparks.id);
    const before = await eventsOf(item.id);
    for (const who of [executor, observer]) {
      await expect(t.ctx.itemWrites.setCompany(who, item.id, dry.id)).rejects.toMatchObject({ status: 403 });
    }
    await expect(t.ctx.itemWrites.setCompany(manager, item.id, 999_999)).rejects.toMatchObject({
      status: 422,
      details: [{ field: 'company' }],
    });
    await t.ctx.companies.setRetired(t.admin, dry.id, true);
    await expect(t.ctx.itemWrites.setCompany(manager, item.id, dry.id)).rejects.toMatchObject({ status: 422 });
    await expect(t.ctx.itemEdits.updateItem(manager, item.id, { text: 'Changed too', companyId: dry.id })).rejects.toMatchObject({
      status: 422,
    });
    // A retired company stays on what it holds.
    await t.ctx.companies.setRetired(t.admin, sparks.id, true);
    const card = (await t.ctx.items.getItemCard(manager, item.id)).item;
    expect(card).toMatchObject({ text: item.text, responsible_company: { id: sparks.id } });
    expect(await eventsOf(item.id)).toEqual(before);
  });

  it('is part of "Add item" and "Edit item", one event each', async () => {
    const { checklist, manager, sparks, dry } = await team(t);
    const id = await t.ctx.itemEdits.createItem(manager, checklist.id, { text: 'Socket loose', companyId: sparks.id });
    expect((await t.ctx.items.getItemCard(manager, id)).item.responsible_company).toEqual({ id: sparks.id, name: sparks.name });
    await t.ctx.itemEdits.updateItem(manager, id, { text: 'Socket loose in 2.14', companyId: dry.id });
    const updated = (await eventsOf(id)).filter((e) => e.type === 'item.updated').map((e) => JSON.parse(e.data).changes);
    expect(updated).toEqual([
      {
        text: { from: 'Socket loose', to: 'Socket loose in 2.14' },
        responsible_company: { from: { id: sparks.id, name: sparks.name }, to: { id: dry.id, name: dry.name } },
      },
    ]);
    await expect(t.ctx.itemEdits.createItem(manager, checklist.id, { text: 'Nope', companyId: 0 })).rejects.toMatchObject({ status: 422 });
  });
});

describe('bulk changes of the company', () => {
  it('gives each selected item the company in its own write, refuses a retired one for the whole form and executors per project', async () => {
    const { project, checklist, manager, executor, sparks, dry } = await team(t);
    const a = await makeItem(t, { checklist });
    const b = await makeItem(t, { checklist });
    await t.ctx.itemWrites.setCompany(manager, b.id, sparks.id);
    const outcome = await t.ctx.bulkChanges.apply(manager, project.id, [a.id, b.id], { company: sparks.id }, () => undefined);
    expect(outcome).toEqual({ changed: [a.id], unchanged: [b.id], refused: [] });
    expect((await t.ctx.items.getItemCard(manager, a.id)).item.responsible_company).toEqual({ id: sparks.id, name: sparks.name });
    const cleared = await t.ctx.bulkChanges.apply(manager, project.id, [a.id, b.id], { company: null }, () => undefined);
    expect(cleared.changed).toEqual([a.id, b.id]);
    await t.ctx.companies.setRetired(t.admin, dry.id, true);
    await expect(t.ctx.bulkChanges.apply(manager, project.id, [a.id], { company: dry.id }, () => undefined)).rejects.toMatchObject({
      status: 422,
    });
    await expect(t.ctx.bulkChanges.apply(executor, project.id, [a.id], { company: sparks.id }, () => undefined)).rejects.toMatchObject({
      status: 403,
    });
    expect((await t.ctx.items.getItemCard(manager, a.id)).item.responsible_company).toBeNull();
  });
});

describe('ball in court on the card', () => {
  it('follows the item: company, review (done, an answer waiting, a dispute), none after a verdict', async () => {
    const { checklist, manager, executor, sparks } = await team(t);
    const item = await makeItem(t, { checklist, participants: [executor] });
    await t.ctx.itemWrites.setCompany(manager, item.id, sparks.id);
    const ball = async () => (await t.ctx.items.getItemCard(manager, item.id)).item.ball_in_court;
    expect(await ball()).toBe('company');
    await makeAnswer(t, item, executor);
    expect(await ball()).toBe('review');
    await db().updateTable('answers').set({ status: 'approved' }).where('item_id', '=', item.id).execute();
    expect(await ball()).toBe('company');
    await t.ctx.itemWrites.setStatus(executor, item.id, 'done');
    expect(await ball()).toBe('review');
    await db().updateTable('items').set({ verdict: 'accepted' }).where('id', '=', item.id).execute();
    expect(await ball()).toBe('none');
  });
});
