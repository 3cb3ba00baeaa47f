import { describe, expect, it } from 'vitest';
import {
  makeChecklist,
  makeItem,
  makeMember,
  makeMembership,
  makeProject,
  makeSection,
  makeUser,
  useTestContext,
} from '../../../test/helpers/factories.js';
import { parseItemFilter } from '../worklists/worklists.service.js';

const t = useTestContext();

/**
 * A project counted by hand (today Wednesday 2026-03-18; weeks start on Monday, UTC):
 * A raised Mon 03-16 10:00, pending, deadline 03-10: open, overdue.
 * B raised Mon 03-16 10:00, done and accepted 12:00 the same day (0.083 days).
 * C raised Mon 03-09 10:00, done, accepted Tue 03-17 10:00 (8 days).
 * D raised 2025-11-03 (before the 12 weeks), blocked, deadline after today: open, not overdue.
 */
async function countedProject() {
  const checklist = await makeChecklist(t);
  const at = (iso: string) => t.clock.set(iso);
  at('2025-11-03T09:00:00Z');
  const d = await makeItem(t, { checklist, text: 'D', status: 'blocked', deadline: '2026-04-01' });
  at('2026-03-09T10:00:00Z');
  const c = await makeItem(t, { checklist, text: 'C', status: 'done' });
  at('2026-03-16T10:00:00Z');
  const a = await makeItem(t, { checklist, text: 'A', deadline: '2026-03-10' });
  const b = await makeItem(t, { checklist, text: 'B', status: 'done' });
  at('2026-03-16T12:00:00Z');
  await t.ctx.review.setItemVerdict(t.admin, b.id, 'accepted');
  at('2026-03-17T10:00:00Z');
  await t.ctx.review.setItemVerdict(t.admin, c.id, 'accepted');
  at('2026-03-18T08:00:00Z');
  return { checklist, items: { a, b, c, d } };
}

/** The ids the project list shows for a dashboard link's query. */
async function listed(actor: typeof t.admin, projectId: number, query: Record<string, string>) {
  const { rows } = await t.ctx.worklists.filteredItems(actor, projectId, parseItemFilter(query));
  return rows.map((r) => r.item.text).sort();
}

