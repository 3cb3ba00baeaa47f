/**
 * Benchmark: project search through the search service (trigram index + exact check) against the
 * same query done as a full scan of the base tables with LIKE, measured in the same run on the same
 * generated workspace (SQLite file in a temp directory).
 * Run: node --import tsx bench/search.ts   (not part of npm test)
 * Env: ITEMS (100000), PROJECTS (5), RUNS (40), KEEP=1 keeps the temp database.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type Kysely, sql } from 'kysely';
import { openDatabase } from '../src/db/database.js';
import { random } from './lib/random.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { Database } from '../src/db/tables.js';
import { indexQueued } from '../src/features/search/search-indexer.js';
import { createSearchRepository } from '../src/features/search/search.repository.js';
import { createSearchService, type SearchVisibility } from '../src/features/search/search.service.js';

const ITEMS = Number(process.env.ITEMS ?? 100_000);
const PROJECTS = Number(process.env.PROJECTS ?? 5);
const RUNS = Number(process.env.RUNS ?? 40);
const COMMENTS_PER_ITEM = 2;
const ANSWERS_PER_ITEM = 1;
const LINKS_PER_ITEM = 0.5;
const SECTIONS_PER_PROJECT = 4;
const CHECKLISTS_PER_SECTION = 5;
const NOW = '2026-01-01T00:00:00.000Z';

const WORDS = (
  'проверка проверить документации смета объект этаж секция монтаж бетон арматура кладка кровля фасад ' +
  'окно дверь лестница лифт вентиляция отопление водопровод канализация электрика щит кабель розетка ' +
  'освещение отделка штукатурка покраска плитка пол потолок стена перегородка фундамент котлован ' +
  'гидроизоляция утеплитель паспорт сертификат акт исполнительная схема замечание устранить срок ' +
  'подрядчик заказчик технадзор приемка журнал работ материал поставка опалубка бригада монтажник ' +
  'inspection report drawing revision contractor handover defect ceiling window concrete steel'
).split(' ');

function generator(rand: () => number) {
  const word = () => WORDS[Math.floor(rand() * WORDS.length)]!;
  const words = (min: number, max: number) => {
    const n = min + Math.floor(rand() * (max - min + 1));
    return Array.from({ length: n }, word).join(' ');
  };
  /** Rare tokens make the selective queries; the common phrase makes a broad 12-character one. */
  const decorate = (text: string) => {
    const r = rand();
    if (r < 0.0002) return `${text} ЖБИ`;
    if (r < 0.0005) return `${text} шпунт Ларсена`;
    if (r < 0.0008) return `${text} опалубка ПЩ-7`;
    if (r < 0.1) return `Проверка документации: ${text}`;
    return text;
  };
  return {
    itemText: () => decorate(words(3, 8)),
    description: () => (rand() < 0.5 ? '' : decorate(words(5, 20))),
    comment: () => decorate(words(4, 18)),
    answer: () => decorate(words(6, 25)),
  };
}

/** Multi-row inserts sized under SQLite's 32 766 bound parameters. */
async function insertAll<T extends keyof Database & string>(db: Kysely<Database>, table: T, rows: Record<string, unknown>[]) {
  if (rows.length === 0) return;
  const perRow = Object.keys(rows[0]!).length;
  const chunk = Math.floor(30_000 / perRow);
  for (let i = 0; i < rows.length; i += chunk) {
    await db
      .insertInto(table)
      .values(rows.slice(i, i + chunk) as never)
      .execute();
  }
}

