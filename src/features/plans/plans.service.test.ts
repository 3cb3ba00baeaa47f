import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { solid } from '../../../test/helpers/images.js';
import { makePdf, tempFile } from '../../../test/helpers/plans.js';
import {
  archiveProject,
  auditRecord,
  makeChecklist,
  makeItem,
  makeMember,
  makeProject,
  makeSection,
  type TestContext,
  useTestContext,
} from '../../../test/helpers/factories.js';
import type { Actor } from '../../domain/policy.js';

/**
 * Plans on real parts (both dialects): PDFs made with PDFKit rendered by pdf.js in a thread of their own, images by
 * sharp, tiles in the disk blob store; the plans made through the project's write path with their events; pins
 * through the item's write path; every refusal leaving nothing behind.
 */
const t = useTestContext({ env: { PLAN_MAX_MB: '1', PLAN_MAX_PAGES: '3' } });
const db = () => t.ctx.db.kysely;

async function blobKeys(t: TestContext, prefix: string) {
  const keys: string[] = [];
  for await (const key of t.ctx.blobs.list(prefix)) keys.push(key);
  return keys;
}

/** Uploads and waits for the rendering; the upload as it ended. */
async function upload(t: TestContext, actor: Actor, projectId: number, bytes: Buffer, filename: string, options = {}) {
  const started = await t.ctx.planUploads.startUpload(actor, projectId, { path: tempFile(bytes, filename), filename }, options);
  await t.ctx.planUploads.waitForUpload(started.id);
  return { started, ended: await t.ctx.planUploads.uploadStatus(actor, started.id) };
}

/** Nothing of a refused upload: no plan, no upload row, no blob, no file in the service's folder. */
async function expectNothingLeft(t: TestContext, projectId: number, path: string, blobsBefore: string[]) {
  expect(await db().selectFrom('plans').select('id').where('project_id', '=', projectId).execute()).toEqual([]);
  expect(await db().selectFrom('plan_uploads').select('id').where('project_id', '=', projectId).execute()).toEqual([]);
  expect(await blobKeys(t, 'plans/')).toEqual(blobsBefore);
  expect(existsSync(path)).toBe(false);
  expect(await readdir(await t.ctx.planUploads.workFolder())).toEqual([]);
}

async function team(t: TestContext) {
  const project = await makeProject(t);
  const section = await makeSection(t, project);
  const checklist = await makeChecklist(t, section);
  const manager = await makeMember(t, project, 'manager');
  const executor = await makeMember(t, project, 'executor');
  const observer = await makeMember(t, project, 'observer');
  return { project, section, checklist, manager, executor, observer };
}