describe('the dashboard (docs/design.md §23)', () => {
  it('counts a project by hand, and each figure opens a list of exactly the items it counts', async () => {
    const { checklist } = await countedProject();
    const f = await t.ctx.dashboard.project(t.admin, checklist.projectId);
    expect(f.total).toBe(4);
    expect(f.byStatus).toEqual({ pending: 1, in_progress: 0, done: 2, blocked: 1 });
    expect([f.open, f.overdue, f.accepted]).toEqual([2, 1, 2]);
    expect(f.weeks).toHaveLength(12);
    expect(f.weeks[0]!.week).toBe('2025-12-29');
    expect(f.weeks.at(-1)).toEqual({ week: '2026-03-16', raised: 2, accepted: 2 });
    expect(f.weeks.at(-2)).toEqual({ week: '2026-03-09', raised: 1, accepted: 0 });
    expect(f.weeks.slice(0, -2).every((w) => w.raised === 0 && w.accepted === 0)).toBe(true);
    expect(f.medianDaysToAccept).toBeCloseTo((2 / 24 + 8) / 2, 6);

    const project = checklist.projectId;
    expect(await listed(t.admin, project, { open: '1' })).toEqual(['A', 'D']);
    expect(await listed(t.admin, project, { overdue: '1' })).toEqual(['A']);
    expect(await listed(t.admin, project, { accepted: 'all' })).toEqual(['B', 'C']);
    expect(await listed(t.admin, project, { raised: '2026-03-16' })).toEqual(['A', 'B']);
    expect(await listed(t.admin, project, { raised: '2026-03-09' })).toEqual(['C']);
    expect(await listed(t.admin, project, { accepted: '2026-03-16' })).toEqual(['B', 'C']);
    // A day that is not a Monday is no week: the filter is left out, as any malformed one.
    expect(await listed(t.admin, project, { raised: '2026-03-17' })).toEqual(['A', 'B', 'C', 'D']);
  });

  it('counts only what the reader can see: a member limited to a checklist, a project they are not in', async () => {
    const { checklist } = await countedProject();
    const section = await makeSection(t, { id: checklist.projectId, name: '' });
    const elsewhere = await makeChecklist(t, section);
    await makeItem(t, { checklist: elsewhere, text: 'E' });
    const limited = await makeMember(t, checklist, 'executor', { checklists: [elsewhere] });
    const mine = await t.ctx.dashboard.project(limited, checklist.projectId);
    expect([mine.total, mine.open, mine.accepted, mine.weeks.at(-1)!.raised]).toEqual([1, 1, 0, 1]);
    expect((await t.ctx.dashboard.project(t.admin, checklist.projectId)).total).toBe(5);
    const stranger = await makeMember(t, await makeChecklist(t), 'manager');
    await expect(t.ctx.dashboard.project(stranger, checklist.projectId)).rejects.toMatchObject({ status: 404 });
    const overview = await t.ctx.dashboard.overview(limited);
    expect(overview.projects.map((p) => p.project.id)).toEqual([checklist.projectId]);
    expect(overview.totals.total).toBe(1);
  });

  it('sums the projects across, with the median over all accepted items, and the worker counts as inline', async () => {
    const { checklist } = await countedProject();
    const other = await makeChecklist(t);
    const manager = await makeMember(t, checklist, 'manager');
    await makeMembership(t, other, manager, 'manager');
    await makeItem(t, { checklist: other, text: 'F' });
    const overview = await t.ctx.dashboard.overview(manager);
    expect(overview.projects.map((p) => p.project.id)).toEqual([checklist.projectId, other.projectId]);
    expect(overview.projects.map((p) => p.total)).toEqual([4, 1]);
    expect(overview.totals.byStatus).toEqual({ pending: 2, in_progress: 0, done: 2, blocked: 1 });
    expect(overview.totals.medianDaysToAccept).toBeCloseTo((2 / 24 + 8) / 2, 6);
    const sum = overview.projects.reduce((n, p) => n + p.total, 0);
    expect(overview.totals.total).toBe(sum);
    expect(overview.totals.weeks.at(-1)!.raised).toBe(overview.projects.reduce((n, p) => n + p.weeks.at(-1)!.raised, 0));
    expect(await t.ctx.offloadedReads.dashboard.project(manager, checklist.projectId)).toEqual(
      await t.ctx.dashboard.project(manager, checklist.projectId),
    );
  });

  it('answers again from the cache until a write or the next day, and never older than the last write', async () => {
    const { checklist, items } = await countedProject();
    const cache = t.ctx.responseCache!;
    await t.ctx.dashboard.project(t.admin, checklist.projectId);
    const hits = cache.stats.hits;
    expect((await t.ctx.dashboard.project(t.admin, checklist.projectId)).open).toBe(2);
    expect(cache.stats.hits).toBe(hits + 1);
    await t.ctx.itemWrites.setStatus(t.admin, items.a.id, 'done');
    expect((await t.ctx.dashboard.project(t.admin, checklist.projectId)).open).toBe(1);
    // The verdict is no tree column: the event it writes is what changes the version.
    await t.ctx.review.setItemVerdict(t.admin, items.a.id, 'accepted');
    expect((await t.ctx.dashboard.project(t.admin, checklist.projectId)).accepted).toBe(3);
    t.clock.set('2026-04-02T08:00:00Z');
    const later = await t.ctx.dashboard.project(t.admin, checklist.projectId);
    expect(later.overdue).toBe(1); // D's deadline (04-01) has passed
    expect(later.weeks.at(-1)!.week).toBe('2026-03-30');
  });

  /**
   * Two projects counted by hand for ball in court, company and category:
   * P: A pending, Sparks, Electrical: company's move. B done, Sparks, Electrical: review. C done and accepted,
   *    Drywall, no category: none. D blocked, no company, Electrical: company's move.
   * Q: E pending, Sparks, no category: company's move.
   */
  async function companiesAndCategories() {
    const p = await makeProject(t);
    const q = await makeProject(t);
    const inP = await makeChecklist(t, await makeSection(t, p));
    const inQ = await makeChecklist(t, await makeSection(t, q));
    const sparks = await t.ctx.companies.createCompany(t.admin, { name: `Sparks ${p.id}`, trade: 'Electrical' });
    const dry = await t.ctx.companies.createCompany(t.admin, { name: `Drywall ${p.id}`, trade: 'Drywall' });
    const electrical = await t.ctx.vocabulary.addCategory(t.admin, p.id, 'Electrical');
    const a = await makeItem(t, { checklist: inP, text: 'A' });
    const b = await makeItem(t, { checklist: inP, text: 'B', status: 'done' });
    const c = await makeItem(t, { checklist: inP, text: 'C', status: 'done' });
    const d = await makeItem(t, { checklist: inP, text: 'D', status: 'blocked' });
    const e = await makeItem(t, { checklist: inQ, text: 'E' });
    await t.ctx.review.setItemVerdict(t.admin, c.id, 'accepted');
    for (const [item, company] of [
      [a, sparks],
      [b, sparks],
      [c, dry],
      [e, sparks],
    ] as const)
      await t.ctx.itemWrites.setCompany(t.admin, item.id, company.id);
    for (const item of [a, b, d]) await t.ctx.itemEdits.updateItem(t.admin, item.id, { vocabulary: { categoryId: electrical } });
    return { p, q, inP, sparks, dry };
  }

  it('counts by ball in court, by company and by category, and each opens a list of exactly those items', async () => {
    const { p, sparks, dry } = await companiesAndCategories();
    const f = await t.ctx.dashboard.project(t.admin, p.id);
    expect(f.byBall).toEqual({ company: 2, review: 1, none: 1 });
    expect(f.byCompany).toEqual([
      { id: sparks.id, name: sparks.name, count: 2 },
      { id: dry.id, name: dry.name, count: 1 },
      { id: null, name: null, count: 1 },
    ]);
    expect(f.byCategory).toEqual([
      { name: 'Electrical', count: 3 },
      { name: null, count: 1 },
    ]);
    expect(await listed(t.admin, p.id, { ball: 'company' })).toEqual(['A', 'D']);
    expect(await listed(t.admin, p.id, { ball: 'review' })).toEqual(['B']);
    expect(await listed(t.admin, p.id, { ball: 'none' })).toEqual(['C']);
    expect(await listed(t.admin, p.id, { company: String(sparks.id) })).toEqual(['A', 'B']);
    expect(await listed(t.admin, p.id, { category: 'Electrical' })).toEqual(['A', 'B', 'D']);
  });

  it('sums ball in court, companies and categories across projects; a company-limited member counts only theirs', async () => {
    const { p, q, sparks } = await companiesAndCategories();
    const manager = await makeUser(t);
    await makeMembership(t, p, manager, 'manager');
    await makeMembership(t, q, manager, 'manager');
    const overview = await t.ctx.dashboard.overview(manager);
    expect(overview.totals.byBall).toEqual({ company: 3, review: 1, none: 1 });
    expect(overview.totals.byCompany.map((c) => [c.name, c.count])).toEqual([
      [sparks.name, 3],
      [expect.stringMatching(/^Drywall/), 1],
      [null, 1],
    ]);
    expect(overview.totals.byCategory).toEqual([
      { name: 'Electrical', count: 3 },
      { name: null, count: 2 },
    ]);

    const sub = await makeUser(t);
    await t.ctx.companies.setUserCompany(t.admin, sub.id, sparks.id);
    for (const project of [p, q])
      await t.ctx.members.setMember(t.admin, project.id, {
        userId: sub.id,
        role: 'executor',
        limited: false,
        sectionIds: [],
        checklistIds: [],
        companyItemsOnly: true,
      });
    const theirs = await t.ctx.dashboard.overview(sub);
    expect(theirs.totals.total).toBe(3);
    expect(theirs.totals.byBall).toEqual({ company: 2, review: 1, none: 0 });
    expect(theirs.totals.byCompany).toEqual([{ id: sparks.id, name: sparks.name, count: 3 }]);
    expect(theirs.totals.byCategory).toEqual([
      { name: 'Electrical', count: 2 },
      { name: null, count: 1 },
    ]);
    expect((await t.ctx.dashboard.project(sub, p.id)).byCompany).toEqual([{ id: sparks.id, name: sparks.name, count: 2 }]);
  });
});