async function generate(db: Kysely<Database>) {
  const rand = random(42);
  const text = generator(rand);
  const counts = { projects: 0, sections: 0, checklists: 0, items: 0, comments: 0, answers: 0, links: 0 };
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('users')
      .values({
        email: 'bench@punchlist.test',
        name: 'Bench',
        role: 'admin',
        password_hash: null,
        active: 1,
        created_at: NOW,
        updated_at: NOW,
      })
      .execute();
    const itemsPerProject = Math.ceil(ITEMS / PROJECTS);
    let itemId = 0;
    let answerId = 0;
    for (let p = 1; p <= PROJECTS; p++) {
      await insertAll(trx, 'projects', [
        {
          id: p,
          name: `Объект ${p}: жилой дом`,
          description: text.description(),
          deadline: null,
          verdict: null,
          archived: 0,
          created_at: NOW,
          updated_at: NOW,
        },
      ]);
      const checklists: { section_id: number; checklist_id: number }[] = [];
      for (let s = 0; s < SECTIONS_PER_PROJECT; s++) {
        const sectionId = (p - 1) * SECTIONS_PER_PROJECT + s + 1;
        await insertAll(trx, 'sections', [
          { id: sectionId, project_id: p, name: `Секция ${s + 1}`, position: s, created_at: NOW, updated_at: NOW },
        ]);
        const rows = [];
        for (let c = 0; c < CHECKLISTS_PER_SECTION; c++) {
          const checklistId = (sectionId - 1) * CHECKLISTS_PER_SECTION + c + 1;
          checklists.push({ section_id: sectionId, checklist_id: checklistId });
          rows.push({
            id: checklistId,
            project_id: p,
            section_id: sectionId,
            name: `Чек-лист ${c + 1}: ${text.itemText()}`,
            position: c,
            created_at: NOW,
            updated_at: NOW,
          });
        }
        await insertAll(trx, 'checklists', rows);
      }
      counts.projects += 1;
      counts.sections += SECTIONS_PER_PROJECT;
      counts.checklists += checklists.length;

      const items = [];
      const comments = [];
      const answers = [];
      const links = [];
      for (let n = 0; n < itemsPerProject && itemId < ITEMS; n++) {
        itemId += 1;
        const at = checklists[n % checklists.length]!;
        items.push({
          id: itemId,
          project_id: p,
          ...at,
          text: text.itemText(),
          description: text.description(),
          status: 'pending',
          priority: 'medium',
          position: n,
          created_at: NOW,
          updated_at: NOW,
        });
        for (let k = 0; k < COMMENTS_PER_ITEM; k++) comments.push({ item_id: itemId, author_id: 1, text: text.comment(), created_at: NOW });
        for (let k = 0; k < ANSWERS_PER_ITEM; k++) {
          answerId += 1;
          answers.push({
            id: answerId,
            item_id: itemId,
            author_id: 1,
            text: text.answer(),
            status: 'pending',
            created_at: NOW,
            updated_at: NOW,
          });
        }
        if (rand() < LINKS_PER_ITEM) {
          links.push({
            item_id: itemId,
            answer_id: null,
            kind: 'document',
            title: text.itemText(),
            url: `https://docs.example.com/${itemId}.pdf`,
            position: 0,
            created_at: NOW,
          });
        }
      }
      await insertAll(trx, 'items', items);
      await insertAll(trx, 'comments', comments);
      await insertAll(trx, 'answers', answers);
      await insertAll(trx, 'document_links', links);
      counts.items += items.length;
      counts.comments += comments.length;
      counts.answers += answers.length;
      counts.links += links.length;
    }
  });
  return counts;
}

/**
 * The same question without the search layer: LIKE over every searchable column of the project,
 * all matches fetched (as the total needs). LIKE folds ASCII only, so this is a cost baseline, not
 * a correct answer for Cyrillic.
 */
