import { describe, expect, it } from 'vitest';
import {
  makeChecklist,
  makeItem,
  makeMember,
  makeProject,
  makeSection,
  makeUser,
  useTestContext,
} from '../../../test/helpers/factories.js';
import { can, type Membership } from '../../domain/policy.js';

/**
 * A member limited to their company's items (docs/design.md §20, partial access of §3), on both dialects: they see
 * exactly the items their company holds — card, tree, counts, search, events, plans' pins, My items and reports — now
 * and as the assignment changes.
 */
const t = useTestContext();
const db = () => t.ctx.db.kysely;

describe('the policy (pure)', () => {
  const target = { projectId: 1, archived: false, sectionId: 10, checklistId: 100, participantIds: [7] };
  const limited = (companyId: number | null): Membership => ({
    role: 'executor',
    sectionIds: null,
    checklistIds: null,
    companyItems: { companyId },
  });
  it('lets a company-limited member read and work on their company’s items only', () => {
    const actor = { id: 7, role: 'member' as const };
    expect(can(actor, 'read', { ...target, membership: limited(3), responsibleCompanyId: 3 })).toBe(true);
    expect(can(actor, 'item.status', { ...target, membership: limited(3), responsibleCompanyId: 3 })).toBe(true);
    for (const other of [4, null, undefined]) {
      for (const action of ['read', 'item.status', 'comment.add'] as const) {
        expect(can(actor, action, { ...target, membership: limited(3), responsibleCompanyId: other })).toBe(false);
      }
    }
    // Without a company of their own, nothing; without the limit, everything as before.
    expect(can(actor, 'read', { ...target, membership: limited(null), responsibleCompanyId: null })).toBe(false);
    const whole: Membership = { role: 'executor', sectionIds: null, checklistIds: null };
    expect(can(actor, 'read', { ...target, membership: whole, responsibleCompanyId: 4 })).toBe(true);
  });
});

