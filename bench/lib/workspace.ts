/**
 * The benchmark workspace, built as fixture objects in code and loaded with `importFixture` (the code
 * path of `bin/punchlist import`), in chunks so the process never holds the whole workspace at once.
 *
 * 200 projects (project 1 holds 5 000 items, the 199 others share 95 000), 1 000 users (20 admins,
 * members with manager/executor/observer roles, some limited to sections or checklists), 100 000
 * items, 200 000 comments + 100 000 answers, 50 000 links (half on items, half on answers), and
 * tokens for a few users the scenarios act as. Seeded: every build is the same (bar the raw tokens).
 */
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import type { Clock } from '../../src/shared/clock.js';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { SCOPES } from '../../src/domain/scopes.js';
import { generateToken } from '../../src/domain/token-format.js';
import { ANSWER_STATUSES, ITEM_STATUSES, PRIORITIES } from '../../src/domain/values.js';
import { importFixture, type ImportSummary } from '../../src/features/fixtures/import.service.js';
import { indexQueued } from '../../src/features/search/search-indexer.js';
import { createSearchRepository } from '../../src/features/search/search.repository.js';
import { random } from './random.js';

/** Bump when the generated data changes: cached databases of another version are rebuilt. */
const GENERATOR_VERSION = 1;

export const SHAPE = {
  users: 1000,
  admins: 20,
  projects: 200,
  items: 100_000,
  bigProject: { id: 1, sections: 10, checklistsPerSection: 10, itemsPerChecklist: 50 },
  otherProject: { sections: 4, checklistsPerSection: 5 },
  membersPerProject: 15,
  commentsPerItem: 2,
  answersPerItem: 1,
  projectsPerChunk: 10,
};

const NOW = '2026-01-01T00:00:00.000Z';

/** The users the scenarios act as, with what each may see and do. */
export interface BenchActor {
  key: string;
  userId: number;
  tokenId: number;
  token: string;
  /** Item ids the actor sees (inclusive ranges). */
  visibleItems: [number, number][];
  /** May change item status (admin or manager of the items). */
  canSetStatus: boolean;
}

export interface BenchWorkspace {
  actors: BenchActor[];
  summary: ImportSummary;
  /** The 5 000-item project. */
  bigProjectId: number;
  generationSeconds: number;
}

const WORDS = (
  'проверка документации смета объект этаж секция монтаж бетон арматура кладка кровля фасад окно дверь ' +
  'лестница лифт вентиляция отопление водопровод канализация электрика щит кабель розетка освещение ' +
  'отделка штукатурка покраска плитка пол потолок стена перегородка фундамент гидроизоляция утеплитель ' +
  'паспорт сертификат акт схема замечание устранить срок подрядчик заказчик технадзор приемка журнал ' +
  'inspection report drawing revision contractor handover defect ceiling window concrete steel'
).split(' ');

/** Rare words make the selective searches ("шпунт"), a common phrase the broad one ("проверка"). */
export const SEARCH_QUERIES = { selective: 'шпунт', broad: 'проверка' };

function texts(rand: () => number) {
  const word = () => WORDS[Math.floor(rand() * WORDS.length)]!;
  const words = (min: number, max: number) => Array.from({ length: min + Math.floor(rand() * (max - min + 1)) }, word).join(' ');
  const decorate = (text: string) => {
    const r = rand();
    if (r < 0.0005) return `${text} шпунт Ларсена`;
    if (r < 0.1) return `Проверка документации: ${text}`;
    return text;
  };
  return {
    short: () => decorate(words(3, 8)),
    long: () => decorate(words(6, 25)),
    description: () => (rand() < 0.5 ? '' : decorate(words(5, 20))),
  };
}

interface Layout {
  projectId: number;
  sections: number;
  checklistsPerSection: number;
  items: number;
}

