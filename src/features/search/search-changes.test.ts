import { Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../db/migrations/index.js';
import { migrateToLatest } from '../../db/migrate.js';
import { dialects, searchServiceOf, seed, useSearchWorkspace, writer } from '../../../test/helpers/search.js';
import { type SearchVisibility, SNIPPET_MAX_LENGTH, TITLE_MAX_LENGTH } from './search.service.js';

/** Search over time and at its edges: updates, moves and deletes, length limits, paging, every cased character, the migration. */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// One suite for every dialect: vitest runs this file once per dialect project (vitest.config.ts).
describe.each(dialects)('search on $name ($mode)', ({ mode }) => {
  const { workspace, openDatabase } = useSearchWorkspace(mode);

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
    const { kysely, dialect } = await openDatabase();
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
