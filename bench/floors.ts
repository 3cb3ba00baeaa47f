/**
 * What the database alone costs on the paths of issue 6's ratio targets, measured in-process on the
 * benchmark workspace (bench/lib/workspace.ts), with no HTTP, no load generator and no queue:
 *
 * - an item card (`ItemsService.getItemCard`, the admin reading random items): the time inside SQLite
 *   against the whole call, by default and with `mmap_size` (which docs/performance.md weighs against RSS);
 * - a comment (`CommentsService.addComment`, the write of POST comments/create with its audit record): the
 *   COMMIT against the rest, with the search index as it is (FTS5 fed afterwards from the queue: that time is
 *   reported per comment too) and with the search triggers dropped.
 *
 * The SQL time is read from better-sqlite3's statement calls, so the figures are those of the service's own
 * statements. Compare them with the per-request CPU budget that `npm run bench` prints for each target.
 *
 *   npm run bench:floors            (BENCH_FLOOR_CARDS, BENCH_FLOOR_COMMENTS: how many of each)
 *
 * Results: bench/results/floors-<date>.json and a Markdown table on stdout.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { loadConfig } from '../src/shared/config.js';
import { createContext } from '../src/composition/context.js';
import { copyOfWorkspace, SHAPE } from './lib/workspace.js';
import { summarize } from './lib/load.js';
import { random } from './lib/random.js';
import { machine } from './lib/report.js';

const ROOT = resolve(new URL('..', import.meta.url).pathname);
const DATA = join(ROOT, 'data', 'bench');
const CARDS = Number(process.env.BENCH_FLOOR_CARDS ?? 30_000);
const COMMENTS = Number(process.env.BENCH_FLOOR_COMMENTS ?? 4_000);
const log = (line: string) => process.stdout.write(`${line}\n`);

// Time spent inside SQLite, by kind of statement: every statement call of this process is timed.
const sqlTime = { commit: 0, other: 0 };
{
  const probe = new SQLite(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1')) as Record<'all' | 'get' | 'run', (...args: unknown[]) => unknown>;
  for (const method of ['all', 'get', 'run'] as const) {
    const original = proto[method];
    proto[method] = function (this: { source: string }, ...args: unknown[]) {
      const started = process.hrtime.bigint();
      try {
        return original.apply(this, args);
      } finally {
        const ns = Number(process.hrtime.bigint() - started);
        if (/^\s*commit/i.test(this.source)) sqlTime.commit += ns;
        else sqlTime.other += ns;
      }
    };
  }
  probe.close();
}

/** Summary of per-call times in µs. */
const stats = (values: number[]) => summarize(Float64Array.from(values).sort());

/** A copy of the workspace, `change` applied to it before the service context opens it. */
async function openCopy(name: string, change?: (sqlite: SQLite.Database) => void) {
  const file = join(DATA, `floors-${process.pid}`, name, 'punchlist.db');
  await copyOfWorkspace(DATA, file, log);
  if (change) {
    const sqlite = new SQLite(file);
    change(sqlite);
    sqlite.close();
  }
  const dir = join(file, '..');
  const config = loadConfig({
    DATABASE_URL: `sqlite:${file}`,
    STORAGE_URL: `file:${join(dir, 'storage')}`,
    DATA_DIR: dir,
    SESSION_SECRET: 'bench',
    LOG_LEVEL: 'silent',
  });
  return createContext(config);
}

type Context = Awaited<ReturnType<typeof createContext>>;

async function cards(ctx: Context, label: string) {
  const rand = random(11);
  const admin = { id: 1, role: 'admin' as const };
  // Warm-up: the same number of cards first, so both configurations start from the OS page cache.
  for (let i = 0; i < CARDS; i++) await ctx.items.getItemCard(admin, 1 + Math.floor(rand() * SHAPE.items));
  sqlTime.other = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < CARDS; i++) await ctx.items.getItemCard(admin, 1 + Math.floor(rand() * SHAPE.items));
  const totalUs = Number(process.hrtime.bigint() - started) / 1000 / CARDS;
  return {
    configuration: label,
    cards: CARDS,
    call_us: Math.round(totalUs * 10) / 10,
    sql_us: Math.round((sqlTime.other / 1000 / CARDS) * 10) / 10,
  };
}

