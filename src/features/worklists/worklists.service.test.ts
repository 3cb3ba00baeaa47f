import { describe, expect, it } from 'vitest';
import { makeAnswer, makeChecklist, makeItem, makeMember, makeSection, useTestContext } from '../../../test/helpers/factories.js';
import { parseItemFilter } from './worklists.service.js';

const t = useTestContext();

describe('worklists.projectItems (the web project page)', () => {
  async function project() {
    const checklist = await makeChecklist(t);
    const items = [];
    for (let i = 0; i < 4; i++) {
      items.push(await makeItem(t, { checklist, text: `Пункт ${i}`, status: i % 2 ? 'done' : 'pending', deadline: '2020-01-01' }));
    }
    return { checklist, items };
  }

  it('gives counts for the whole tree, one page of rows, and of the tree only the items named', async () => {
    const { checklist, items } = await project();
    const page = await t.ctx.worklists.projectItems(t.admin, checklist.projectId, parseItemFilter({ status: 'done' }), 1, [items[2]!.id]);
    expect(page.counts.get(checklist.id)).toEqual({ items: 4, done: 2, matching: 2 });
    expect(page.rows.map((r) => r.item.id)).toEqual([items[1]!.id, items[3]!.id]);
    const [section] = page.sections;
    expect(section?.checklists[0]?.items.map((i) => i.text)).toEqual(['Пункт 2']);
    // A row's checklist is the page's (lighter) one, not the whole tree's.
    expect(page.rows[0]?.checklist).toBe(section?.checklists[0]);
  });

  it('answers the same from the worker thread as inline, "today" at the main thread\'s clock, for each reader', async () => {
    const { checklist, items } = await project();
    const executor = await makeMember(t, checklist, 'executor');
    t.clock.set('2019-12-31T12:00:00Z');
    for (const [who, query] of [
      [t.admin, { overdue: '1' }],
      [t.admin, { q: 'Пункт 3' }],
      [executor, {}],
    ] as const) {
      const filter = parseItemFilter(query);
      const inline = await t.ctx.worklists.projectItems(who, checklist.projectId, filter, 1, [items[0]!.id]);
      const offloaded = await t.ctx.offloadedReads.projectItems(who, checklist.projectId, filter, 1, [items[0]!.id]);
      expect(offloaded, JSON.stringify(query)).toEqual(inline);
    }
    const participant = await makeMember(t, checklist, 'executor');
    await makeItem(t, { checklist, participants: [participant], deadline: '2020-01-01' });
    const mine = await t.ctx.worklists.myItems(participant, 1);
    expect(mine.total).toBe(1);
    expect(await t.ctx.offloadedReads.myItems(participant, 1)).toEqual(mine);
    expect((await t.ctx.offloadedReads.projectItems(t.admin, checklist.projectId, parseItemFilter({ overdue: '1' }), 1, [])).total).toBe(0);
    t.clock.set('2020-01-02T12:00:00Z');
    expect((await t.ctx.offloadedReads.projectItems(t.admin, checklist.projectId, parseItemFilter({ overdue: '1' }), 1, [])).total).toBe(3);
  });
});

describe('worklists.reviewCount (the count beside "To review" on every page)', () => {
  it('counts what reviewQueue lists, for each kind of reviewer, and the worker thread lists the same', async () => {
    const section = await makeSection(t);
    const other = await makeSection(t, { id: section.projectId, name: '' });
    const [here, there] = [await makeChecklist(t, section), await makeChecklist(t, other)];
    for (const checklist of [here, there]) {
      const done = await makeItem(t, { checklist, status: 'done' });
      await makeItem(t, { checklist, status: 'done' });
      await makeAnswer(t, await makeItem(t, { checklist, requires_answer: true }));
      await makeAnswer(t, done);
    }
    const manager = await makeMember(t, section, 'manager');
    const limited = await makeMember(t, section, 'manager', { sections: [other] });
    const executor = await makeMember(t, section, 'executor');
    const expected = new Map([
      [manager, 8],
      [limited, 4],
      [executor, null],
    ]);
    for (const [who, count] of expected) {
      expect(await t.ctx.worklists.reviewCount(who)).toBe(count);
      expect(await t.ctx.offloadedReads.reviewCount(who)).toBe(count);
      const queue = await t.ctx.worklists.reviewQueue(who, 1);
      expect(queue.total).toBe(count ?? 0);
      expect(await t.ctx.offloadedReads.reviewQueue(who, 1)).toEqual(queue);
    }
    const all = await t.ctx.worklists.reviewCount(t.admin);
    expect(all).toBe((await t.ctx.worklists.reviewQueue(t.admin, 1)).total);
    expect(all).toBeGreaterThanOrEqual(8);
  });
});

describe('worklists.reviewQueue (the "To review" page)', () => {
  it('lists page by page, oldest first (then by item, its answers before its verdict), only what the reviewer may review', async () => {
    const section = await makeSection(t);
    const other = await makeSection(t, { id: section.projectId, name: '' });
    const [here, there] = [await makeChecklist(t, section), await makeChecklist(t, other)];
    const expected: { kind: 'answer' | 'verdict'; item_id: number; answer_id: number | null; since: string; checklist: number }[] = [];
    for (let k = 0; k < 160; k++) {
      // Two items a minute, the minutes out of the items' order.
      const since = new Date(Date.UTC(2030, 0, 1, 0, Math.floor(((k * 7) % 160) / 2))).toISOString();
      t.clock.set(since);
      const checklist = k % 2 ? there : here;
      const item = await makeItem(t, { checklist, status: 'done' });
      expected.push({ kind: 'verdict', item_id: item.id, answer_id: null, since, checklist: checklist.id });
      if (k % 3 === 0) {
        const answer = await makeAnswer(t, item);
        expected.push({ kind: 'answer', item_id: item.id, answer_id: answer.id, since, checklist: checklist.id });
      }
    }
    expected.sort((a, b) => (a.since < b.since ? -1 : a.since > b.since ? 1 : a.item_id - b.item_id || (a.kind === 'answer' ? -1 : 1)));
    const manager = await makeMember(t, section, 'manager');
    const limited = await makeMember(t, section, 'manager', { sections: [other] });
    for (const [who, rows] of [
      [manager, expected],
      [limited, expected.filter((r) => r.checklist === there.id)],
    ] as const) {
      const first = await t.ctx.worklists.reviewQueue(who, 1);
      expect(first.total).toBe(rows.length);
      expect(first.pages).toBe(Math.ceil(rows.length / 100));
      const listed = [...first.rows];
      for (let page = 2; page <= first.pages; page++) listed.push(...(await t.ctx.worklists.reviewQueue(who, page)).rows);
      expect(
        listed.map((r) => ({ kind: r.kind, item_id: r.item_id, answer_id: r.answer_id, since: r.since, checklist: r.checklist_id })),
      ).toEqual(rows);
      // A page past the last shows the last; the worker thread lists the same.
      const last = await t.ctx.worklists.reviewQueue(who, 99);
      expect(last.page).toBe(first.pages);
      expect(await t.ctx.offloadedReads.reviewQueue(who, 99)).toEqual(last);
    }
    expect(expected.length).toBe(214);
  });
});
