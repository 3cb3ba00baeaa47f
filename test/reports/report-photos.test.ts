import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/domain/policy.js';
import { solid } from '../helpers/images.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { USERS } from '../helpers/workspace.js';
import { pdfImages, pdfText } from './pdf-text.js';

/**
 * The PDF report's photos (docs/design.md §22, §17): each item's defect photos beside its fix photos with their
 * captions, the answers' photos included (the fix is usually there), the marked-up picture in the place of its
 * photo; the report's times in the reader's time zone (the Profile's setting).
 */
let server: TestServer;
const dir = mkdtempSync(join(tmpdir(), 'punchlist-report-photos-'));
const executor: Actor & { name: string } = { id: USERS.executor, role: 'member', name: 'Executor' };

async function file(name: string, width: number) {
  const path = join(mkdtempSync(join(dir, 'f-')), name);
  const bytes = await solid(width, 90, 'png');
  writeFileSync(path, bytes);
  return { originalName: name, path, size: bytes.length, oversized: false };
}

beforeAll(async () => {
  server = await startTestServer();
  const { ctx } = server;
  // Item 1001 (in progress): a defect photo, marked up; an answer with the fix photo.
  const [defect] = (
    await ctx.attachments.attachToItem(executor, 1001, [await file('crack.png', 160)], undefined, {
      stage: 'defect',
      caption: 'Crack left of the door frame',
    })
  ).attachments;
  await ctx.attachments.markUp(executor, defect!.id, await file('markup.png', 170), { markupKey: 'report-1' });
  const { answer } = await ctx.answers.addAnswer(executor, 1001, {
    text: 'Filled and painted',
    prepareImages: async () => ctx.attachments.prepare([await file('fixed.png', 180)], { caption: 'Filled, sanded and painted' }),
  });
  expect(answer.attachments[0]).toMatchObject({ stage: 'fix' });
  await ctx.users.setTimeZone(USERS.manager, 'Asia/Tokyo');
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function pdfOf(token: string) {
  const res = await server.request(`${V1}/projects/report.php?id=1&format=pdf`, { token });
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

describe('the PDF report', () => {
  it("shows the defect and fix photos side by side with their captions, the answer's photo included", async () => {
    const bytes = await pdfOf(server.tokens.manager);
    const text = (await pdfText(bytes)).replace(/\s+/g, ' ');
    expect(text).toContain('Defect');
    expect(text).toContain('Fix');
    expect(text).toContain('(marked up) Crack left of the door frame');
    expect(text).toContain('Filled, sanded and painted');
    // Two printed photos for item 1001 at least: the marked-up defect and the fix (the original defect photo is not
    // printed beside its markup).
    const images = await pdfImages(bytes);
    expect(images.length).toBeGreaterThanOrEqual(2);
  });

  it("writes its times in the reader's time zone (UTC for a reader without one)", async () => {
    const manager = (await pdfText(await pdfOf(server.tokens.manager))).replace(/\s+/g, ' ');
    expect(manager).toMatch(/made \d{4}-\d{2}-\d{2} \d{2}:\d{2} GMT\+9 by/);
    const admin = (await pdfText(await pdfOf(server.tokens.admin))).replace(/\s+/g, ' ');
    expect(admin).toMatch(/made \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC by/);
  });
});