describe('plan uploads', () => {
  it('makes one plan per page of a PDF, named "<name> — p. N", with tiles, a sheet, progress, events and the audit record', async () => {
    const { project, manager } = await team(t);
    const bytes = await makePdf({ pages: 3 });
    const path = tempFile(bytes, 'Ground floor.pdf');
    const record = auditRecord(manager);
    const started = await t.ctx.planUploads.startUpload(manager, project.id, { path, filename: 'Ground floor.pdf' }, {}, () => record);
    expect(started).toMatchObject({ status: 'processing', pages_total: 3, name: 'Ground floor', project_id: project.id });
    expect(existsSync(path)).toBe(false);
    await t.ctx.planUploads.waitForUpload(started.id);
    const ended = await t.ctx.planUploads.uploadStatus(manager, started.id);
    expect(ended).toMatchObject({ status: 'done', pages_done: 3, pages_total: 3, error: null });
    expect(ended.plan_ids).toHaveLength(3);
    expect((await t.ctx.planUploads.recentUploads(manager, project.id)).map((u) => [u.id, u.status])).toEqual([[started.id, 'done']]);

    const { plans } = await t.ctx.plans.listPlans(manager, project.id);
    expect(plans.map((p) => p.name)).toEqual(['Ground floor — p. 1', 'Ground floor — p. 2', 'Ground floor — p. 3']);
    expect(plans.map((p) => p.id)).toEqual(ended.plan_ids);
    for (const plan of plans) {
      expect(plan).toMatchObject({ version: 1, pins: [], project_id: project.id });
      // A6 at 150 dpi: 105 × 148 mm → 620 × 874 px.
      expect(plan.width).toBeGreaterThan(600);
      expect(plan.height).toBeGreaterThan(plan.width);
      expect(plan.tiles_url).toBe(`http://punchlist.test/api/plans/tiles/${plan.id}/1/sheet.dzi`);
    }
    const keys = await blobKeys(t, `plans/u${started.id}/`);
    for (const page of [1, 2, 3]) {
      expect(keys).toContain(`plans/u${started.id}/p${page}/sheet.dzi`);
      expect(keys).toContain(`plans/u${started.id}/p${page}/sheet.webp`);
      expect(keys.filter((k) => k.startsWith(`plans/u${started.id}/p${page}/sheet_files/`)).length).toBeGreaterThan(3);
    }
    const sheet = await t.ctx.plans.openSheet(manager, plans[0]!.id);
    const chunks: Buffer[] = [];
    for await (const chunk of sheet.stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).subarray(8, 12).toString()).toBe('WEBP');

    const events = await db()
      .selectFrom('events')
      .select(['type', 'data', 'item_id'])
      .where('project_id', '=', project.id)
      .where('type', 'like', 'plan.%')
      .orderBy('id')
      .execute();
    expect(events.map((e) => e.type)).toEqual(['plan.created', 'plan.created', 'plan.created']);
    expect(JSON.parse(events[0]!.data)).toMatchObject({ plan: { id: plans[0]!.id, name: 'Ground floor — p. 1', version: 1 } });
    expect(events.every((e) => e.item_id === null)).toBe(true);
    expect(await db().selectFrom('audit_log').select('request_id').where('request_id', '=', record.request_id).execute()).toHaveLength(1);
    expect(await readdir(await t.ctx.planUploads.workFolder())).toEqual([]);
  });

  it('makes a plan of an image, named after the file; a new version keeps every pin and the earlier version stays viewable', async () => {
    const { project, checklist, manager } = await team(t);
    const { ended } = await upload(t, manager, project.id, await solid(800, 600, 'png'), 'Level 2.png');
    expect(ended.status).toBe('done');
    const planId = ended.plan_ids[0]!;
    const item = await makeItem(t, { checklist });
    await t.ctx.itemLocations.placeItem(manager, item.id, { planId, x: 0.25, y: 0.75 });

    const second = await upload(t, manager, project.id, await solid(1200, 900, 'webp'), 'Level 2 rev B.webp', { planId });
    expect(second.ended).toMatchObject({ status: 'done', plan_id: planId, plan_ids: [planId] });
    const { plan } = await t.ctx.plans.getPlan(manager, planId);
    expect(plan).toMatchObject({
      name: 'Level 2',
      version: 2,
      width: 1200,
      height: 900,
      pins: [{ item_id: item.id, x: 0.25, y: 0.75, status: 'pending' }],
    });
    expect(plan.versions.map((v) => [v.version, v.width])).toEqual([
      [1, 800],
      [2, 1200],
    ]);
    expect((await t.ctx.items.getItemCard(manager, item.id)).item.location).toEqual({
      plan_id: planId,
      plan_name: 'Level 2',
      x: 0.25,
      y: 0.75,
    });
    const old = await t.ctx.plans.openTile(manager, planId, 1, 'sheet.dzi');
    const text: Buffer[] = [];
    for await (const chunk of old.stream) text.push(chunk as Buffer);
    expect(Buffer.concat(text).toString()).toContain('Width="800"');
    const added = await db()
      .selectFrom('events')
      .select(['data'])
      .where('type', '=', 'plan.version_added')
      .where('project_id', '=', project.id)
      .execute();
    expect(added.map((e) => JSON.parse(e.data).plan)).toMatchObject([{ id: planId, version: 2 }]);
  });

  it('refuses executors and observers (403) and outsiders (404), and anybody in an archived project (403), keeping nothing', async () => {
    const { project, executor, observer } = await team(t);
    const before = await blobKeys(t, 'plans/');
    const outsider = await makeMember(t, await makeProject(t), 'manager');
    const bytes = await solid(64, 64, 'png');
    for (const [actor, status] of [
      [executor, 403],
      [observer, 403],
      [outsider, 404],
    ] as const) {
      const path = tempFile(bytes, 'plan.png');
      await expect(t.ctx.planUploads.startUpload(actor, project.id, { path, filename: 'plan.png' })).rejects.toMatchObject({ status });
      await expectNothingLeft(t, project.id, path, before);
    }
    const archived = await makeProject(t);
    await archiveProject(t, archived);
    const path = tempFile(bytes, 'plan.png');
    await expect(t.ctx.planUploads.startUpload(t.admin, archived.id, { path, filename: 'plan.png' })).rejects.toMatchObject({
      status: 403,
    });
    await expectNothingLeft(t, archived.id, path, before);
  });

  it('refuses what is not a plan with 422 and a reason, keeping no row, no blob and no file', async () => {
    const { project, manager } = await team(t);
    const before = await blobKeys(t, 'plans/');
    const cases: [string, Buffer, RegExp][] = [
      ['notes.txt', Buffer.from('Room 3.4, east wall: crack\n'), /not a plan/],
      ['broken.pdf', Buffer.concat([(await makePdf()).subarray(0, 300), Buffer.from('garbage')]), /cannot be read/],
      ['secret.pdf', await makePdf({ userPassword: 'secret' }), /encrypted/],
      ['empty.pdf', Buffer.alloc(0), /empty/],
      ['tiny.png', await solid(10, 40, 'png'), /16 or more/],
      ['anim.gif', await solid(64, 64, 'gif'), /PDF, PNG, JPEG or WebP/],
      ['big.pdf', Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(1024 * 1024 + 1, 32)]), /larger than 1 MB/],
      ['long.pdf', await makePdf({ pages: 4 }), /4 pages; at most 3/],
    ];
    for (const [filename, bytes, reason] of cases) {
      const path = tempFile(bytes, filename);
      const refused = await t.ctx.planUploads.startUpload(manager, project.id, { path, filename }).then(
        () => null,
        (err: unknown) => err as { status: number; details: { field: string; message: string }[] },
      );
      expect(refused, filename).toMatchObject({ status: 422, details: [{ field: 'file' }] });
      expect(refused!.details[0]!.message, filename).toMatch(reason);
      await expectNothingLeft(t, project.id, path, before);
    }
  });

  it('refuses a new version of several pages, and a version of a plan of another project (404)', async () => {
    const { project, manager } = await team(t);
    const { ended } = await upload(t, manager, project.id, await solid(100, 100, 'png'), 'A.png');
    const planId = ended.plan_ids[0]!;
    const path = tempFile(await makePdf({ pages: 2 }), 'two.pdf');
    await expect(t.ctx.planUploads.startUpload(manager, project.id, { path, filename: 'two.pdf' }, { planId })).rejects.toMatchObject({
      status: 422,
      details: [{ field: 'file', message: expect.stringMatching(/one page/) }],
    });
    const other = await makeProject(t);
    const elsewhere = tempFile(await solid(100, 100, 'png'), 'B.png');
    await expect(
      t.ctx.planUploads.startUpload(t.admin, other.id, { path: elsewhere, filename: 'B.png' }, { planId }),
    ).rejects.toMatchObject({
      status: 404,
    });
    expect((await t.ctx.plans.getPlan(manager, planId)).plan.version).toBe(1);
  });
});