/** How many items each project holds; project 1 is the big one. */
function layouts(): Layout[] {
  const big = SHAPE.bigProject;
  const bigItems = big.sections * big.checklistsPerSection * big.itemsPerChecklist;
  const others = SHAPE.projects - 1;
  const rest = SHAPE.items - bigItems;
  const list: Layout[] = [{ projectId: big.id, sections: big.sections, checklistsPerSection: big.checklistsPerSection, items: bigItems }];
  for (let p = 0; p < others; p++) {
    list.push({
      projectId: big.id + 1 + p,
      sections: SHAPE.otherProject.sections,
      checklistsPerSection: SHAPE.otherProject.checklistsPerSection,
      items: Math.floor(rest / others) + (p < rest % others ? 1 : 0),
    });
  }
  return list;
}

/** Members of a project: 2 managers, 8 executors (3 limited to a section, 2 to two checklists), 5 observers (1 limited). */
function membersOf(projectIndex: number) {
  const pool = SHAPE.users - SHAPE.admins;
  const ids: number[] = [];
  for (let k = 0; k < SHAPE.membersPerProject; k++) ids.push(SHAPE.admins + 1 + ((projectIndex * 37 + k * 67) % pool));
  return [...new Set(ids)].map((userId, k) => ({
    userId,
    role: k < 2 ? 'manager' : k < 10 ? 'executor' : 'observer',
    limit: k >= 2 && k < 5 ? ('section' as const) : k >= 5 && k < 7 ? ('checklists' as const) : k === 14 ? ('section' as const) : null,
  }));
}

interface Counters {
  section: number;
  checklist: number;
  item: number;
  comment: number;
  answer: number;
  link: number;
}

/** One project as a fixture object, with the ids it used (counters advance). */
function projectFixture(layout: Layout, projectIndex: number, ids: Counters, rand: () => number) {
  const text = texts(rand);
  const members = membersOf(projectIndex);
  const executors = members.filter((m) => m.role === 'executor').map((m) => m.userId);
  const sections = [];
  const firstSection = ids.section + 1;
  const firstChecklist = ids.checklist + 1;
  const checklistCount = layout.sections * layout.checklistsPerSection;
  let itemsLeft = layout.items;
  for (let s = 0; s < layout.sections; s++) {
    const checklists = [];
    const sectionId = ++ids.section;
    for (let c = 0; c < layout.checklistsPerSection; c++) {
      const checklistId = ++ids.checklist;
      const remainingChecklists = checklistCount - (s * layout.checklistsPerSection + c);
      const count = Math.ceil(itemsLeft / remainingChecklists);
      itemsLeft -= count;
      const items = [];
      for (let n = 0; n < count; n++) {
        const itemId = ++ids.item;
        const author = () => members[Math.floor(rand() * members.length)]!.userId;
        const comments = Array.from({ length: SHAPE.commentsPerItem }, () => ({
          id: ++ids.comment,
          author_id: author(),
          text: text.long(),
          created_at: NOW,
        }));
        const answers = Array.from({ length: SHAPE.answersPerItem }, () => ({
          id: ++ids.answer,
          author_id: author(),
          text: text.long(),
          status: ANSWER_STATUSES[Math.floor(rand() * ANSWER_STATUSES.length)]!,
          document_links:
            itemId % 4 === 2
              ? [{ id: ++ids.link, kind: 'document', title: text.short(), url: `https://docs.example.test/answers/${itemId}.pdf` }]
              : [],
          created_at: NOW,
        }));
        const first = executors[itemId % executors.length]!;
        const second = executors[(itemId * 7) % executors.length]!;
        items.push({
          id: itemId,
          text: text.short(),
          description: text.description(),
          status: ITEM_STATUSES[Math.floor(rand() * ITEM_STATUSES.length)]!,
          priority: PRIORITIES[Math.floor(rand() * PRIORITIES.length)]!,
          deadline: rand() < 0.3 ? '2026-12-31' : null,
          requires_answer: rand() < 0.5,
          participants: itemId % 3 === 0 ? [first, second] : [first],
          document_links:
            itemId % 4 === 0
              ? [{ id: ++ids.link, kind: 'spreadsheet', title: text.short(), url: `https://docs.example.test/items/${itemId}.xlsx` }]
              : [],
          comments,
          answers,
          created_at: NOW,
        });
      }
      checklists.push({ id: checklistId, name: `Чек-лист ${c + 1}: ${text.short()}`, items, created_at: NOW });
    }
    sections.push({ id: sectionId, name: `Секция ${s + 1}`, checklists, created_at: NOW });
  }
  return {
    id: layout.projectId,
    name: `Объект ${layout.projectId}: жилой дом`,
    description: text.description(),
    deadline: '2026-12-31',
    archived: false,
    members: members.map((m) => ({
      user_id: m.userId,
      role: m.role,
      sections: m.limit === 'section' ? [firstSection] : null,
      checklists: m.limit === 'checklists' ? [firstChecklist, firstChecklist + 1] : null,
    })),
    sections,
    created_at: NOW,
  };
}