describe('a company-limited member on real parts', () => {
  async function site() {
    const project = await makeProject(t);
    const checklist = await makeChecklist(t, await makeSection(t, project));
    const sparks = await t.ctx.companies.createCompany(t.admin, { name: `Sparks ${project.id}`, trade: 'Electrical' });
    const dry = await t.ctx.companies.createCompany(t.admin, { name: `Drywall ${project.id}`, trade: 'Drywall' });
    const sub = await makeUser(t);
    await t.ctx.companies.setUserCompany(t.admin, sub.id, sparks.id);
    await makeMembership(project.id, sub.id);
    const theirs = await makeItem(t, { checklist, text: `Socket loose ${project.id}`, participants: [sub] });
    const others = await makeItem(t, { checklist, text: `Socket cracked ${project.id}` });
    const nobody = await makeItem(t, { checklist, text: `Socket missing ${project.id}` });
    await t.ctx.itemWrites.setCompany(t.admin, theirs.id, sparks.id);
    await t.ctx.itemWrites.setCompany(t.admin, others.id, dry.id);
    return { project, checklist, sparks, dry, sub, theirs, others, nobody };
  }

  async function makeMembership(projectId: number, userId: number) {
    await t.ctx.members.setMember(t.admin, projectId, {
      userId,
      role: 'executor',
      limited: false,
      sectionIds: [],
      checklistIds: [],
      companyItemsOnly: true,
    });
  }

  const treeIds = async (actor: { id: number; role: 'member' | 'admin' }, projectId: number) =>
    (await t.ctx.projects.getTree(actor, projectId)).sections.flatMap((s) => s.checklists.flatMap((c) => c.items.map((i) => i.id)));

  it('sees exactly their company’s items in the card, the tree, the counts, search, My items and the report rows', async () => {
    const { project, sub, theirs, others, nobody } = await site();
    expect((await t.ctx.items.getItemCard(sub, theirs.id)).item.id).toBe(theirs.id);
    for (const hidden of [others, nobody]) {
      await expect(t.ctx.items.getItemCard(sub, hidden.id)).rejects.toMatchObject({ status: 404 });
    }
    expect(await treeIds(sub, project.id)).toEqual([theirs.id]);
    expect((await treeIds(t.admin, project.id)).sort()).toEqual([theirs.id, others.id, nobody.id].sort());
    const { project: card } = await t.ctx.projects.getProject(sub, project.id);
    expect(card.counters.items).toBe(1);
    const listed = (await t.ctx.projects.listProjects(sub, { archived: 'active', limit: 50, offset: 0 })).projects;
    expect(listed.find((p) => p.id === project.id)?.counters.items).toBe(1);
    const search = await t.ctx.projectSearch.searchProject(sub, project.id, {
      q: 'Socket',
      entityType: null,
      itemId: null,
      limit: 50,
      offset: 0,
    });
    expect(search.hits.map((h) => h.item_id)).toEqual([theirs.id]);
    expect((await t.ctx.worklists.myItems(sub, 1)).rows.map((r) => r.id)).toEqual([theirs.id]);
    const filter = { status: null, mine: false, overdue: false, q: null, participant: null, sort: 'tree' as const };
    expect((await t.ctx.worklists.filteredItems(sub, project.id, filter)).rows.map((r) => r.item.id)).toEqual([theirs.id]);
    // Writes follow reads: another company's item does not exist for them.
    await expect(t.ctx.itemWrites.setStatus(sub, others.id, 'in_progress')).rejects.toMatchObject({ status: 404 });
    await t.ctx.itemWrites.setStatus(sub, theirs.id, 'in_progress');
  });

  it('reads the events of their company’s items only, and the pins of those only', async () => {
    const { project, sub, theirs, others } = await site();
    const events = await t.ctx.events.list(sub, { after: 0, limit: 500, projectId: project.id, itemId: null, types: null, wait: 0 });
    const itemIds = new Set(events.events.map((e) => e.item_id).filter((id) => id !== null));
    expect([...itemIds]).toEqual([theirs.id]);

    const at = new Date().toISOString();
    const plan = await db()
      .insertInto('plans')
      .values({
        project_id: project.id,
        name: 'Level 1',
        current_version: 1,
        position: 0,
        created_by: t.admin.id,
        created_at: at,
        updated_at: at,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db()
      .insertInto('plan_versions')
      .values({
        plan_id: plan.id,
        version: 1,
        width: 100,
        height: 100,
        source_kind: 'png',
        source_name: 'l1.png',
        source_page: null,
        tile_size: 256,
        tile_overlap: 0,
        levels: 8,
        blob_prefix: 'plans/x/',
        created_by: t.admin.id,
        created_at: at,
      })
      .execute();
    for (const item of [theirs, others]) await t.ctx.itemLocations.placeItem(t.admin, item.id, { planId: plan.id, x: 0.5, y: 0.5 });
    const plans = (await t.ctx.plans.listPlans(sub, project.id)).plans;
    expect(plans.find((p) => p.id === plan.id)?.pins.map((p) => p.item_id)).toEqual([theirs.id]);
  });

  it('follows the assignment: an item given to their company appears at once, one taken away disappears', async () => {
    const { project, sparks, dry, sub, theirs, others } = await site();
    await t.ctx.itemWrites.setCompany(t.admin, others.id, sparks.id);
    expect((await treeIds(sub, project.id)).sort()).toEqual([theirs.id, others.id].sort());
    await t.ctx.itemWrites.setCompany(t.admin, theirs.id, dry.id);
    expect(await treeIds(sub, project.id)).toEqual([others.id]);
    await expect(t.ctx.items.getItemCard(sub, theirs.id)).rejects.toMatchObject({ status: 404 });
    // Their own company changing moves what they see too.
    await t.ctx.companies.setUserCompany(t.admin, sub.id, dry.id);
    expect(await treeIds(sub, project.id)).toEqual([theirs.id]);
    await t.ctx.companies.setUserCompany(t.admin, sub.id, null);
    expect(await treeIds(sub, project.id)).toEqual([]);
  });

  it('is not told about another company’s item, even as its participant; is told about their own', async () => {
    const { sub, theirs, others } = await site();
    await t.ctx.notificationWorker.drainNow();
    await t.ctx.itemEdits.updateItem(t.admin, others.id, { participantIds: [sub.id] });
    await t.ctx.comments.addComment(t.admin, others.id, { text: 'On the other one' });
    await t.ctx.comments.addComment(t.admin, theirs.id, { text: 'On theirs' });
    await t.ctx.notificationWorker.drainNow();
    const told = await t.ctx.notifications.list(sub.id);
    expect(told.map((n) => n.item_id)).toContain(theirs.id);
    expect(told.map((n) => n.item_id)).not.toContain(others.id);
  });

  it('leaves members without the limit as they were', async () => {
    const { project, theirs, others, nobody } = await site();
    const crew = await makeMember(t, project, 'executor');
    expect((await treeIds(crew, project.id)).sort()).toEqual([theirs.id, others.id, nobody.id].sort());
  });
});
