import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solid } from '../helpers/images.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { photos } from './item-forms.js';
import { decode, signedInClients } from './web-client.js';

/**
 * Photos that show the defect on the item page (docs/design.md §22): "Stage" and "Caption" on the upload forms, a
 * photo's stage and caption changed by its uploader or a manager, "Save markup" per role, stored once, checked as
 * any upload; the defect and fix photos side by side.
 */
let server: TestServer;
const as = signedInClients(() => server.url);
const card = async (id: number) => (await server.call(`${V1}/items/get.php?id=${id}`, { token: server.tokens.admin })).body.data.item;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** A photo of item 1001 (in progress) uploaded by the executor through the page; its id. */
async function uploaded(fields: Record<string, string> = {}) {
  const web = await as('executor');
  const page = await web.get('/items/1001');
  const form = await photos(1);
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  const response = await web.postMultipart('/items/1001/photos', form, page.text);
  expect(response.status).toBe(303);
  return Math.max(...(await card(1001)).attachments.map((a: { id: number }) => a.id));
}

async function markupForm(key: string, bytes?: Buffer, fields: Record<string, string> = {}) {
  const form = new FormData();
  form.append('_key', key);
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  const data = bytes ?? (await solid(120, 90, 'jpeg'));
  form.append('attachments[]', new Blob([new Uint8Array(data)], { type: 'image/jpeg' }), 'markup.jpg');
  return form;
}

describe('the upload forms', () => {
  it('carry "Stage" and "Caption"; the stage follows the item (fix while in progress) unless chosen', async () => {
    const web = await as('executor');
    const page = decode((await web.get('/items/1001')).text);
    expect(page).toContain('<label for="item-photos-stage">Stage</label>');
    expect(page).toContain('<label for="item-photos-caption">Caption</label>');
    expect(page).toContain('<label for="answer-photos-caption">Caption</label>');
    await uploaded({ caption: 'Crack after drying' });
    expect((await card(1001)).attachments.find((a: any) => a.caption === 'Crack after drying')).toMatchObject({ stage: 'fix' });
    await uploaded({ stage: 'defect', caption: 'As found' });
    expect((await card(1001)).attachments.find((a: any) => a.caption === 'As found')).toMatchObject({ stage: 'defect' });
  });

  it('refuse a caption over 200 characters with the message beside "Caption", storing nothing', async () => {
    const web = await as('executor');
    const page = await web.get('/items/1001');
    const before = await card(1001);
    const form = await photos(1);
    form.append('caption', 'x'.repeat(201));
    const response = await web.postMultipart('/items/1001/photos', form, page.text);
    expect(response.status).toBe(422);
    expect(response.text).toContain('id="item-photos-caption-error"');
    expect(response.text).toMatch(/id="item-photos-caption" type="text" name="caption" maxlength="200" value="x{201}" aria-invalid="true"/);
    expect(await card(1001)).toEqual(before);
  });
});

describe("a photo's stage and caption", () => {
  it('are changed by the uploader and by a manager, not by another executor or an observer (403)', async () => {
    const id = await uploaded({ caption: 'Mine' });
    const executor = await as('executor');
    let page = await executor.get('/items/1001');
    expect(decode(page.text)).toContain(`action="/items/1001/photos/${id}"`);
    expect((await executor.post(`/items/1001/photos/${id}`, { stage: 'defect', caption: 'Gap at the sill' }, page.text)).status).toBe(303);
    const manager = await as('manager');
    page = await manager.get('/items/1001');
    expect((await manager.post(`/items/1001/photos/${id}`, { stage: 'fix', caption: 'Sealed' }, page.text)).status).toBe(303);
    expect((await card(1001)).attachments.find((a: any) => a.id === id)).toMatchObject({ stage: 'fix', caption: 'Sealed' });

    const observer = await as('observer');
    page = await observer.get('/items/1001');
    expect(decode(page.text)).not.toContain(`action="/items/1001/photos/${id}"`);
    expect((await observer.post(`/items/1001/photos/${id}`, { stage: 'defect', caption: 'No' }, page.text)).status).toBe(403);
    const over = await manager.post(
      `/items/1001/photos/${id}`,
      { stage: 'defect', caption: 'y'.repeat(201) },
      (await manager.get('/items/1001')).text,
    );
    expect(over.status).toBe(422);
    expect(over.text).toContain(`id="photo-${id}-caption-error"`);
    expect((await card(1001)).attachments.find((a: any) => a.id === id)).toMatchObject({ stage: 'fix', caption: 'Sealed' });
  });
});