/**
 * A key that changes with the generator or the list of migrations: a cached database is reusable under it
 * (the server applies a migration added since to its copy at start-up anyway).
 */
export function workspaceKey(): string {
  const files = readdirSync(new URL('../../src/db/migrations/', import.meta.url)).sort();
  return createHash('sha256').update(JSON.stringify({ GENERATOR_VERSION, SHAPE, files })).digest('hex').slice(0, 12);
}

/** Builds the workspace into a new SQLite file (migrated, then imported chunk by chunk). */
export async function buildWorkspace(file: string, log: (line: string) => void): Promise<BenchWorkspace> {
  const started = performance.now();
  const db = openDatabase(`sqlite:${file}`);
  const clock: Clock = { now: () => new Date(NOW) };
  const rand = random(42);
  const total: ImportSummary = {
    users: 0,
    projects: 0,
    sections: 0,
    checklists: 0,
    items: 0,
    comments: 0,
    answers: 0,
    links: 0,
    tokens: 0,
  };
  const add = (s: ImportSummary) => {
    for (const key of Object.keys(total) as (keyof ImportSummary)[]) total[key] += s[key];
  };
  try {
    await migrateToLatest(db.kysely);
    const users = Array.from({ length: SHAPE.users }, (_, i) => ({
      id: i + 1,
      email: `user${i + 1}@bench.test`,
      name: `User ${i + 1}`,
      role: i < SHAPE.admins ? 'admin' : 'member',
      active: true,
      created_at: NOW,
    }));
    add(await importFixture(db.kysely, 'sqlite', { users }, clock));

    const ids: Counters = { section: 0, checklist: 0, item: 0, comment: 0, answer: 0, link: 0 };
    const all = layouts();
    for (let i = 0; i < all.length; i += SHAPE.projectsPerChunk) {
      const projects = all.slice(i, i + SHAPE.projectsPerChunk).map((layout, k) => projectFixture(layout, i + k, ids, rand));
      add(await importFixture(db.kysely, 'sqlite', { projects }, clock));
      log(`  imported projects ${i + 1}–${Math.min(i + SHAPE.projectsPerChunk, all.length)} (${ids.item} items)`);
    }

    // The actors of the scenarios, all from project 1 (items 1–5000, section k holds items 500(k-1)+1 … 500k),
    // plus the manager of project 2, and tokens of 200 other users that are never used (a realistic table).
    const big = membersOf(0);
    const second = membersOf(1);
    const bigItems: [number, number] = [1, all[0]!.items];
    const secondItems: [number, number] = [all[0]!.items + 1, all[0]!.items + all[1]!.items];
    const perSection = all[0]!.items / SHAPE.bigProject.sections;
    const actorSpecs: Omit<BenchActor, 'token' | 'tokenId'>[] = [
      { key: 'admin', userId: 1, visibleItems: [[1, SHAPE.items]], canSetStatus: true },
      { key: 'admin-2', userId: 2, visibleItems: [[1, SHAPE.items]], canSetStatus: true },
      { key: 'manager', userId: big[0]!.userId, visibleItems: [bigItems], canSetStatus: true },
      { key: 'manager-2', userId: second[0]!.userId, visibleItems: [secondItems], canSetStatus: true },
      { key: 'executor-partial', userId: big[2]!.userId, visibleItems: [[1, perSection]], canSetStatus: false },
      { key: 'observer', userId: big[10]!.userId, visibleItems: [bigItems], canSetStatus: false },
    ];
    const actors: BenchActor[] = actorSpecs.map((spec, i) => ({ ...spec, tokenId: i + 1, token: generateToken() }));
    const tokens = [
      ...actors.map((a) => ({
        id: a.tokenId,
        user_id: a.userId,
        name: `bench ${a.key}`,
        raw: a.token,
        scopes: [...SCOPES],
        expires_at: null,
      })),
      ...Array.from({ length: 200 }, (_, i) => ({
        id: actors.length + 1 + i,
        user_id: SHAPE.admins + 1 + ((i * 13) % (SHAPE.users - SHAPE.admins)),
        name: `integration ${i}`,
        raw: generateToken(),
        scopes: ['auth:me', 'items:read'],
        expires_at: '2027-01-01T00:00:00.000Z',
      })),
    ];
    add(await importFixture(db.kysely, 'sqlite', { tokens }, clock));
    // FTS5 fed now, as `punchlist import` does, so that the server starts with an empty queue.
    await indexQueued(createSearchRepository(db.kysely, 'sqlite'), 'sqlite');
    await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db.kysely);
    return {
      actors,
      summary: total,
      bigProjectId: SHAPE.bigProject.id,
      generationSeconds: Math.round((performance.now() - started) / 100) / 10,
    };
  } finally {
    await db.close();
  }
}

