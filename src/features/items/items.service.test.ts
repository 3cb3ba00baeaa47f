import { describe, expect, it } from 'vitest';
import {
  archiveProject,
  makeAnswer,
  makeChecklist,
  makeComment,
  makeItem,
  makeMember,
  makeProject,
  makeSection,
  makeUser,
  useTestContext,
} from '../../../test/helpers/factories.js';

/** Item reads and the access check every item use case starts with, on both dialects (docs/design.md §3, §5). */
const t = useTestContext();

describe('items.getItemCard', () => {
  it('shows the whole card: fields, participants with their project role, comments, answers, links, history', async () => {
    const project = await makeProject(t);
    const checklist = await makeChecklist(t, await makeSection(t, project));
    const executor = await makeMember(t, project, 'executor');
    const manager = await makeMember(t, project, 'manager');
    const item = await makeItem(t, {
      checklist,
      description: 'What to do',
      participants: [manager, executor],
      priority: 'high',
      deadline: '2099-03-01',
    });
    const comment = await makeComment(t, item, executor);
    const answer = await makeAnswer(t, item, manager);
    const { document_links } = await t.ctx.itemWrites.replaceItemLinks(t.admin, item.id, [
      { title: 'Plan', url: 'https://example.test/plan' },
    ]);
    await t.ctx.itemWrites.setStatus(executor, item.id, 'in_progress');

    const { item: card } = await t.ctx.items.getItemCard(executor, item.id);
    expect(card).toMatchObject({
      id: item.id,
      project_id: project.id,
      section_id: checklist.sectionId,
      checklist_id: checklist.id,
      text: item.text,
      description: 'What to do',
      status: 'in_progress',
      priority: 'high',
      deadline: '2099-03-01',
      requires_answer: false,
      verdict: null,
      participants: [
        { id: executor.id, name: executor.name, role: 'executor' },
        { id: manager.id, name: manager.name, role: 'manager' },
      ].sort((a, b) => a.id - b.id),
      comments: [comment],
      answers: [answer],
      document_links,
      attachments: [],
      can_verdict: false,
      can_return_to_rework: false,
    });
    expect(card.status_history).toMatchObject([
      { kind: 'created', from: null, to: 'pending', user: { id: t.admin.id, name: t.admin.name } },
      { kind: 'status_changed', from: 'pending', to: 'in_progress', user: { id: executor.id, name: executor.name } },
    ]);
    expect((await t.ctx.items.getItemCard(manager, item.id)).item).toMatchObject({ can_verdict: true, can_return_to_rework: true });
  });

  it('is visible to the admin and every member of the project, whatever their role, archived or not', async () => {
    const project = await makeProject(t);
    const item = await makeItem(t, { checklist: await makeChecklist(t, await makeSection(t, project)) });
    const members = [
      await makeMember(t, project, 'manager'),
      await makeMember(t, project, 'executor'),
      await makeMember(t, project, 'observer'),
    ];
    for (const actor of [t.admin, ...members]) expect((await t.ctx.items.getItemCard(actor, item.id)).item.id).toBe(item.id);
    await archiveProject(t, project);
    for (const actor of [t.admin, ...members]) expect((await t.ctx.items.getItemCard(actor, item.id)).item.id).toBe(item.id);
  });

  it('does not exist (404 not_found) for an outsider, a member of another project, or a member limited elsewhere', async () => {
    const project = await makeProject(t);
    const section = await makeSection(t, project);
    const checklist = await makeChecklist(t, section);
    const otherSection = await makeSection(t, project);
    const otherChecklist = await makeChecklist(t, otherSection);
    const item = await makeItem(t, { checklist });
    const hidden = [
      await makeUser(t),
      await makeUser(t, { role: 'member' }),
      await makeMember(t, await makeProject(t), 'manager'),
      await makeMember(t, project, 'manager', { sections: [otherSection] }),
      await makeMember(t, project, 'executor', { checklists: [otherChecklist] }),
    ];
    for (const actor of hidden) {
      await expect(t.ctx.items.getItemCard(actor, item.id)).rejects.toMatchObject({
        status: 404,
        code: 'not_found',
        message: 'The item was not found',
      });
    }
    await expect(t.ctx.items.getItemCard(t.admin, 987_654_321)).rejects.toMatchObject({ status: 404 });
  });

  it('is visible to a member limited to its section, or to its checklist, or to a union of both', async () => {
    const project = await makeProject(t);
    const section = await makeSection(t, project);
    const checklist = await makeChecklist(t, section);
    const sibling = await makeChecklist(t, section);
    const item = await makeItem(t, { checklist });
    const inSibling = await makeItem(t, { checklist: sibling });
    const bySection = await makeMember(t, project, 'observer', { sections: [section] });
    const byChecklist = await makeMember(t, project, 'observer', { checklists: [checklist] });
    const byBoth = await makeMember(t, project, 'observer', { sections: [await makeSection(t, project)], checklists: [checklist] });
    for (const actor of [bySection, byChecklist, byBoth]) expect((await t.ctx.items.getItemCard(actor, item.id)).item.id).toBe(item.id);
    expect((await t.ctx.items.getItemCard(bySection, inSibling.id)).item.id).toBe(inSibling.id);
    await expect(t.ctx.items.getItemCard(byChecklist, inSibling.id)).rejects.toMatchObject({ status: 404 });
  });

  it('stops showing the item the moment the membership ends', async () => {
    const project = await makeProject(t);
    const item = await makeItem(t, { checklist: await makeChecklist(t, await makeSection(t, project)) });
    const observer = await makeMember(t, project, 'observer');
    await t.ctx.items.getItemCard(observer, item.id);
    await t.ctx.members.removeMember(t.admin, project.id, observer.id);
    await expect(t.ctx.items.getItemCard(observer, item.id)).rejects.toMatchObject({ status: 404 });
  });
});