async function scanWithLike(db: Kysely<Database>, projectId: number, q: string): Promise<number> {
  const pattern = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const { rows } = await sql<{ entity_type: string; entity_id: number }>`
    SELECT 'project' AS entity_type, id AS entity_id FROM projects
      WHERE id = ${projectId} AND (name LIKE ${pattern} ESCAPE '\\' OR description LIKE ${pattern} ESCAPE '\\')
    UNION ALL SELECT 'section', id FROM sections WHERE project_id = ${projectId} AND name LIKE ${pattern} ESCAPE '\\'
    UNION ALL SELECT 'checklist', id FROM checklists WHERE project_id = ${projectId} AND name LIKE ${pattern} ESCAPE '\\'
    UNION ALL SELECT 'item', id FROM items
      WHERE project_id = ${projectId} AND (text LIKE ${pattern} ESCAPE '\\' OR description LIKE ${pattern} ESCAPE '\\')
    UNION ALL SELECT 'comment', c.id FROM comments c JOIN items i ON i.id = c.item_id
      WHERE i.project_id = ${projectId} AND c.text LIKE ${pattern} ESCAPE '\\'
    UNION ALL SELECT 'answer', a.id FROM answers a JOIN items i ON i.id = a.item_id
      WHERE i.project_id = ${projectId} AND a.text LIKE ${pattern} ESCAPE '\\'
    UNION ALL SELECT 'link', l.id FROM document_links l JOIN items i ON i.id = l.item_id
      WHERE i.project_id = ${projectId} AND (l.title LIKE ${pattern} ESCAPE '\\' OR l.url LIKE ${pattern} ESCAPE '\\')
  `.execute(db);
  return rows.length;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function time(runs: number, fn: () => Promise<unknown>) {
  for (let i = 0; i < 3; i++) await fn(); // warm-up: page cache, JIT, statement cache
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  const round = (n: number) => Math.round(n * 100) / 100;
  return { p50: round(percentile(samples, 50)), p95: round(percentile(samples, 95)), runs };
}

const QUERIES = [
  { label: 'selective', q: 'жби' },
  { label: 'selective', q: 'шпунт' },
  { label: 'selective', q: 'опалубка пщ-' },
  { label: 'broad', q: 'про' },
  { label: 'broad', q: 'монта' },
  { label: 'broad', q: 'проверка док' },
  { label: 'short (scan path)', q: 'пщ' },
  { label: 'short (scan path)', q: 'ж' },
];

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'punchlist-bench-search-'));
  const file = join(dir, 'bench.db');
  const handle = openDatabase(`sqlite:${file}`);
  const db = handle.kysely;
  try {
    await migrateToLatest(db);
    let t = performance.now();
    const counts = await generate(db);
    const generationSeconds = Math.round((performance.now() - t) / 100) / 10;
    await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db);
    const version = await sql<{ v: string }>`SELECT sqlite_version() AS v`.execute(db);
    const docs = await sql<{ n: number }>`SELECT count(*) AS n FROM search_docs`.execute(db);
    const dbBytes = statSync(file).size;
    console.log(
      `generated in ${generationSeconds} s: ${JSON.stringify(counts)}, ${docs.rows[0]?.n} search documents, ${(dbBytes / 1e6).toFixed(0)} MB`,
    );

    const repository = createSearchRepository(db, 'sqlite');
    await indexQueued(repository, 'sqlite');
    const service = createSearchService(repository, 'sqlite');
    const projectId = 1;
    const everything: SearchVisibility = { projectId, checklistIds: 'all', sectionIds: 'all' };
    const limited: SearchVisibility = { projectId, checklistIds: [1, 2, 3], sectionIds: [1] };
    const results = [];
    for (const { label, q } of QUERIES) {
      for (const [visibilityLabel, visibility] of [
        ['all', everything],
        ['3 checklists', limited],
      ] as const) {
        if (visibilityLabel !== 'all' && label !== 'selective') continue;
        const query = { q, entityType: null, itemId: null, limit: 50, offset: 0 };
        const { total } = await service.search(visibility, query);
        const viaService = await time(RUNS, () => service.search(visibility, query));
        const everythingVisible = visibilityLabel === 'all';
        const row = {
          label,
          q,
          characters: [...q].length,
          visibility: visibilityLabel,
          total,
          service: viaService,
          // Rows the LIKE scan finds: fewer where the data has upper-case Cyrillic.
          scan_rows: everythingVisible ? await scanWithLike(db, projectId, q) : null,
          scan: everythingVisible ? await time(Math.max(5, Math.floor(RUNS / 4)), () => scanWithLike(db, projectId, q)) : null,
        };
        results.push(row);
      }
    }

    // What the triggers cost a write: single-row comment inserts (autocommit), with and without them.
    t = performance.now();
    const insertComment = (n: number) =>
      db
        .insertInto('comments')
        .values({ item_id: (n % counts.items) + 1, author_id: 1, text: `Замечание ${n}: ${WORDS[n % WORDS.length]}`, created_at: NOW })
        .execute();
    const withTriggers = await time(500, () => insertComment(Math.floor(Math.random() * 1e6)));
    await sql`DROP TRIGGER search_comments_insert`.execute(db);
    const withoutTriggers = await time(500, () => insertComment(Math.floor(Math.random() * 1e6)));

    console.log('');
    console.log(
      `project ${projectId} of ${PROJECTS}; limit 50; p50 / p95 in ms over ${RUNS} runs (scan: ${Math.max(5, Math.floor(RUNS / 4))} runs)`,
    );
    console.log(
      ['query', 'chars', 'kind', 'visibility', 'total', 'service p50', 'service p95', 'LIKE rows', 'LIKE scan p50', 'LIKE scan p95'].join(
        '\t',
      ),
    );
    for (const r of results) {
      console.log(
        [
          JSON.stringify(r.q),
          r.characters,
          r.label,
          r.visibility,
          r.total,
          r.service.p50,
          r.service.p95,
          r.scan_rows ?? '',
          r.scan?.p50 ?? '',
          r.scan?.p95 ?? '',
        ].join('\t'),
      );
    }
    console.log(
      `comment insert p50/p95: ${withTriggers.p50}/${withTriggers.p95} ms with the search triggers, ${withoutTriggers.p50}/${withoutTriggers.p95} ms without`,
    );

    const date = new Date().toISOString().slice(0, 10);
    mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
    const out = new URL(`./results/search-${date}.json`, import.meta.url);
    const report = {
      date: new Date().toISOString(),
      node: process.version,
      sqlite: version.rows[0]?.v,
      workspace: { ...counts, search_documents: docs.rows[0]?.n, database_bytes: dbBytes, generation_seconds: generationSeconds },
      searched_project: projectId,
      runs: RUNS,
      queries: results,
      comment_insert_ms: { with_search_triggers: withTriggers, without: withoutTriggers },
    };
    writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`\nwritten ${out.pathname}`);
  } finally {
    await handle.close();
    if (process.env.KEEP === '1') console.log(`kept ${file}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

await main();
