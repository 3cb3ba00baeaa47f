import { describe, expect, it } from 'vitest';
import {
  archiveProject,
  auditRecord,
  makeChecklist,
  makeItem,
  makeMember,
  makeProject,
  makeSection,
  makeUser,
  useTestContext,
} from '../../../../test/helpers/factories.js';

/** Comments through the service, on both dialects: anyone who sees the item may comment (docs/design.md §3). */
const t = useTestContext();

const commentsOf = async (itemId: number) => (await t.ctx.items.getItemCard(t.admin, itemId)).item.comments;

describe('comments.addComment', () => {
  it('stores the text trimmed and returns it like the item card, with the event and audit record of the write', async () => {
    const item = await makeItem(t);
    const before = (await t.ctx.items.getItemCard(t.admin, item.id)).item.updated_at;
    t.clock.advance(1000);
    const record = auditRecord(t.admin, { entity_type: 'item', entity_id: item.id });
    const { comment } = await t.ctx.comments.addComment(t.admin, item.id, { text: '  Looks good \n' }, () => record);
    expect(comment).toEqual({
      id: expect.any(Number),
      text: 'Looks good',
      author: { id: t.admin.id, name: t.admin.name },
      created_at: t.clock.now().toISOString(),
    });
    expect(await commentsOf(item.id)).toEqual([comment]);
    const card = (await t.ctx.items.getItemCard(t.admin, item.id)).item;
    expect(card.updated_at > before).toBe(true);

    const events = await t.ctx.db.kysely
      .selectFrom('events')
      // The item's own creation (the factory raised it) is not what these writes are about.
      .where('type', '!=', 'item.created')
      .selectAll()
      .where('item_id', '=', item.id)
      .where('type', '=', 'comment.created')
      .execute();
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]!.data)).toEqual({ comment });
    const audit = await t.ctx.db.kysely.selectFrom('audit_log').selectAll().where('request_id', '=', record.request_id).execute();
    expect(audit).toHaveLength(1);
  });

  it('lets every role that sees the item comment: admin, manager, executor (participant or not), observer', async () => {
    const project = await makeProject(t);
    const item = await makeItem(t, { checklist: await makeChecklist(t, await makeSection(t, project)) });
    for (const role of ['manager', 'executor', 'observer'] as const) {
      const member = await makeMember(t, project, role);
      await t.ctx.comments.addComment(member, item.id, { text: `from the ${role}` });
    }
    expect((await commentsOf(item.id)).map((c) => c.text)).toEqual(['from the manager', 'from the executor', 'from the observer']);
  });

  it('answers 404 to who cannot see the item (no membership, a limit excluding it, an unknown id), and writes nothing', async () => {
    const project = await makeProject(t);
    const section = await makeSection(t, project);
    const item = await makeItem(t, { checklist: await makeChecklist(t, section) });
    const elsewhere = await makeChecklist(t, await makeSection(t, project));
    const outsider = await makeUser(t);
    const limited = await makeMember(t, project, 'manager', { checklists: [elsewhere] });
    for (const actor of [outsider, limited]) {
      await expect(t.ctx.comments.addComment(actor, item.id, { text: 'x' })).rejects.toMatchObject({ status: 404, code: 'not_found' });
    }
    await expect(t.ctx.comments.addComment(t.admin, 987_654_321, { text: 'x' })).rejects.toMatchObject({ status: 404 });
    expect(await commentsOf(item.id)).toEqual([]);
  });

  it('refuses with 403 on an archived project, even for the admin', async () => {
    const project = await makeProject(t);
    const item = await makeItem(t, { checklist: await makeChecklist(t, await makeSection(t, project)) });
    const manager = await makeMember(t, project, 'manager');
    await archiveProject(t, project);
    for (const actor of [t.admin, manager]) {
      await expect(t.ctx.comments.addComment(actor, item.id, { text: 'x' })).rejects.toMatchObject({ status: 403, code: 'forbidden' });
    }
    expect(await commentsOf(item.id)).toEqual([]);
  });

  it('validates the text before the access check: empty, too long, unstorable → 422 naming the field', async () => {
    const item = await makeItem(t);
    const outsider = await makeUser(t);
    for (const text of ['', '   \n', 'x'.repeat(20_001), 'a\u0000b', '\ud800']) {
      await expect(t.ctx.comments.addComment(t.admin, item.id, { text })).rejects.toMatchObject({
        status: 422,
        code: 'validation_error',
        details: [{ field: 'text' }],
      });
    }
    // 20 000 code points (astral characters count once) is the limit, not 20 000 UTF-16 units.
    await expect(t.ctx.comments.addComment(t.admin, item.id, { text: '😀'.repeat(20_000) })).resolves.toBeDefined();
    // Invalid input is refused as such even for someone who could not see the item.
    await expect(t.ctx.comments.addComment(outsider, item.id, { text: '' })).rejects.toMatchObject({ status: 422 });
    expect(await commentsOf(item.id)).toHaveLength(1);
  });
});