describe('items.authorize', () => {
  it('answers 404 before 403: an invisible item is not found whatever the action; a visible one is forbidden', async () => {
    const project = await makeProject(t);
    const item = await makeItem(t, { checklist: await makeChecklist(t, await makeSection(t, project)) });
    const observer = await makeMember(t, project, 'observer');
    await expect(t.ctx.items.authorize(observer, item.id, 'item.status')).rejects.toMatchObject({ status: 403, code: 'forbidden' });
    await expect(t.ctx.items.authorize(await makeUser(t), item.id, 'item.status')).rejects.toMatchObject({ status: 404 });
    const access = await t.ctx.items.authorize(observer, item.id, 'comment.add');
    expect(access).toMatchObject({
      item: { id: item.id },
      project: { id: project.id },
      membership: { role: 'observer', sectionIds: null, checklistIds: null },
    });
    await archiveProject(t, project);
    await expect(t.ctx.items.authorize(t.admin, item.id, 'comment.add')).rejects.toMatchObject({
      status: 403,
      message: 'The project is archived: its items are read-only',
    });
  });
});

describe('items.getItemWorkspace', () => {
  it('lists what the actor may do on the item, action by action, and the answers they may add images to', async () => {
    const project = await makeProject(t);
    const checklist = await makeChecklist(t, await makeSection(t, project));
    const participant = await makeMember(t, project, 'executor');
    const bystander = await makeMember(t, project, 'executor');
    const observer = await makeMember(t, project, 'observer');
    const item = await makeItem(t, { checklist, participants: [participant] });
    const answer = await makeAnswer(t, item, participant);
    // The bystander's own answer: written while a participant, kept after leaving the item.
    await t.ctx.itemEdits.updateItem(t.admin, item.id, { text: item.text, participantIds: [participant.id, bystander.id] });
    const own = await makeAnswer(t, item, bystander);
    await t.ctx.itemEdits.updateItem(t.admin, item.id, { text: item.text, participantIds: [participant.id] });

    const rightsOf = async (actor: typeof observer) => {
      const { rights, answerImages, project: p } = await t.ctx.items.getItemWorkspace(actor, item.id);
      expect(p).toEqual({ id: project.id, name: project.name });
      return {
        allowed: Object.keys(rights)
          .filter((k) => rights[k as keyof typeof rights])
          .sort(),
        answerImages: [...answerImages].sort((a, b) => a - b),
      };
    };
    const all = [
      'answer.add',
      'answer.images',
      'answer.review',
      'comment.add',
      'item.edit',
      'item.materials',
      'item.place',
      'item.planning',
      'item.resolve_dispute',
      'item.rework',
      'item.status',
      'item.verdict',
      'photo.describe',
      'read',
    ];
    expect(await rightsOf(t.admin)).toEqual({ allowed: all, answerImages: [answer.id, own.id] });
    expect(await rightsOf(participant)).toEqual({
      allowed: ['answer.add', 'answer.images', 'comment.add', 'item.dispute', 'item.materials', 'item.status', 'read'],
      answerImages: [answer.id, own.id],
    });
    expect(await rightsOf(bystander)).toEqual({ allowed: ['comment.add', 'read'], answerImages: [own.id] });
    expect(await rightsOf(observer)).toEqual({ allowed: ['comment.add', 'read'], answerImages: [] });
  });
});