async function comments(ctx: Context, label: string) {
  const rand = random(13);
  const author = { id: 1, role: 'admin' as const, name: 'Admin' };
  const commits: number[] = [];
  const rest: number[] = [];
  for (let i = 0; i < COMMENTS; i++) {
    sqlTime.commit = 0;
    sqlTime.other = 0;
    await ctx.comments.addComment(author, 1 + Math.floor(rand() * SHAPE.items), {
      text: `Замечание нагрузочного теста ${i}: проверить крепление кабеля`,
    });
    commits.push(sqlTime.commit / 1000);
    rest.push(sqlTime.other / 1000);
  }
  // What the search indexer then does for them, in batches outside the writes (migration 010), per comment.
  const started = process.hrtime.bigint();
  await ctx.searchIndexer.drain();
  const indexUs = Math.round(Number(process.hrtime.bigint() - started) / 1000 / COMMENTS);
  return {
    configuration: label,
    comments: COMMENTS,
    commit_us: stats(commits),
    other_statements_us: stats(rest),
    deferred_indexing_us_per_comment: indexUs,
  };
}

async function main() {
  const startedAt = new Date();
  const results: { cards: Awaited<ReturnType<typeof cards>>[]; comments: Awaited<ReturnType<typeof comments>>[] } = {
    cards: [],
    comments: [],
  };
  try {
    const ctx = await openCopy('default');
    log(`item cards (${CARDS}, admin, random items)…`);
    results.cards.push(await cards(ctx, 'default'));
    log(`comments (${COMMENTS}) with the search index…`);
    results.comments.push(await comments(ctx, 'search index fed from the queue (migration 010)'));
    await ctx.close();

    const bare = await openCopy('mmap-no-search', (sqlite) => {
      for (const { name } of sqlite.prepare("select name from sqlite_master where type = 'trigger' and name like 'search_%'").all() as {
        name: string;
      }[]) {
        sqlite.exec(`drop trigger ${name}`);
      }
    });
    await sql`pragma mmap_size = 1000000000`.execute(bare.db.kysely);
    log(`item cards with mmap_size 1 GB…`);
    results.cards.push(await cards(bare, 'mmap_size = 1 GB'));
    log(`comments without the search triggers…`);
    results.comments.push(await comments(bare, 'mmap_size = 1 GB, no search triggers (for comparison only)'));
    await bare.close();
  } finally {
    rmSync(join(DATA, `floors-${process.pid}`), { recursive: true, force: true });
  }

  const lines = [
    '| item card | µs per call | of which inside SQLite |',
    '|---|---:|---:|',
    ...results.cards.map((c) => `| ${c.configuration} | ${c.call_us} | ${c.sql_us} |`),
    '',
    '| comment write | COMMIT µs mean / p50 / p99 / max | other statements µs mean / p99 | indexing afterwards, µs per comment |',
    '|---|---:|---:|---:|',
    ...results.comments.map(
      (c) =>
        `| ${c.configuration} | ${c.commit_us.mean} / ${c.commit_us.p50} / ${c.commit_us.p99} / ${c.commit_us.max} | ${c.other_statements_us.mean} / ${c.other_statements_us.p99} | ${c.deferred_indexing_us_per_comment} |`,
    ),
  ];
  const out = join(ROOT, 'bench/results');
  mkdirSync(out, { recursive: true });
  const file = join(out, `floors-${startedAt.toISOString().slice(0, 10)}.json`);
  writeFileSync(
    file,
    JSON.stringify({ date: startedAt.toISOString(), command: 'npm run bench:floors', machine: machine(), ...results }, null, 2) + '\n',
  );
  log('');
  log(lines.join('\n'));
  log(`\nwritten ${file}`);
}

await main();
