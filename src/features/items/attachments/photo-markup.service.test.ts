import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeAnswer, makeMember, makeTeamItem, makeUser, useTestContext } from '../../../../test/helpers/factories.js';
import { solid } from '../../../../test/helpers/images.js';
import { captionOf, photoDetailsOf } from './attachments.service.js';

/**
 * Photos that show the defect (docs/design.md §22): stages and their defaults, captions, the markup linked to its
 * original, stored once per key, under the upload's right; on every dialect.
 */
const t = useTestContext();
const db = () => t.ctx.db.kysely;

const dir = mkdtempSync(join(tmpdir(), 'punchlist-markup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function file(name: string, bytes?: Buffer) {
  const path = join(mkdtempSync(join(dir, 'f-')), name);
  const data = bytes ?? (await solid(64, 48, 'png'));
  writeFileSync(path, data);
  return { originalName: name, path, size: data.length, oversized: false };
}

const rowsOf = (itemId: number) =>
  db()
    .selectFrom('attachments')
    .select(['id', 'answer_id', 'annotates', 'stage', 'caption'])
    .where('item_id', '=', itemId)
    .orderBy('id')
    .execute();
const eventsOf = async (itemId: number, type: string) =>
  (await db().selectFrom('events').select('data').where('item_id', '=', itemId).where('type', '=', type).orderBy('id').execute()).map(
    (e) => JSON.parse(e.data) as any,
  );

describe('photo stages', () => {
  it('defaults to defect while pending, fix while in progress or done and with an answer, none while blocked', async () => {
    const { item, participant } = await makeTeamItem(t);
    const add = async () => (await t.ctx.attachments.attachToItem(participant, item.id, [await file('p.png')])).attachments[0]!;
    expect((await add()).stage).toBe('defect');
    await t.ctx.itemWrites.setStatus(participant, item.id, 'in_progress');
    expect((await add()).stage).toBe('fix');
    await t.ctx.itemWrites.setStatus(participant, item.id, 'blocked');
    expect((await add()).stage).toBeNull();
    await t.ctx.itemWrites.setStatus(participant, item.id, 'done');
    expect((await add()).stage).toBe('fix');
    const answer = await makeAnswer(t, item, participant);
    const onAnswer = await t.ctx.attachments.attachToAnswer(participant, answer.id, [await file('a.png')]);
    expect(onAnswer.attachments[0]!.stage).toBe('fix');
    expect((await rowsOf(item.id)).map((r) => r.stage)).toEqual(['defect', 'fix', null, 'fix', 'fix']);
  });

  it('raised with the item: defect; an answer given with photos: fix', async () => {
    const { item, manager, participant } = await makeTeamItem(t);
    const crack = await file('crack.png');
    const id = await t.ctx.itemEdits.createItem(manager, item.checklistId, {
      text: 'Crack',
      prepareImages: () => t.ctx.attachments.prepare([crack]),
    });
    expect((await rowsOf(id)).map((r) => r.stage)).toEqual(['defect']);
    await t.ctx.answers.addAnswer(participant, item.id, {
      text: 'Filled',
      prepareImages: async () => t.ctx.attachments.prepare([await file('filled.png')]),
    });
    expect((await rowsOf(item.id)).map((r) => r.stage)).toEqual(['fix']);
  });

  it('keeps a stage and caption chosen at upload, in the card and the event', async () => {
    const { item, participant } = await makeTeamItem(t);
    const details = photoDetailsOf({ stage: 'fix', caption: '  Sealed\nthe joint  ' });
    await t.ctx.attachments.attachToItem(participant, item.id, [await file('p.png')], undefined, details);
    const { item: card } = await t.ctx.items.getItemCard(participant, item.id);
    expect(card.attachments[0]).toMatchObject({ stage: 'fix', caption: 'Sealed the joint', annotates: null });
    const [event] = await eventsOf(item.id, 'item.attachments_added');
    expect(event.attachments[0]).toMatchObject({ stage: 'fix', caption: 'Sealed the joint' });
    expect(photoDetailsOf({ stage: 'none' }).stage).toBeNull();
    expect(photoDetailsOf({ stage: '' }).stage).toBeUndefined();
  });

  it('refuses a caption over 200 characters and an unknown stage with 422 naming the field, nothing stored', async () => {
    expect(captionOf('é'.repeat(200))).toBe('é'.repeat(200));
    expect(() => captionOf('x'.repeat(201))).toThrow(
      expect.objectContaining({ status: 422, details: [expect.objectContaining({ field: 'caption' })] }),
    );
    expect(() => photoDetailsOf({ stage: 'after' })).toThrow(
      expect.objectContaining({ status: 422, details: [expect.objectContaining({ field: 'stage' })] }),
    );
    expect(captionOf('   ')).toBeNull();
  });
});

describe('markup', () => {
  async function photographed() {
    const setting = await makeTeamItem(t);
    const details = photoDetailsOf({ caption: 'Crack by the door' });
    const [original] = (
      await t.ctx.attachments.attachToItem(setting.participant, setting.item.id, [await file('wall.jpg')], undefined, details)
    ).attachments;
    return { ...setting, original: original! };
  }

  it('stores a new WebP photo linked to its original, with its stage and caption, shown before it', async () => {
    const { item, participant, original } = await photographed();
    const saved = await t.ctx.attachments.markUp(participant, original.id, await file('markup.png'), { markupKey: 'k-1' });
    expect(saved.replayed).toBe(false);
    expect(saved.attachment).toMatchObject({
      annotates: original.id,
      stage: 'defect',
      caption: 'Crack by the door',
      mime_type: 'image/webp',
    });
    const { item: card } = await t.ctx.items.getItemCard(participant, item.id);
    expect(card.attachments.map((a) => a.id)).toEqual([saved.attachment.id, original.id]);
    // A markup of the markup points at the photo as taken.
    const again = await t.ctx.attachments.markUp(participant, saved.attachment.id, await file('m2.png'), {
      markupKey: 'k-2',
      caption: 'Closer',
    });
    expect(again.attachment).toMatchObject({ annotates: original.id, caption: 'Closer' });
    const { item: after } = await t.ctx.items.getItemCard(participant, item.id);
    expect(after.attachments.map((a) => a.id)).toEqual([again.attachment.id, saved.attachment.id, original.id]);
    const events = await eventsOf(item.id, 'item.attachments_added');
    expect(events.at(-1).attachments[0]).toMatchObject({ annotates: original.id });
  });

  it('marks up an answer photo as a picture of that answer', async () => {
    const { item, participant } = await makeTeamItem(t);
    const answer = await makeAnswer(t, item, participant);
    const [photo] = (await t.ctx.attachments.attachToAnswer(participant, answer.id, [await file('fix.png')])).attachments;
    const saved = await t.ctx.attachments.markUp(participant, photo!.id, await file('m.png'), {});
    expect(saved.attachment).toMatchObject({ annotates: photo!.id, stage: 'fix' });
    const rows = await rowsOf(item.id);
    expect(rows.map((r) => r.answer_id)).toEqual([answer.id, answer.id]);
    const { item: card } = await t.ctx.items.getItemCard(participant, item.id);
    expect(card.answers[0]!.attachments.map((a) => a.id)).toEqual([saved.attachment.id, photo!.id]);
  });

  it('stores one markup for one key, however often it is sent', async () => {
    const { item, participant, original } = await photographed();
    const first = await t.ctx.attachments.markUp(participant, original.id, await file('m.png'), { markupKey: 'same' });
    const second = await t.ctx.attachments.markUp(participant, original.id, await file('m.png'), { markupKey: 'same' });
    expect(second).toMatchObject({ replayed: true, attachment: { id: first.attachment.id } });
    expect(await rowsOf(item.id)).toHaveLength(2);
    expect(await eventsOf(item.id, 'item.attachments_added')).toHaveLength(2);
    // The key of another photo's markup is refused, not silently answered with it.
    const [other] = (await t.ctx.attachments.attachToItem(participant, item.id, [await file('other.png')])).attachments;
    await expect(t.ctx.attachments.markUp(participant, other!.id, await file('m.png'), { markupKey: 'same' })).rejects.toMatchObject({
      status: 422,
    });
    await expect(t.ctx.attachments.markUp(participant, other!.id, await file('m.png'), { markupKey: 'bad key' })).rejects.toMatchObject({
      status: 422,
    });
  });

  it('refuses who may not add a photo there (403) and who cannot see it (404), storing nothing', async () => {
    const { item, project, bystander, observer, original } = await photographed();
    const stranger = await makeUser(t);
    await expect(t.ctx.attachments.markUp(bystander, original.id, await file('m.png'), {})).rejects.toMatchObject({ status: 403 });
    await expect(t.ctx.attachments.markUp(observer, original.id, await file('m.png'), {})).rejects.toMatchObject({ status: 403 });
    await expect(t.ctx.attachments.markUp(stranger, original.id, await file('m.png'), {})).rejects.toMatchObject({ status: 404 });
    await expect(t.ctx.attachments.markUp(stranger, 987654321, await file('m.png'), {})).rejects.toMatchObject({ status: 404 });
    const manager = await makeMember(t, project, 'manager');
    await t.ctx.attachments.markUp(manager, original.id, await file('m.png'), {});
    expect(await rowsOf(item.id)).toHaveLength(2);
  });

  it('checks the drawn picture like any upload: not an image, too small → 422, nothing stored', async () => {
    const { item, participant, original } = await photographed();
    const notImage = await file('m.png', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'));
    await expect(t.ctx.attachments.markUp(participant, original.id, notImage, {})).rejects.toMatchObject({ status: 422 });
    const tiny = await file('m.png', await solid(8, 8, 'png'));
    await expect(t.ctx.attachments.markUp(participant, original.id, tiny, {})).rejects.toMatchObject({ status: 422 });
    const huge = { ...(await file('m.png')), oversized: true };
    await expect(t.ctx.attachments.markUp(participant, original.id, huge, {})).rejects.toMatchObject({ status: 422 });
    expect(await rowsOf(item.id)).toHaveLength(1);
  });
});

describe('describePhoto', () => {
  it('lets the uploader and a manager change stage and caption, nobody else; records attachment.updated', async () => {
    const { item, project, participant, manager } = await makeTeamItem(t);
    const other = await makeMember(t, project, 'executor');
    await t.ctx.itemEdits.updateItem(manager, item.id, { participantIds: [participant.id, other.id] });
    const [photo] = (await t.ctx.attachments.attachToItem(participant, item.id, [await file('p.png')])).attachments;
    const changed = await t.ctx.attachments.describePhoto(participant, photo!.id, { stage: 'fix', caption: 'After' });
    expect(changed).toMatchObject({ changed: true, attachment: { stage: 'fix', caption: 'After' } });
    expect(await t.ctx.attachments.describePhoto(manager, photo!.id, { stage: 'fix', caption: 'After' })).toMatchObject({ changed: false });
    await t.ctx.attachments.describePhoto(manager, photo!.id, { stage: null, caption: null });
    await expect(t.ctx.attachments.describePhoto(other, photo!.id, { stage: 'defect', caption: null })).rejects.toMatchObject({
      status: 403,
    });
    const events = await eventsOf(item.id, 'attachment.updated');
    expect(events.map((e) => e.changes)).toEqual([
      { stage: { from: 'defect', to: 'fix' }, caption: { from: null, to: 'After' } },
      { stage: { from: 'fix', to: null }, caption: { from: 'After', to: null } },
    ]);
    expect((await rowsOf(item.id))[0]).toMatchObject({ stage: null, caption: null });
  });
});
