import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { makePdf, tempFile } from '../../../test/helpers/plans.js';
import { makeMember, makeProject, type TestContext, useTestContext } from '../../../test/helpers/factories.js';

/**
 * The rendering process's limits, triggered for real (both dialects): a process given a heap too small for pdf.js
 * is killed by V8's limit, and one past its deadline by a kill; either way the upload is refused with its reason,
 * at the request (while the file is read) or in the upload's status (while it renders), and nothing of it stays:
 * no plan, no blob, no file.
 */
async function refusedUpload(t: TestContext, bytes: Buffer) {
  const project = await makeProject(t);
  const manager = await makeMember(t, project, 'manager');
  const path = tempFile(bytes, 'heavy.pdf');
  let reason: string;
  try {
    const started = await t.ctx.planUploads.startUpload(manager, project.id, { path, filename: 'heavy.pdf' });
    await t.ctx.planUploads.waitForUpload(started.id);
    const ended = await t.ctx.planUploads.uploadStatus(manager, started.id);
    expect(ended.status).toBe('failed');
    reason = ended.error!;
  } catch (err) {
    expect(err).toMatchObject({ status: 422, details: [{ field: 'file' }] });
    reason = (err as { details: { message: string }[] }).details[0]!.message;
  }
  expect(await t.ctx.db.kysely.selectFrom('plans').select('id').where('project_id', '=', project.id).execute()).toEqual([]);
  const keys: string[] = [];
  for await (const key of t.ctx.blobs.list('plans/')) keys.push(key);
  expect(keys).toEqual([]);
  expect(existsSync(path)).toBe(false);
  expect(await readdir(await t.ctx.planUploads.workFolder())).toEqual([]);
  return reason;
}

describe('a PDF that makes the renderer eat memory', () => {
  const t = useTestContext({ env: { PLAN_RENDER_MEMORY_MB: '16' } });

  it('is stopped by the process’s heap limit and refused, leaving nothing', async () => {
    expect(await refusedUpload(t, await makePdf({ pages: 2 }))).toMatch(/needs more than 16 MB of memory/);
  });
});

describe('a PDF that makes the renderer loop', () => {
  const t = useTestContext({ env: { PLAN_RENDER_TIMEOUT_SECONDS: '1' } });

  it('is stopped at the deadline and refused, leaving nothing', async () => {
    // An A0 sheet of 20 000 strokes: seconds of rasterizing, far past the 1-s deadline.
    expect(await refusedUpload(t, await makePdf({ size: 'A0', lines: 20_000 }))).toMatch(/took longer than \d+ s/);
  });
});
