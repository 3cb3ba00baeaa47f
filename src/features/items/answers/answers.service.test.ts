import { describe, expect, it } from 'vitest';
import { refuseInserts } from '../../../../test/helpers/database.js';
import { archiveProject, auditRecord, makeAnswer, makeTeamItem, makeUser, useTestContext } from '../../../../test/helpers/factories.js';
import type { PreparedImages } from '../attachments/attachments.service.js';

/** Answers through the service, on both dialects: managers, participating executors and admins answer (docs/design.md §3). */
const t = useTestContext();

const answersOf = async (itemId: number) => (await t.ctx.items.getItemCard(t.admin, itemId)).item.answers;

const setting = () => makeTeamItem(t);

describe('answers.addAnswer', () => {
  it('stores a pending answer with its links in order, returned like the card shows it, with its event and audit record', async () => {
    const { item, participant } = await setting();
    const record = auditRecord(participant);
    const links = [
      { title: ' Act ', url: 'https://example.test/act' },
      { kind: 'spreadsheet', title: 'Sheet', url: 'HTTP://Example.test/a b' },
    ];
    const { answer } = await t.ctx.answers.addAnswer(participant, item.id, { text: ' Done ', document_links: links }, () => record);
    expect(answer).toMatchObject({
      text: 'Done',
      status: 'pending',
      author: { id: participant.id, name: participant.name },
      attachments: [],
      document_links: [
        { kind: 'document', title: 'Act', url: 'https://example.test/act' },
        { kind: 'spreadsheet', title: 'Sheet', url: 'http://example.test/a%20b' },
      ],
    });
    const [stored] = await answersOf(item.id);
    expect(stored).toEqual(answer);
    const events = await t.ctx.db.kysely
      .selectFrom('events')
      // The item's own creation (the factory raised it) is not what these writes are about.
      .where('type', '!=', 'item.created')
      .select(['type', 'data'])
      .where('item_id', '=', item.id)
      .where('type', '=', 'answer.created')
      .execute();
    expect(events.map((e) => JSON.parse(e.data))).toEqual([{ answer }]);
    expect(await t.ctx.db.kysely.selectFrom('audit_log').select('id').where('request_id', '=', record.request_id).execute()).toHaveLength(
      1,
    );
  });

  it('lets the admin, a manager and a participating executor answer; 403 for a bystanding executor and an observer', async () => {
    const { item, manager, participant, bystander, observer } = await setting();
    for (const actor of [t.admin, manager, participant]) await t.ctx.answers.addAnswer(actor, item.id, { text: 'ok' });
    for (const actor of [bystander, observer]) {
      await expect(t.ctx.answers.addAnswer(actor, item.id, { text: 'no' })).rejects.toMatchObject({ status: 403, code: 'forbidden' });
    }
    expect((await answersOf(item.id)).map((a) => a.author.id)).toEqual([t.admin.id, manager.id, participant.id]);
  });

  it('answers 404 to who cannot see the item, 403 on an archived project', async () => {
    const { project, item, manager } = await setting();
    const outsider = await makeUser(t);
    await expect(t.ctx.answers.addAnswer(outsider, item.id, { text: 'x' })).rejects.toMatchObject({ status: 404, code: 'not_found' });
    await expect(t.ctx.answers.addAnswer(t.admin, 987_654_321, { text: 'x' })).rejects.toMatchObject({ status: 404 });
    await archiveProject(t, project);
    await expect(t.ctx.answers.addAnswer(manager, item.id, { text: 'x' })).rejects.toMatchObject({ status: 403 });
    expect(await answersOf(item.id)).toEqual([]);
  });

  it('validates text and links (422 naming the field, the first bad link by position) and writes nothing', async () => {
    const { item, manager } = await setting();
    const bad = [
      [{ text: '' }, 'text'],
      [
        {
          text: 'ok',
          document_links: [
            { title: 'a', url: 'https://a.test' },
            { title: 'b', url: 'ftp://b.test' },
          ],
        },
        'document_links[1].url',
      ],
      [{ text: 'ok', document_links: [{ title: '  ', url: 'https://a.test' }] }, 'document_links[0].title'],
      [{ text: 'ok', document_links: [{ kind: 'pdf', title: 'a', url: 'https://a.test' }] }, 'document_links[0].kind'],
      [{ text: 'ok', document_links: Array.from({ length: 101 }, () => ({ title: 'a', url: 'https://a.test' })) }, 'document_links'],
    ] as const;
    for (const [input, field] of bad) {
      await expect(t.ctx.answers.addAnswer(manager, item.id, input)).rejects.toMatchObject({ status: 422, details: [{ field }] });
    }
    expect(await answersOf(item.id)).toEqual([]);
  });

  it('checks the right before preparing images, and discards prepared images when the write fails', async () => {
    const { item, observer, manager } = await setting();
    let prepared = 0;
    let discarded = 0;
    const prepareImages = async (): Promise<PreparedImages> => {
      prepared += 1;
      return { put: async () => {}, insert: async () => [], discard: async () => void (discarded += 1) };
    };
    await expect(t.ctx.answers.addAnswer(observer, item.id, { text: 'x', prepareImages })).rejects.toMatchObject({ status: 403 });
    expect(prepared).toBe(0);

    const undo = await refuseInserts(t.ctx.db.kysely, 'events');
    try {
      await expect(t.ctx.answers.addAnswer(manager, item.id, { text: 'x', prepareImages })).rejects.toThrow(/refused by test/);
    } finally {
      await undo();
    }
    expect({ prepared, discarded }).toEqual({ prepared: 1, discarded: 1 });
    // The answer rolled back with its event.
    expect(await answersOf(item.id)).toEqual([]);
  });
});

describe('answers.itemOfAnswer', () => {
  it('gives the item of an answer to who sees it, 404 to others and for an unknown answer', async () => {
    const { item, observer } = await setting();
    const answer = await makeAnswer(t, item);
    expect(await t.ctx.answers.itemOfAnswer(observer, answer.id)).toBe(item.id);
    await expect(t.ctx.answers.itemOfAnswer(await makeUser(t), answer.id)).rejects.toMatchObject({
      status: 404,
      message: 'The answer was not found',
    });
    await expect(t.ctx.answers.itemOfAnswer(t.admin, 987_654_321)).rejects.toMatchObject({ status: 404 });
  });
});