/**
 * A copy, at `file`, of the workspace cached under `cacheDir` (built there first when missing, or always with
 * BENCH_FRESH=1; one file per workspaceKey()): write scenarios change their copy, never the cache.
 */
export async function copyOfWorkspace(cacheDir: string, file: string, log: (line: string) => void): Promise<BenchWorkspace> {
  mkdirSync(cacheDir, { recursive: true });
  const key = workspaceKey();
  const cached = join(cacheDir, `workspace-${key}.db`);
  const metaFile = join(cacheDir, `workspace-${key}.json`);
  if (process.env.BENCH_FRESH === '1' || !existsSync(cached) || !existsSync(metaFile)) {
    for (const f of [cached, `${cached}-wal`, `${cached}-shm`]) rmSync(f, { force: true });
    log(`building the workspace (${SHAPE.projects} projects, ${SHAPE.users} users, ${SHAPE.items} items) into ${cached}`);
    const meta = await buildWorkspace(cached, log);
    writeFileSync(metaFile, JSON.stringify(meta, null, 2));
    log(`built in ${meta.generationSeconds} s: ${JSON.stringify(meta.summary)}`);
  }
  mkdirSync(join(file, '..'), { recursive: true });
  copyFileSync(cached, file);
  return JSON.parse(readFileSync(metaFile, 'utf8')) as BenchWorkspace;
}

/** A web session of the workspace's admin on the copy `file`, as signing in would leave it: the cookie's value. */
export async function webSession(file: string, meta: BenchWorkspace): Promise<string> {
  const cookie = randomBytes(32).toString('base64url');
  const db = openDatabase(`sqlite:${file}`);
  try {
    const now = new Date();
    await db.kysely
      .insertInto('web_sessions')
      .values({
        id: createHash('sha256').update(cookie).digest('hex'),
        user_id: meta.actors.find((a) => a.key === 'admin')!.userId,
        csrf_token: randomBytes(32).toString('base64url'),
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + 86_400_000).toISOString(),
      })
      .execute();
  } finally {
    await db.close();
  }
  return cookie;
}
