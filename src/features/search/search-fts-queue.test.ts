import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../db/migrate.js';
import { type Harness, NOW, openSqlite, seed, writer } from '../../../test/helpers/search.js';
import { createJobRunner } from '../../jobs/job-runner.js';
import { createJobStore } from '../../jobs/job-store.js';
import { systemClock } from '../../shared/clock.js';
import { createSearchIndexer, indexQueued } from './search-indexer.js';
import { createSearchRepository } from './search.repository.js';
import { createSearchService, type SearchVisibility } from './search.service.js';

/** SQLite's search index: the triggers of the migration and the FTS5 queue the indexer feeds (on any test project). */

describe('search migration on sqlite', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await openSqlite();
    await migrateToLatest(harness.db.kysely);
  });
  afterAll(async () => harness.cleanup());

  it('leaves status and planning updates alone', async () => {
    const { kysely } = harness.db;
    const data = await seed(kysely);
    const before = await sql<{ n: number }>`SELECT count(*) AS n FROM search_docs`.execute(kysely);
    await kysely.updateTable('items').set({ status: 'done', priority: 'high', updated_at: NOW }).where('id', '=', data.i1).execute();
    const after = await sql<{ n: number }>`SELECT count(*) AS n FROM search_docs`.execute(kysely);
    expect(after.rows).toEqual(before.rows);
    const trigger = await sql<{ sql: string }>`SELECT sql FROM sqlite_master WHERE name = 'search_items_update'`.execute(kysely);
    expect(trigger.rows[0]?.sql).toContain('UPDATE OF text, description, project_id, section_id, checklist_id');
  });

  /** The documents FTS5 itself holds for a phrase (no queue, no check of the current text). */
  const inFts = async (phrase: string) =>
    (
      await sql<{
        doc: number;
      }>`SELECT rowid & 4294967295 AS doc FROM search_fts WHERE search_fts MATCH ${`"${phrase}"`} ORDER BY rowid`.execute(harness.db.kysely)
    ).rows.map((r) => r.doc);
  const docId = async (type: string, id: number) =>
    (await sql<{ id: number }>`SELECT id FROM search_docs WHERE entity_type = ${type} AND entity_id = ${id}`.execute(harness.db.kysely))
      .rows[0]?.id;
  const queued = async () => (await sql<{ n: number }>`SELECT count(*) AS n FROM search_fts_queue`.execute(harness.db.kysely)).rows[0]?.n;

  it('feeds FTS5 from the queue outside the writes, and leaves nothing stale in it', async () => {
    const { kysely } = harness.db;
    const repository = createSearchRepository(kysely, 'sqlite');
    const indexer = { drain: () => indexQueued(repository, 'sqlite') };
    await indexer.drain();
    const data = await seed(kysely);
    const w = writer(kysely);
    const all: SearchVisibility = { projectId: data.p, checklistIds: 'all', sectionIds: 'all' };
    const service = createSearchService(repository, 'sqlite');
    const found = async (q: string) =>
      (await service.search(all, { q, entityType: null, itemId: null, limit: 50, offset: 0 })).hits.map(
        (h) => `${h.entity_type}:${h.entity_id}`,
      );

    // Written and committed, not yet in FTS5: found through the queue.
    const comment = await w.comment(data.i1, data.user, 'Очередь индекса квазар');
    const doc = await docId('comment', comment);
    expect(await inFts('квазар')).toEqual([]);
    expect(await found('квазар')).toEqual([`comment:${comment}`]);
    expect(await indexer.drain()).toBeGreaterThan(0);
    expect(await queued()).toBe(0);
    expect(await inFts('квазар')).toEqual([doc]);
    expect(await found('квазар')).toEqual([`comment:${comment}`]);

    // Written, then changed, before the indexer ran (several queue rows, nothing in FTS5): found once.
    const edited = await w.comment(data.i1, data.user, 'Очередь индекса галактика');
    await kysely.updateTable('comments').set({ text: 'Очередь индекса галактика, исправлено' }).where('id', '=', edited).execute();
    const editedDoc = await docId('comment', edited);
    const rows = await sql<{ n: number }>`SELECT count(*) AS n FROM search_fts_queue WHERE doc_id = ${editedDoc}`.execute(kysely);
    expect(rows.rows[0]?.n).toBeGreaterThanOrEqual(2);
    expect(await found('галактика')).toEqual([`comment:${edited}`]);
    await kysely.deleteFrom('comments').where('id', '=', edited).execute();
    await indexer.drain();

    // A text change: the old text leaves FTS5 once indexed, and is never found meanwhile.
    await kysely.updateTable('comments').set({ text: 'Очередь индекса пульсар' }).where('id', '=', comment).execute();
    expect(await found('квазар')).toEqual([]);
    expect(await found('пульсар')).toEqual([`comment:${comment}`]);
    await indexer.drain();
    expect(await inFts('квазар')).toEqual([]);
    expect(await inFts('пульсар')).toEqual([doc]);

    // The newest document deleted, then a new one takes its rowid: the old text goes, the new one is indexed.
    await kysely.deleteFrom('comments').where('id', '=', comment).execute();
    const next = await w.comment(data.i1, data.user, 'Очередь индекса туманность');
    expect(await docId('comment', next)).toBe(doc);
    expect(await found('пульсар')).toEqual([]);
    expect(await found('туманность')).toEqual([`comment:${next}`]);
    await indexer.drain();
    expect(await inFts('пульсар')).toEqual([]);
    expect(await inFts('туманность')).toEqual([doc]);

    // Created, deleted and created again before the indexer ran: indexed once, as it is now.
    await kysely.deleteFrom('comments').where('id', '=', next).execute();
    const third = await w.comment(data.i1, data.user, 'Очередь индекса комета');
    await kysely.deleteFrom('comments').where('id', '=', third).execute();
    const fourth = await w.comment(data.i1, data.user, 'Очередь индекса астероид');
    await indexer.drain();
    expect(await inFts('туманность')).toEqual([]);
    expect(await inFts('комета')).toEqual([]);
    expect(await inFts('астероид')).toEqual([await docId('comment', fourth)]);
    expect(await queued()).toBe(0);

    // A section moved to another project: its documents are found there, under that project's rowids.
    const other = await w.project('Другой проект');
    await w.comment(data.i1, data.user, 'Переезд раздела меридиан');
    await indexer.drain();
    await kysely.updateTable('sections').set({ project_id: other }).where('id', '=', data.s1).execute();
    const inOther: SearchVisibility = { projectId: other, checklistIds: 'all', sectionIds: 'all' };
    const foundIn = async (visibility: SearchVisibility, q: string) =>
      (await service.search(visibility, { q, entityType: null, itemId: null, limit: 50, offset: 0 })).total;
    for (const stage of ['queued', 'indexed']) {
      if (stage === 'indexed') await indexer.drain();
      expect(await foundIn(inOther, 'меридиан'), stage).toBe(1);
      expect(await foundIn(all, 'меридиан'), stage).toBe(0);
    }
    const moved = await sql<{ n: number }>`SELECT count(*) AS n FROM search_fts WHERE search_fts MATCH '"меридиан"'
      AND rowid >= CAST(${other} AS INTEGER) * 4294967296 AND rowid < (CAST(${other} AS INTEGER) + 1) * 4294967296`.execute(kysely);
    expect(moved.rows[0]?.n).toBe(1);
  });

  it('indexes in the background once started, and stops', async () => {
    const { kysely } = harness.db;
    const data = await seed(kysely);
    const errors: unknown[] = [];
    const jobs = createJobRunner({ store: createJobStore(kysely), clock: systemClock, onError: (error) => errors.push(error) });
    const indexer = createSearchIndexer(createSearchRepository(kysely, 'sqlite'), 'sqlite', jobs);
    const comment = await writer(kysely).comment(data.i2, data.user, 'Фоновый индексатор гелиос');
    indexer.start();
    const deadline = Date.now() + 5000;
    while ((await queued()) !== 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await indexer.stop();
    expect(errors).toEqual([]);
    expect(await queued()).toBe(0);
    expect(await inFts('гелиос')).toEqual([await docId('comment', comment)]);
  });
});
