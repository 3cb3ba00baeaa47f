import { describe, expect, it } from 'vitest';
import { dialects, useSearchWorkspace } from '../../../test/helpers/search.js';
import { SEARCH_ENTITY_TYPES, type SearchEntityType, type SearchVisibility } from './search.service.js';

/** What search finds and for whom: entity types, order, filters, case and literal matching, visibility. */

// One suite for every dialect: vitest runs this file once per dialect project (vitest.config.ts).
describe.each(dialects)('search on $name ($mode)', ({ mode }) => {
  const { workspace } = useSearchWorkspace(mode);

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

  it('ranks a title that holds the query in another case above a description that holds it as written, snippets from the right text', async () => {
    const { data, w, search } = await workspace();
    const titled = await w.item(data.at1, 'Крепёж ФАСАДА по оси 3', 'описание: фасада, как написано');
    const described = await w.item(data.at1, 'Позиция без слова', 'Проверить фасада крепление у входа');
    const capitalised = await w.item(data.at1, 'Ещё позиция', 'ФАСАДА панели, вторая захватка');
    const { hits, total } = await search('фасада', { entityType: 'item' });
    expect(total).toBe(3);
    expect(hits.map((h) => [h.entity_id, h.title, h.snippet])).toEqual([
      [titled, 'Крепёж ФАСАДА по оси 3', 'Крепёж ФАСАДА по оси 3'],
      [described, 'Позиция без слова', 'Проверить фасада крепление у входа'],
      [capitalised, 'Ещё позиция', 'ФАСАДА панели, вторая захватка'],
    ]);
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

  it("lists the matching items (the web's text filter) exactly as the hits name them, visibility included", async () => {
    const { data, search, service } = await workspace();
    const restricted: SearchVisibility = { projectId: data.p, checklistIds: [data.c1], sectionIds: [data.s1] };
    const all: SearchVisibility = { projectId: data.p, checklistIds: 'all', sectionIds: 'all' };
    for (const visibility of [all, restricted]) {
      for (const q of ['zebra', 'ze', 'скрыт', 'ZEBRA', 'nothing like it']) {
        const { hits } = await search(q, { visibility, limit: 1000 });
        const named = new Set(hits.flatMap((h) => (h.item_id === null ? [] : [h.item_id])));
        expect(await service.itemIds(visibility, q), `${q} in ${JSON.stringify(visibility)}`).toEqual(named);
      }
    }
    // Through a comment, an answer and a link as well as the item's own text.
    expect(await service.itemIds(restricted, 'zebra')).toEqual(new Set([data.i1, data.i2]));
  });
});