describe('"Save markup"', () => {
  it('stores the drawn picture linked to its photo, listed first, once however often it is sent', async () => {
    const id = await uploaded({ caption: 'Before' });
    const web = await as('executor');
    const page = await web.get('/items/1001');
    expect(decode(page.text)).toContain(`data-markup-action="/items/1001/markup/${id}"`);
    expect(page.text).toContain('data-testid="markup-canvas"');
    expect(page.text).toMatch(/\/assets\/vendor\/konva\/konva\.min\.js\?v=/);
    const first = await web.postMultipart(`/items/1001/markup/${id}`, await markupForm('markup-key-1'), page.text);
    const again = await web.postMultipart(`/items/1001/markup/${id}`, await markupForm('markup-key-1'), page.text);
    expect([first.status, again.status]).toEqual([303, 303]);
    const attachments = (await card(1001)).attachments;
    const markups = attachments.filter((a: any) => a.annotates === id);
    expect(markups).toHaveLength(1);
    expect(markups[0]).toMatchObject({ caption: 'Before', mime_type: 'image/webp' });
    expect(attachments.findIndex((a: any) => a.id === markups[0].id)).toBeLessThan(attachments.findIndex((a: any) => a.id === id));
    const after = decode((await web.get('/items/1001')).text);
    expect(after).toContain('marked up');
    expect(after).toContain('data-testid="before-after"');
  });

  it('is refused to who may not add a photo to the item (403) and to who cannot see it (404), storing nothing', async () => {
    const id = await uploaded();
    const before = await card(1001);
    for (const user of ['bystander', 'observer'] as const) {
      const web = await as(user);
      const page = await web.get('/items/1001');
      expect(page.text).not.toContain(`data-markup-action="/items/1001/markup/${id}"`);
      expect((await web.postMultipart(`/items/1001/markup/${id}`, await markupForm(`k-${user}`), page.text)).status).toBe(403);
    }
    const outsider = await as('outsider');
    const profile = await outsider.get('/profile');
    expect((await outsider.postMultipart(`/items/1001/markup/${id}`, await markupForm('k-out'), profile.text)).status).toBe(404);
    // A photo of another item named under this one: not found.
    const manager = await as('manager');
    const page = await manager.get('/items/1000');
    expect((await manager.postMultipart(`/items/1000/markup/${id}`, await markupForm('k-other'), page.text)).status).toBe(404);
    expect(await card(1001)).toEqual(before);
  });

  it('checks the picture as any upload: not an image, too small → 422, nothing stored', async () => {
    const id = await uploaded();
    const before = await card(1001);
    const web = await as('executor');
    const page = await web.get('/items/1001');
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"/>');
    for (const [key, bytes] of [
      ['k-svg', svg],
      ['k-tiny', await solid(10, 10, 'png')],
    ] as const) {
      const response = await web.postMultipart(`/items/1001/markup/${id}`, await markupForm(key, bytes), page.text);
      expect(response.status).toBe(422);
    }
    const none = new FormData();
    none.append('_key', 'k-none');
    expect((await web.postMultipart(`/items/1001/markup/${id}`, none, page.text)).status).toBe(422);
    expect(await card(1001)).toEqual(before);
  });
});
