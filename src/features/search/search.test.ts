import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, Migrator, sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDatabase } from '../../db/database.js';
import { migrateToLatest } from '../../db/migrate.js';
import { migrations } from '../../db/migrations/index.js';
import type { Database } from '../../db/tables.js';
import { createSearchIndexer } from './search-indexer.js';
import { createSearchRepository } from './search.repository.js';
import {
  createSearchService,
  SEARCH_ENTITY_TYPES,
  type SearchService,
  type SearchEntityType,
  type SearchQuery,
  type SearchVisibility,
  SNIPPET_MAX_LENGTH,
  TITLE_MAX_LENGTH,
} from './search.service.js';
import { createTestDatabase, testDialect } from '../../../test/helpers/database.js';

// One suite for every dialect: vitest runs this file once per dialect project (vitest.config.ts).
const NOW = '2026-01-01T00:00:00.000Z';
const ITEM_DEFAULTS = {
  status: 'pending',
  priority: 'medium',
  deadline: null,
  requires_answer: 0,
  verdict: null,
  rework_reason: null,
  rework_deadline: null,
  position: 0,
  created_at: NOW,
  updated_at: NOW,
};
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

interface Harness {
  db: Db;
  cleanup(): Promise<void>;
}

async function openSqlite(): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'punchlist-search-'));
  const db = openDatabase(`sqlite:${join(dir, 'test.db')}`);
  return {
    db,
    cleanup: async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The dialect of this test project (PUNCHLIST_TEST_DB): a temp SQLite file or a fresh PostgreSQL database. */
async function openProjectDatabase(): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'punchlist-search-'));
  const database = await createTestDatabase(dir);
  const db = openDatabase(database.url, { poolSize: 2 });
  return {
    db,
    cleanup: async () => {
      await db.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Inserts with Kysely, as the services do: the triggers do the indexing. */
function writer(db: Kysely<Database>) {
  return {
    async user(): Promise<number> {
      const row = await db
        .insertInto('users')
        .values({
          email: `u${Math.random()}@x.test`,
          name: 'U',
          role: 'member',
          password_hash: null,
          active: 1,
          created_at: NOW,
          updated_at: NOW,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },
    async project(name: string, description = ''): Promise<number> {
      const row = await db
        .insertInto('projects')
        .values({ name, description, deadline: null, verdict: null, archived: 0, created_at: NOW, updated_at: NOW })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },
    async section(project_id: number, name: string): Promise<number> {
      const row = await db
        .insertInto('sections')
        .values({ project_id, name, position: 0, created_at: NOW, updated_at: NOW })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },
    async checklist(project_id: number, section_id: number, name: string): Promise<number> {
      const row = await db
        .insertInto('checklists')
        .values({ project_id, section_id, name, position: 0, created_at: NOW, updated_at: NOW })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },
    async item(at: { project_id: number; section_id: number; checklist_id: number }, text: string, description = ''): Promise<number> {
      const row = await db
        .insertInto('items')
        .values({ ...at, ...ITEM_DEFAULTS, text, description })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },
    async items(at: { project_id: number; section_id: number; checklist_id: number }, texts: string[]): Promise<void> {
      for (let i = 0; i < texts.length; i += 500) {
        const chunk = texts.slice(i, i + 500);
        await db
          .insertInto('items')
          .values(chunk.map((text) => ({ ...at, ...ITEM_DEFAULTS, text, description: '' })))
          .execute();
      }
    },
    async comment(item_id: number, author_id: number, text: string): Promise<number> {
      const row = await db
        .insertInto('comments')
        .values({ item_id, author_id, text, created_at: NOW })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },
    async answer(item_id: number, author_id: number, text: string): Promise<number> {
      const row = await db
        .insertInto('answers')
        .values({ item_id, author_id, text, status: 'pending', created_at: NOW, updated_at: NOW })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },
    async link(item_id: number, answer_id: number | null, title: string, url: string): Promise<number> {
      const row = await db
        .insertInto('document_links')
        .values({ item_id, answer_id, kind: 'document', title, url, position: 0, created_at: NOW })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },
  };
}

/**
 * The standard data: project P with a visible section/checklist (S1/C1) and a second one (S2/C2),
 * every entity type carrying the word "zebra", and another project that must never leak in.
 */
async function seed(db: Kysely<Database>) {
  const w = writer(db);
  const user = await w.user();
  const p = await w.project('Жилой комплекс Север zebra', 'Проверка документов и смет');
  const s1 = await w.section(p, 'Раздел zebra один');
  const s2 = await w.section(p, 'Второй раздел zebra');
  const c1 = await w.checklist(p, s1, 'Чеклист zebra');
  const c2 = await w.checklist(p, s2, 'Скрытый чеклист zebra');
  const at1 = { project_id: p, section_id: s1, checklist_id: c1 };
  const at2 = { project_id: p, section_id: s2, checklist_id: c2 };
  const i1 = await w.item(at1, 'Проверить ДОКУМЕНТЫ zebra', 'Описание: ёлка');
  const i2 = await w.item(at1, 'Вторая позиция', 'zebra в описании');
  const i3 = await w.item(at2, 'Скрытая позиция zebra');
  const comment1 = await w.comment(i1, user, 'Комментарий zebra');
  const comment3 = await w.comment(i3, user, 'Скрытый комментарий zebra');
  const answer1 = await w.answer(i1, user, 'Ответ zebra');
  const itemLink = await w.link(i1, null, 'Смета zebra', 'https://example.com/a');
  const answerLink = await w.link(i1, answer1, 'Акт', 'https://example.com/zebra.pdf');
  const other = await w.project('Другой проект zebra');
  const os = await w.section(other, 'Чужой раздел zebra');
  const oc = await w.checklist(other, os, 'Чужой чеклист zebra');
  const oi = await w.item({ project_id: other, section_id: os, checklist_id: oc }, 'Чужая позиция zebra');
  await w.comment(oi, user, 'Чужой комментарий zebra');
  return { user, p, s1, s2, c1, c2, at1, at2, i1, i2, i3, comment1, comment3, answer1, itemLink, answerLink, other };
}

/**
 * On SQLite a write queues its documents for FTS5 and the indexer feeds them later (migration 010):
 * every case runs with the indexer never run ('queued': search reads the queue) and with it run before
 * each search ('indexed': FTS5 alone answers). PostgreSQL's trigram index has no queue.
 */
type IndexMode = 'queued' | 'indexed';
const modes: IndexMode[] = testDialect() === 'sqlite' ? ['queued', 'indexed'] : ['indexed'];
const dialects = modes.map((mode) => ({ name: testDialect(), mode, open: openProjectDatabase }));

function searchServiceOf(db: Kysely<Database>, dialect: 'sqlite' | 'postgres', mode: IndexMode): SearchService {
  const repository = createSearchRepository(db, dialect);
  const service = createSearchService(repository, dialect);
  const indexer = createSearchIndexer(repository, dialect, (error) => {
    throw error;
  });
  return {
    async search(visibility, query) {
      if (mode === 'indexed') await indexer.drain();
      return service.search(visibility, query);
    },
  };
}

describe.each(dialects)('search on $name ($mode)', ({ open, mode }) => {
  let harness: Harness | undefined;

  async function workspace() {
    harness = await open();
    const { kysely, dialect } = harness.db;
    await migrateToLatest(kysely);
    const data = await seed(kysely);
    const service = searchServiceOf(kysely, dialect, mode);
    const all: SearchVisibility = { projectId: data.p, checklistIds: 'all', sectionIds: 'all' };
    const search = (q: string | null, options: Partial<SearchQuery> & { visibility?: SearchVisibility } = {}) =>
      service.search(options.visibility ?? all, {
        q,
        entityType: options.entityType ?? null,
        itemId: options.itemId ?? null,
        limit: options.limit ?? 200,
        offset: options.offset ?? 0,
      });
    const keys = async (q: string | null, options: Parameters<typeof search>[1] = {}) =>
      (await search(q, options)).hits.map((h) => `${h.entity_type}:${h.entity_id}`);
    return { db: kysely, dialect, data, service, search, keys, w: writer(kysely) };
  }

  afterEach(async () => {
    await harness?.cleanup();
    harness = undefined;
  });

  it('finds every entity type, only in the project, in the documented order', async () => {
    const { data, search } = await workspace();
    const { hits, total } = await search('ZEBRA');
    expect(total).toBe(hits.length);
    expect(hits.map((h) => `${h.entity_type}:${h.entity_id}`)).toEqual([
      `project:${data.p}`,
      `section:${data.s1}`,
      `section:${data.s2}`,
      `checklist:${data.c1}`,
      `checklist:${data.c2}`,
      `item:${data.i1}`,
      `item:${data.i3}`,
      `item:${data.i2}`, // matched in its description only: after the title matches
      `answer:${data.answer1}`,
      `comment:${data.comment1}`,
      `comment:${data.comment3}`,
      `link:${data.itemLink}`,
      `link:${data.answerLink}`, // matched in its URL only
    ]);
    expect(new Set(hits.map((h) => h.entity_type))).toEqual(new Set(SEARCH_ENTITY_TYPES));
    expect(hits.every((h) => h.project_id === data.p)).toBe(true);
    const byKey = new Map(hits.map((h) => [`${h.entity_type}:${h.entity_id}`, h]));
    expect(byKey.get(`project:${data.p}`)?.item_id).toBeNull();
    expect(byKey.get(`section:${data.s1}`)?.item_id).toBeNull();
    expect(byKey.get(`checklist:${data.c1}`)?.item_id).toBeNull();
    expect(byKey.get(`item:${data.i1}`)?.item_id).toBe(data.i1);
    expect(byKey.get(`comment:${data.comment1}`)?.item_id).toBe(data.i1);
    expect(byKey.get(`answer:${data.answer1}`)?.item_id).toBe(data.i1);
    expect(byKey.get(`link:${data.answerLink}`)).toMatchObject({
      item_id: data.i1,
      title: 'Акт',
      snippet: 'https://example.com/zebra.pdf',
    });
    expect(byKey.get(`item:${data.i2}`)).toMatchObject({ title: 'Вторая позиция', snippet: 'zebra в описании' });
  });

  it('searches the project description and item descriptions', async () => {
    const { data, keys } = await workspace();
    expect(await keys('смет')).toEqual([`project:${data.p}`, `link:${data.itemLink}`]);
    expect(await keys('ёлка')).toEqual([`item:${data.i1}`]);
  });

  it('filters by entity type', async () => {
    const { data, keys } = await workspace();
    for (const type of SEARCH_ENTITY_TYPES) {
      const found = await keys('zebra', { entityType: type });
      expect(found.length).toBeGreaterThan(0);
      expect(found.every((k) => k.startsWith(`${type}:`))).toBe(true);
    }
    expect(await keys('zebra', { entityType: 'comment' })).toEqual([`comment:${data.comment1}`, `comment:${data.comment3}`]);
  });

  it('narrows to one item, with and without q', async () => {
    const { data, search, keys } = await workspace();
    const everything = await search(null, { itemId: data.i1 });
    expect(everything.total).toBe(5);
    expect(everything.hits.map((h) => `${h.entity_type}:${h.entity_id}`)).toEqual([
      `item:${data.i1}`,
      `answer:${data.answer1}`,
      `comment:${data.comment1}`,
      `link:${data.itemLink}`,
      `link:${data.answerLink}`,
    ]);
    // Without q the snippet is the start of the entity's text.
    expect(everything.hits[0]).toMatchObject({ title: 'Проверить ДОКУМЕНТЫ zebra', snippet: 'Проверить ДОКУМЕНТЫ zebra' });
    expect(await keys('   ', { itemId: data.i1, entityType: 'link' })).toEqual([`link:${data.itemLink}`, `link:${data.answerLink}`]);
    expect(await keys('zebra', { itemId: data.i1 })).toEqual([
      `item:${data.i1}`,
      `answer:${data.answer1}`,
      `comment:${data.comment1}`,
      `link:${data.itemLink}`,
      `link:${data.answerLink}`,
    ]);
    expect(await keys('ze', { itemId: data.i2 })).toEqual([`item:${data.i2}`]);
    expect(await keys('комментарий', { itemId: data.i1 })).toEqual([`comment:${data.comment1}`]);
    await expect(search(null)).rejects.toThrow();
  });

  it('matches case-insensitively with Unicode lower-casing, ё and е apart', async () => {
    const { data, w, keys } = await workspace();
    const tree = await w.item(data.at1, 'ЁЛКА новогодняя');
    const spruce = await w.item(data.at1, 'елка без точек');
    const greek = await w.item(data.at1, 'ΟΔΟΣ ΚΑΙ ΣΠΙΤΙ');
    const turkish = await w.item(data.at1, 'İstanbul ofisi');
    const german = await w.item(data.at1, 'GROẞE Straße');
    const accented = await w.item(data.at1, 'Café ÉTÉ');

    expect(await keys('ДОКУМЕНТ')).toEqual([`project:${data.p}`, `item:${data.i1}`]);
    expect(await keys('документ', { entityType: 'item' })).toEqual([`item:${data.i1}`]);
    // Title matches first, then the item whose description matches.
    expect(await keys('ёлка', { entityType: 'item' })).toEqual([`item:${tree}`, `item:${data.i1}`]);
    expect(await keys('ЁЛК', { entityType: 'item' })).toEqual([`item:${tree}`, `item:${data.i1}`]);
    expect(await keys('елка', { entityType: 'item' })).toEqual([`item:${spruce}`]);
    expect(await keys('Ёл', { entityType: 'item' })).toEqual([`item:${tree}`, `item:${data.i1}`]);
    expect(await keys('ё', { entityType: 'item' })).toEqual([`item:${tree}`, `item:${data.i1}`]);
    // Whole-string lower-casing: a word-final Σ becomes ς, the others σ.
    expect(await keys('οδος', { entityType: 'item' })).toEqual([`item:${greek}`]);
    expect(await keys('σπιτι', { entityType: 'item' })).toEqual([`item:${greek}`]);
    expect(await keys('οδοσ', { entityType: 'item' })).toEqual([]);
    // İ lower-cases to i + U+0307: "stanbul" and "i̇st" match, "ista" does not.
    expect(await keys('STANBUL', { entityType: 'item' })).toEqual([`item:${turkish}`]);
    expect(await keys('i\u0307st', { entityType: 'item' })).toEqual([`item:${turkish}`]);
    expect(await keys('i\u0307', { entityType: 'item' })).toEqual([`item:${turkish}`]);
    expect(await keys('ista', { entityType: 'item' })).toEqual([]);
    expect(await keys('große', { entityType: 'item' })).toEqual([`item:${german}`]);
    expect(await keys('ÉTÉ', { entityType: 'item' })).toEqual([`item:${accented}`]);
    expect(await keys('ete', { entityType: 'item' })).toEqual([]);
    expect(await keys('cafe', { entityType: 'item' })).toEqual([]);
  });

  it('answers 1- and 2-character queries correctly', async () => {
    const { data, w, keys, search } = await workspace();
    const one = await w.item(data.at1, 'Ж');
    const two = await w.item(data.at1, 'Уж, да');
    const none = await w.item(data.at1, 'ничего');
    expect(await keys('ж', { entityType: 'item' })).toEqual([`item:${one}`, `item:${two}`]);
    expect(await keys('УЖ', { entityType: 'item' })).toEqual([`item:${two}`]);
    expect(await keys('Ж', { entityType: 'project' })).toEqual([`project:${data.p}`]);
    expect(await keys(', ', { entityType: 'item' })).toEqual([`item:${two}`]);
    const all = await search('о', { entityType: 'item' });
    expect(all.hits.map((h) => h.entity_id)).toContain(none);
    expect(all.hits.map((h) => h.entity_id)).not.toContain(one);
    // Two characters from an astral plane are still two characters.
    const emoji = await w.item(data.at1, 'Готово 👍👍 да');
    expect(await keys('👍👍', { entityType: 'item' })).toEqual([`item:${emoji}`]);
    expect(await keys('👍👍 д', { entityType: 'item' })).toEqual([`item:${emoji}`]);
  });

  it('takes %, _, quotes, backslashes and FTS syntax literally', async () => {
    const { data, w, keys } = await workspace();
    const percent = await w.item(data.at1, 'Готово на 100% сейчас');
    const underscore = await w.item(data.at1, 'file_name.txt');
    const plain = await w.item(data.at1, 'filename100 txt');
    const double = await w.item(data.at1, 'Он сказал "да" громко');
    const single = await w.item(data.at1, "it's done");
    const backslash = await w.item(data.at1, 'C:\\Temp\\plan.pdf');
    const syntax = await w.item(data.at1, 'title_text: NEAR(a b) AND c* OR -d');
    const item = (id: number) => `item:${id}`;
    const items = { entityType: 'item' as SearchEntityType };

    expect(await keys('%', items)).toEqual([item(percent)]);
    expect(await keys('0%', items)).toEqual([item(percent)]);
    expect(await keys('100%', items)).toEqual([item(percent)]);
    expect(await keys('_', items)).toEqual([item(underscore), item(syntax)]);
    expect(await keys('e_n', items)).toEqual([item(underscore)]);
    expect(await keys('file_name', items)).toEqual([item(underscore)]);
    expect(await keys('100', items)).toEqual([item(percent), item(plain)]);
    expect(await keys('"', items)).toEqual([item(double)]);
    expect(await keys('"да"', items)).toEqual([item(double)]);
    expect(await keys('л "д', items)).toEqual([item(double)]);
    expect(await keys('"', items)).toEqual([item(double)]);
    expect(await keys("'", items)).toEqual([item(single)]);
    expect(await keys("it's", items)).toEqual([item(single)]);
    expect(await keys("'; DROP TABLE items; --", items)).toEqual([]);
    expect(await keys('\\', items)).toEqual([item(backslash)]);
    expect(await keys('\\temp\\', items)).toEqual([item(backslash)]);
    expect(await keys('p\\p', items)).toEqual([item(backslash)]);
    expect(await keys('title_text:', items)).toEqual([item(syntax)]);
    expect(await keys('NEAR(a', items)).toEqual([item(syntax)]);
    expect(await keys('c* or', items)).toEqual([item(syntax)]);
    expect(await keys('AND', items)).toEqual([item(syntax)]);
    expect(await keys('*', items)).toEqual([item(syntax)]);
    expect(await keys('\u0000ab', items)).toEqual([]);
    expect(await keys('\u0000', items)).toEqual([]);
    // Nothing was dropped along the way.
    expect(await keys('zebra', items)).toHaveLength(3);
  });

  it('never returns nor counts what the user cannot see', async () => {
    const { data, search } = await workspace();
    const restricted: SearchVisibility = { projectId: data.p, checklistIds: [data.c1], sectionIds: [data.s1] };
    const { hits, total } = await search('zebra', { visibility: restricted });
    const found = hits.map((h) => `${h.entity_type}:${h.entity_id}`);
    expect(found).toEqual([
      `project:${data.p}`,
      `section:${data.s1}`,
      `checklist:${data.c1}`,
      `item:${data.i1}`,
      `item:${data.i2}`,
      `answer:${data.answer1}`,
      `comment:${data.comment1}`,
      `link:${data.itemLink}`,
      `link:${data.answerLink}`,
    ]);
    expect(total).toBe(9);
    const paged = await search('zebra', { visibility: restricted, limit: 2, offset: 8 });
    expect(paged).toEqual({ hits: [hits[8]], total: 9 });
    // Nothing granted: the project is still there.
    const nothing: SearchVisibility = { projectId: data.p, checklistIds: [], sectionIds: [] };
    expect(await search('zebra', { visibility: nothing })).toMatchObject({ total: 1, hits: [{ entity_type: 'project' }] });
    // Short queries and item listings obey the same rule.
    expect((await search('ze', { visibility: restricted })).total).toBe(9);
    expect((await search('zebra', { visibility: restricted, entityType: 'comment' })).total).toBe(1);
    // A section seen through one of its checklists only: the section, not the other checklists.
    const viaChecklist: SearchVisibility = { projectId: data.p, checklistIds: [data.c2], sectionIds: [data.s2] };
    expect((await search('скрыт', { visibility: viaChecklist })).hits.map((h) => h.entity_type)).toEqual(['checklist', 'item', 'comment']);
  });

  it('follows updates, moves and deletes', async () => {
    const { db, data, w, keys, search } = await workspace();
    await db.updateTable('items').set({ text: 'Переименованная позиция', status: 'done' }).where('id', '=', data.i1).execute();
    expect(await keys('ДОКУМЕНТЫ', { entityType: 'item' })).toEqual([]);
    expect(await keys('переименованная')).toEqual([`item:${data.i1}`]);
    await db.updateTable('projects').set({ description: 'Новое описание' }).where('id', '=', data.p).execute();
    expect(await keys('смет', { entityType: 'project' })).toEqual([]);
    expect(await keys('новое опис')).toEqual([`project:${data.p}`]);
    await db.updateTable('sections').set({ name: 'Раздел А' }).where('id', '=', data.s1).execute();
    await db.updateTable('checklists').set({ name: 'Чеклист Б' }).where('id', '=', data.c1).execute();
    expect(await keys('раздел а')).toEqual([`section:${data.s1}`]);
    expect(await keys('чеклист б')).toEqual([`checklist:${data.c1}`]);
    await db.updateTable('comments').set({ text: 'Правка' }).where('id', '=', data.comment1).execute();
    await db.updateTable('answers').set({ text: 'Исправленный ответ' }).where('id', '=', data.answer1).execute();
    expect(await keys('правка')).toEqual([`comment:${data.comment1}`]);
    expect(await keys('исправленный')).toEqual([`answer:${data.answer1}`]);

    // Replacing an item's links is delete + insert: old rows gone, new ids found.
    await db.deleteFrom('document_links').where('item_id', '=', data.i1).where('answer_id', 'is', null).execute();
    const replaced = await w.link(data.i1, null, 'Новая смета', 'https://example.com/new');
    expect(await keys('смета')).toEqual([`link:${replaced}`]);
    expect(await keys('example.com/a')).toEqual([]);
    expect(await keys('example.com/new')).toEqual([`link:${replaced}`]);

    await db.deleteFrom('comments').where('id', '=', data.comment1).execute();
    expect(await keys('правка')).toEqual([]);

    // Moving an item moves what hangs on it: visibility follows the new checklist.
    await db.updateTable('items').set({ section_id: data.s2, checklist_id: data.c2 }).where('id', '=', data.i1).execute();
    const onlyC1: SearchVisibility = { projectId: data.p, checklistIds: [data.c1], sectionIds: [data.s1] };
    expect(await keys('исправленный', { visibility: onlyC1 })).toEqual([]);
    expect(await keys('исправленный')).toEqual([`answer:${data.answer1}`]);

    // Deleting an item with everything on it.
    await db.deleteFrom('document_links').where('item_id', '=', data.i1).execute();
    await db.deleteFrom('answers').where('item_id', '=', data.i1).execute();
    await db.deleteFrom('items').where('id', '=', data.i1).execute();
    expect(await search(null, { itemId: data.i1 })).toEqual({ hits: [], total: 0 });

    // A transaction that fails leaves the index as it was.
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.updateTable('items').set({ text: 'Откатится' }).where('id', '=', data.i2).execute();
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    expect(await keys('откатится')).toEqual([]);
    expect(await keys('вторая позиция')).toEqual([`item:${data.i2}`]);
  });

  it('keeps titles and snippets within their limits', async () => {
    const { data, w, search } = await workspace();
    const filler = 'слово '.repeat(60); // 360 characters
    const long = `${filler}НАХОДКА\nв середине\n${filler}`;
    await w.item(data.at1, long, `${'описание '.repeat(40)}глубоко внутри ${'хвост '.repeat(40)}`);
    const [hit] = (await search('находка')).hits;
    expect(hit).toBeDefined();
    expect(hit!.title.length).toBeLessThanOrEqual(TITLE_MAX_LENGTH);
    expect(hit!.title.endsWith('…')).toBe(true);
    expect(hit!.title.startsWith('слово слово')).toBe(true);
    expect(hit!.snippet.length).toBeLessThanOrEqual(SNIPPET_MAX_LENGTH);
    expect(hit!.snippet).toContain('НАХОДКА в середине');
    expect(hit!.snippet.startsWith('…слово')).toBe(true);
    expect(hit!.snippet.endsWith('…')).toBe(true);
    expect(hit!.snippet).not.toContain('\n');

    const [body] = (await search('глубоко внутри')).hits;
    expect(body!.snippet.length).toBeLessThanOrEqual(SNIPPET_MAX_LENGTH);
    expect(body!.snippet).toContain('глубоко внутри');

    // Astral characters are never cut in half.
    await w.item(data.at1, `${'👍'.repeat(200)} конец`);
    const [emoji] = (await search('конец')).hits;
    expect(emoji!.title.length).toBeLessThanOrEqual(TITLE_MAX_LENGTH);
    expect(emoji!.snippet.length).toBeLessThanOrEqual(SNIPPET_MAX_LENGTH);
    expect(emoji!.snippet).toContain('конец');
    for (const text of [emoji!.title, emoji!.snippet]) expect(text).not.toMatch(LONE_SURROGATE);

    // A match at the very start and at the very end.
    await w.item(data.at1, `начало ${'x'.repeat(400)} финиш`);
    const [start] = (await search('начало')).hits;
    expect(start!.snippet.startsWith('начало')).toBe(true);
    const [end] = (await search('финиш')).hits;
    expect(end!.snippet.endsWith('финиш')).toBe(true);
    expect(end!.snippet.length).toBeLessThanOrEqual(SNIPPET_MAX_LENGTH);
  });

  it('pages stably', async () => {
    const { search } = await workspace();
    const full = await search('zebra');
    const pages = [];
    for (let offset = 0; offset < full.total; offset += 3) pages.push(...(await search('zebra', { limit: 3, offset })).hits);
    expect(pages).toEqual(full.hits);
    expect(await search('zebra', { offset: 100 })).toEqual({ hits: [], total: full.total });
  });

  it('finds every cased character the way JavaScript lower-cases it', async () => {
    // Guards the list of FTS5 folding gaps: a SQLite or Node upgrade that widens them fails here.
    const { data, w, search } = await workspace();
    const cased: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp += 1) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      if (ch.toLowerCase() !== ch) cased.push(ch);
    }
    // The service enumerates the first two planes only.
    expect(cased.every((ch) => ch.codePointAt(0)! <= 0x1ffff)).toBe(true);
    const texts = cased.map((ch) => `qj${ch}vw`);
    await w.items(data.at1, [...texts, 'qjΣ vw', 'xİ', 'İz']);
    const missed: string[] = [];
    for (const text of [...texts, 'qjΣ vw']) {
      const { hits } = await search(text.toLowerCase(), { entityType: 'item', limit: 200 });
      if (!hits.some((h) => h.title === text)) missed.push(text);
    }
    expect(missed).toEqual([]);
    const titles = async (q: string) => (await search(q, { entityType: 'item' })).hits.map((h) => h.title);
    expect(await titles('xi')).toEqual(['xİ']);
    expect(await titles('\u0307z')).toEqual(['İz']);
  });

  it('indexes what existed before the migration', async () => {
    harness = await open();
    const { kysely, dialect } = harness.db;
    const migrator = new Migrator({ db: kysely, provider: { getMigrations: async () => migrations } });
    const first = await migrator.migrateTo('001-initial');
    expect(first.error).toBeUndefined();
    const data = await seed(kysely);
    expect(await migrateToLatest(kysely)).toContain('002-search');
    const service = searchServiceOf(kysely, dialect, mode);
    const result = await service.search(
      { projectId: data.p, checklistIds: 'all', sectionIds: 'all' },
      { q: 'zebra', entityType: null, itemId: null, limit: 50, offset: 0 },
    );
    expect(result.total).toBe(13);
    const short = await service.search(
      { projectId: data.p, checklistIds: 'all', sectionIds: 'all' },
      { q: 'Ёл', entityType: null, itemId: null, limit: 50, offset: 0 },
    );
    expect(short.hits.map((h) => h.entity_id)).toEqual([data.i1]);
    // And keeps following writes afterwards.
    await writer(kysely).comment(data.i2, data.user, 'После миграции');
    const after = await service.search(
      { projectId: data.p, checklistIds: 'all', sectionIds: 'all' },
      { q: 'после миграции', entityType: null, itemId: null, limit: 50, offset: 0 },
    );
    expect(after.total).toBe(1);
  });
});

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
    const indexer = createSearchIndexer(repository, 'sqlite', (error) => {
      throw error;
    });
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
    const indexer = createSearchIndexer(createSearchRepository(kysely, 'sqlite'), 'sqlite', (error) => {
      throw error;
    });
    const comment = await writer(kysely).comment(data.i2, data.user, 'Фоновый индексатор гелиос');
    indexer.start();
    const deadline = Date.now() + 5000;
    while ((await queued()) !== 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await indexer.stop();
    expect(await queued()).toBe(0);
    expect(await inFts('гелиос')).toEqual([await docId('comment', comment)]);
  });
});
