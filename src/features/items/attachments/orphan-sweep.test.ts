import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../shared/config.js';
import { type AppContext, createContext } from '../../../composition/context.js';
import { createTestDatabase, type TestDatabase, testDialect } from '../../../../test/helpers/database.js';
import { buildWorkspace } from '../../../../test/helpers/workspace.js';
import { importFixture } from '../../fixtures/import.service.js';
import { SUSPICIOUS_ORPHANS, sweepOrphanBlobs } from './orphan-sweep.js';

let dir: string;
let database: TestDatabase;
let ctx: AppContext;
const MINUTE = 60_000;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'punchlist-sweep-'));
  database = await createTestDatabase(dir, testDialect(), { migrated: true });
  ctx = await createContext(
    loadConfig({ DATABASE_URL: database.url, STORAGE_URL: `file:${join(dir, 'storage')}`, DATA_DIR: dir, SESSION_SECRET: 'x' }),
  );
  await importFixture(ctx.db.kysely, ctx.db.dialect, buildWorkspace().fixture, ctx.clock);
});

afterEach(async () => {
  await ctx.close();
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** A file in the disk store, last modified `ageMs` ago. */
function put(relative: string, ageMs: number) {
  const path = join(dir, 'storage', relative);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, 'x');
  const at = new Date(Date.now() - ageMs);
  utimesSync(path, at, at);
}

async function keys() {
  const out: string[] = [];
  for (const prefix of ['items/', 'answers/', 'other/']) for await (const key of ctx.blobs.list(prefix)) out.push(key);
  return out.sort();
}

async function referenced(path: string) {
  await ctx.db.kysely
    .insertInto('attachments')
    .values({
      item_id: 1000,
      answer_id: null,
      original_name: 'a.png',
      mime_type: 'image/webp',
      path,
      size: 1,
      width: 16,
      height: 16,
      uploaded_by: 1,
      created_at: new Date().toISOString(),
    })
    .execute();
}

describe('sweepOrphanBlobs', () => {
  beforeEach(async () => {
    await referenced('items/1000/kept-old.webp');
    await referenced('items/1000/kept-new.webp');
    put('items/1000/kept-old.webp', 60 * MINUTE);
    put('items/1000/kept-new.webp', 0);
    put('items/1000/orphan-old.webp', 60 * MINUTE);
    put('answers/7000/orphan-old.webp', 60 * MINUTE);
    put('items/1001/orphan-new.webp', MINUTE);
    put('other/not-an-attachment.webp', 60 * MINUTE);
    put('.tmp/old.part', 60 * MINUTE);
    put('.tmp/new.part', 0);
  });

  it('spares orphans and temp files younger than the grace period, and every blob that has a row', async () => {
    const result = await sweepOrphanBlobs({ db: ctx.db.kysely, blobs: ctx.blobs }, { graceMs: 10 * MINUTE });
    expect(result).toEqual({ scanned: 5, removed: 2, spared: 1, leftovers: 1, refused: false });
    expect(await keys()).toEqual([
      'items/1000/kept-new.webp',
      'items/1000/kept-old.webp',
      'items/1001/orphan-new.webp',
      'other/not-an-attachment.webp',
    ]);
    expect(readdirSync(join(dir, 'storage', '.tmp'))).toEqual(['new.part']);
  });

  it('with no grace period (start-up, nothing in flight) removes every orphan and every temp file', async () => {
    const result = await sweepOrphanBlobs({ db: ctx.db.kysely, blobs: ctx.blobs }, { graceMs: 0 });
    expect(result).toMatchObject({ removed: 3, spared: 0, leftovers: 2 });
    expect(await keys()).toEqual(['items/1000/kept-new.webp', 'items/1000/kept-old.webp', 'other/not-an-attachment.webp']);
    expect(readdirSync(join(dir, 'storage', '.tmp'))).toEqual([]);
  });

  it('deletes nothing when most of the storage has no rows: a database that is not this storage’s', async () => {
    for (let i = 0; i < SUSPICIOUS_ORPHANS; i++) put(`items/2000/foreign-${i}.webp`, 60 * MINUTE);
    const before = await keys();
    const result = await sweepOrphanBlobs({ db: ctx.db.kysely, blobs: ctx.blobs }, { graceMs: 0 });
    expect(result).toMatchObject({ refused: true, removed: 0, scanned: SUSPICIOUS_ORPHANS + 5 });
    expect(await keys()).toEqual(before);
  });
});