describe('pins', () => {
  it('shows a partial member the pins of the items they see only', async () => {
    const { project, section, checklist, manager } = await team(t);
    const hidden = await makeChecklist(t, await makeSection(t, project));
    const { ended } = await upload(t, manager, project.id, await solid(200, 100, 'jpeg'), 'Roof.jpg');
    const planId = ended.plan_ids[0]!;
    const seen = await makeItem(t, { checklist });
    const unseen = await makeItem(t, { checklist: hidden });
    await t.ctx.itemLocations.placeItem(manager, seen.id, { planId, x: 0.1, y: 0.2 });
    await t.ctx.itemLocations.placeItem(manager, unseen.id, { planId, x: 0.9, y: 0.8 });
    const partial = await makeMember(t, project, 'observer', { sections: [section] });
    const pinsOf = async (actor: Actor) => (await t.ctx.plans.listPlans(actor, project.id)).plans[0]!.pins.map((p) => p.item_id);
    expect(await pinsOf(manager)).toEqual([seen.id, unseen.id]);
    expect(await pinsOf(partial)).toEqual([seen.id]);
    expect((await t.ctx.plans.getPlan(partial, planId)).plan.pins).toEqual([{ item_id: seen.id, x: 0.1, y: 0.2, status: 'pending' }]);
    const stranger = await makeMember(t, await makeProject(t), 'manager');
    await expect(t.ctx.plans.getPlan(stranger, planId)).rejects.toMatchObject({ status: 404 });
    await expect(t.ctx.plans.openTile(stranger, planId, 1, 'sheet.dzi')).rejects.toMatchObject({ status: 404 });
    await expect(t.ctx.plans.listPlans({ ...manager, projectIds: [project.id + 1000] }, project.id)).rejects.toMatchObject({ status: 404 });
  });

  it('places, moves and removes through the item write path: lock, history, audit record and item.updated with location', async () => {
    const { project, checklist, manager, executor, observer } = await team(t);
    const { ended } = await upload(t, manager, project.id, await solid(300, 200, 'png'), 'Hall.png');
    const planId = ended.plan_ids[0]!;
    const item = await makeItem(t, { checklist, participants: [] });
    const record = auditRecord(manager);
    const placed = await t.ctx.itemLocations.placeItem(manager, item.id, { planId, x: 0.5, y: 0.25 }, () => record);
    expect(placed).toMatchObject({
      changed: true,
      item: { id: item.id, location: { plan_id: planId, plan_name: 'Hall', x: 0.5, y: 0.25 } },
    });
    await t.ctx.itemLocations.placeItem(manager, item.id, { planId, x: 0.6, y: 0.3 });
    expect(await t.ctx.itemLocations.placeItem(manager, item.id, { planId, x: 0.6, y: 0.3 })).toMatchObject({ changed: false });
    await t.ctx.itemLocations.removeFromPlan(t.admin, item.id);
    expect((await t.ctx.items.getItemCard(manager, item.id)).item.location).toBeNull();

    const history = await db()
      .selectFrom('item_history')
      .select(['kind', 'note', 'user_id'])
      .where('item_id', '=', item.id)
      .where('kind', '=', 'location_changed')
      .orderBy('id')
      .execute();
    expect(history).toEqual([
      { kind: 'location_changed', note: 'Hall', user_id: manager.id },
      { kind: 'location_changed', note: 'Hall', user_id: manager.id },
      { kind: 'location_changed', note: null, user_id: t.admin.id },
    ]);
    expect(await db().selectFrom('audit_log').select('request_id').where('request_id', '=', record.request_id).execute()).toHaveLength(1);
    const events = await db()
      .selectFrom('events')
      .select(['data'])
      .where('item_id', '=', item.id)
      .where('type', '=', 'item.updated')
      .orderBy('id')
      .execute();
    const hall = (x: number, y: number) => ({ plan_id: planId, plan_name: 'Hall', x, y });
    expect(events.map((e) => JSON.parse(e.data))).toEqual([
      { changes: { location: { from: null, to: hall(0.5, 0.25) } } },
      { changes: { location: { from: hall(0.5, 0.25), to: hall(0.6, 0.3) } } },
      { changes: { location: { from: hall(0.6, 0.3), to: null } } },
    ]);

    for (const actor of [executor, observer]) {
      await expect(t.ctx.itemLocations.placeItem(actor, item.id, { planId, x: 0.1, y: 0.1 })).rejects.toMatchObject({ status: 403 });
    }
    for (const bad of [
      { x: -0.01, y: 0.5 },
      { x: 0.5, y: 1.5 },
      { x: Number.NaN, y: 0.5 },
    ]) {
      await expect(t.ctx.itemLocations.placeItem(manager, item.id, { planId, ...bad })).rejects.toMatchObject({ status: 422 });
    }
    const other = await team(t);
    const otherPlan = (await upload(t, other.manager, other.project.id, await solid(100, 100, 'png'), 'Other.png')).ended.plan_ids[0]!;
    await expect(t.ctx.itemLocations.placeItem(t.admin, item.id, { planId: otherPlan, x: 0.1, y: 0.1 })).rejects.toMatchObject({
      status: 422,
      details: [{ field: 'location.plan_id' }],
    });
    expect((await t.ctx.items.getItemCard(manager, item.id)).item.location).toBeNull();
    expect(
      await db().selectFrom('item_history').select('id').where('item_id', '=', item.id).where('kind', '=', 'location_changed').execute(),
    ).toHaveLength(3);
  });

  it('serializes two managers placing the same item at once on its lock: each write sees the other', async () => {
    const { project, checklist, manager } = await team(t);
    const second = await makeMember(t, project, 'manager');
    const { ended } = await upload(t, manager, project.id, await solid(300, 200, 'png'), 'Lobby.png');
    const planId = ended.plan_ids[0]!;
    const item = await makeItem(t, { checklist });
    await Promise.all([
      t.ctx.itemLocations.placeItem(manager, item.id, { planId, x: 0.1, y: 0.1 }),
      t.ctx.itemLocations.placeItem(second, item.id, { planId, x: 0.9, y: 0.9 }),
    ]);
    const events = (
      await db()
        .selectFrom('events')
        .select(['data'])
        .where('item_id', '=', item.id)
        .where('type', '=', 'item.updated')
        .orderBy('id')
        .execute()
    ).map((e) => JSON.parse(e.data).changes.location);
    expect(events).toHaveLength(2);
    expect(events[0].from).toBeNull();
    // The second write read what the first wrote: no lost update.
    expect(events[1].from).toEqual(events[0].to);
    expect((await t.ctx.items.getItemCard(manager, item.id)).item.location).toEqual(events[1].to);
  });

  it('creates an item with its place in the same write ("Add item here"); a plan of another project is a 422 and no item', async () => {
    const { project, checklist, manager } = await team(t);
    const { ended } = await upload(t, manager, project.id, await solid(300, 200, 'png'), 'Kitchen.png');
    const planId = ended.plan_ids[0]!;
    const id = await t.ctx.itemEdits.createItem(manager, checklist.id, { text: 'Cracked tile', location: { planId, x: 0.3, y: 0.4 } });
    const card = (await t.ctx.items.getItemCard(manager, id)).item;
    expect(card.location).toEqual({ plan_id: planId, plan_name: 'Kitchen', x: 0.3, y: 0.4 });
    const created = await db()
      .selectFrom('events')
      .select('data')
      .where('item_id', '=', id)
      .where('type', '=', 'item.created')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(created.data).item.location).toEqual(card.location);
    const tree = await t.ctx.projects.getTree(manager, project.id);
    expect(tree.sections[0]!.checklists[0]!.items.find((i) => i.id === id)!.location).toEqual(card.location);

    const other = await makeProject(t);
    const foreign = (await upload(t, t.admin, other.id, await solid(100, 100, 'png'), 'X.png')).ended.plan_ids[0]!;
    const count = async () => (await db().selectFrom('items').select('id').where('checklist_id', '=', checklist.id).execute()).length;
    const before = await count();
    await expect(
      t.ctx.itemEdits.createItem(manager, checklist.id, { text: 'Elsewhere', location: { planId: foreign, x: 0.3, y: 0.4 } }),
    ).rejects.toMatchObject({
      status: 422,
    });
    await expect(
      t.ctx.itemEdits.createItem(manager, checklist.id, { text: 'Outside', location: { planId, x: 2, y: 0.4 } }),
    ).rejects.toMatchObject({
      status: 422,
    });
    expect(await count()).toBe(before);
  });
});
