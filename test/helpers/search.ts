import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { afterEach } from 'vitest';
import { type Db, openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import type { Database } from '../../src/db/tables.js';
import { indexQueued } from '../../src/features/search/search-indexer.js';
import { createSearchRepository } from '../../src/features/search/search.repository.js';
import {
  createSearchService,
  type SearchQuery,
  type SearchService,
  type SearchVisibility,
} from '../../src/features/search/search.service.js';
import { createTestDatabase, testDialect } from './database.js';

/*
 * The harness of the search tests (src/features/search/search*.test.ts): a database of the test project's
 * dialect, a writer that inserts rows as the services do (the triggers do the indexing), the standard data,
 * and the search service in either index mode.
 */

export const NOW = '2026-01-01T00:00:00.000Z';
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

export interface Harness {
  db: Db;
  cleanup(): Promise<void>;
}

export async function openSqlite(): Promise<Harness> {
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

export function writer(db: Kysely<Database>) {
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
export async function seed(db: Kysely<Database>) {
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
export type IndexMode = 'queued' | 'indexed';
const modes: IndexMode[] = testDialect() === 'sqlite' ? ['queued', 'indexed'] : ['indexed'];
export const dialects = modes.map((mode) => ({ name: testDialect(), mode }));

export function searchServiceOf(db: Kysely<Database>, dialect: 'sqlite' | 'postgres', mode: IndexMode): SearchService {
  const repository = createSearchRepository(db, dialect);
  const service = createSearchService(repository, dialect);
  return {
    async search(visibility, query) {
      if (mode === 'indexed') await indexQueued(repository, dialect);
      return service.search(visibility, query);
    },
    async itemIds(visibility, q) {
      if (mode === 'indexed') await indexQueued(repository, dialect);
      return service.itemIds(visibility, q);
    },
  };
}

/**
 * Registers the cleanup of the database a test opens (after each test): `workspace()` opens one with the
 * standard data and the search service of `mode`; `openDatabase()` opens an empty one, not yet migrated.
 */
export function useSearchWorkspace(mode: IndexMode) {
  let harness: Harness | undefined;

  async function openDatabase() {
    harness = await openProjectDatabase();
    return harness.db;
  }

  async function workspace() {
    const { kysely, dialect } = await openDatabase();
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

  return { workspace, openDatabase };
}
