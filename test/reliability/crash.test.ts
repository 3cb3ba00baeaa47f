import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/shared/config.js';
import { createContext } from '../../src/composition/context.js';
import { importFixture } from '../../src/features/fixtures/import.service.js';
import { type ChildServer, freePort, startChildServer } from '../helpers/child-server.js';
import { solid, uploadForm } from '../helpers/images.js';
import { V1 } from '../helpers/server.js';
import { buildWorkspace, USERS, type UserKey } from '../helpers/workspace.js';

/**
 * Crash safety: the real server, a child process on SQLite and disk storage, killed with SIGKILL at
 * random moments under concurrent uploads and writes, then restarted, over and over. Afterwards every
 * acknowledged (2xx) write is there with its audit record, no attachment row points to a missing blob,
 * the start-up sweep left no blob without a row and no temp file, and SQLite's integrity check passes.
 */

const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 4);
const WORKERS = 6;
/** Each round's kill waits for this many acknowledged writes, so that it lands amid the load on a slow machine too. */
const ACKED_BEFORE_KILL = 6;

interface Ack {
  kind: 'comment' | 'answer' | 'item-image' | 'answer-image' | 'status';
  requestId: string;
  id: number;
  marker?: string;
  path?: string;
  /** A status write: what was asked, whether the server said it changed, the `updated_at` it answered, by whom. */
  status?: { to: string; changed: boolean; at: string; userId: number };
}

const dir = mkdtempSync(join(tmpdir(), 'punchlist-crash-'));
const storage = join(dir, 'storage');
const dbFile = join(dir, 'punchlist.db');
const env = {
  DATABASE_URL: `sqlite:${dbFile}`,
  STORAGE_URL: `file:${storage}`,
  DATA_DIR: dir,
  SESSION_SECRET: 'crash-test',
  RATE_LIMIT_PER_MINUTE: '0',
};
let tokens: Record<UserKey, string>;
let child: ChildServer | null = null;

afterAll(async () => {
  if (child && child.process.exitCode === null) {
    child.process.kill('SIGKILL');
    await child.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

function filesUnder(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)));
}

/** What is on disk and in the database between runs (the server is down). */
function inspect() {
  const db = new SQLite(dbFile);
  try {
    const paths = new Set((db.prepare('select path from attachments').all() as { path: string }[]).map((r) => r.path));
    const blobs = filesUnder(storage).filter((f) => f.startsWith('items/') || f.startsWith('answers/'));
    return {
      db,
      paths,
      orphans: blobs.filter((b) => !paths.has(b)),
      missing: [...paths].filter((p) => !existsSync(join(storage, p))),
      temp: filesUnder(join(storage, '.tmp')),
    };
  } catch (err) {
    db.close();
    throw err;
  }
}

/** One worker: random writes until the server goes away. Records what was acknowledged. */
async function worker(url: string, round: number, n: number, acks: Ack[], images: Buffer[]) {
  const token = n % 2 === 0 ? tokens.admin : tokens.manager;
  const userId = n % 2 === 0 ? USERS.admin : USERS.manager;
  const items = [1000, 1001, 1010, 1011, 2000, 2001, 2010];
  for (let i = 0; ; i++) {
    const item = items[(n + i) % items.length]!;
    const marker = `crash r${round} w${n} #${i}`;
    const pick = Math.random();
    let kind: Ack['kind'];
    let init: RequestInit;
    let path: string;
    const headers = { authorization: `Bearer ${token}` };
    if (pick < 0.35) {
      kind = 'comment';
      path = 'comments/create.php';
      init = {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ item_id: item, text: marker }),
      };
    } else if (pick < 0.5) {
      kind = 'answer';
      path = 'answers/create.php';
      init = {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ item_id: item, text: marker }),
      };
    } else if (pick < 0.6) {
      kind = 'status';
      path = 'items/status.php';
      init = {
        method: 'PATCH',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ id: item, status: ['pending', 'in_progress', 'done', 'blocked'][i % 4] }),
      };
    } else if (pick < 0.85) {
      kind = 'item-image';
      path = 'items/attachments.php';
      const files = images.slice(0, 1 + (i % 3)).map((bytes, k) => ({ name: `${marker} ${k}.png`, bytes }));
      init = { method: 'POST', headers, body: uploadForm({ item_id: String(item) }, files) };
    } else {
      kind = 'answer-image';
      path = 'answers/attachments.php';
      init = {
        method: 'POST',
        headers,
        body: uploadForm({ answer_id: '7000' }, [{ name: `${marker}.png`, bytes: images[i % images.length]! }]),
      };
    }
    let res: Response;
    let body: any;
    try {
      res = await fetch(`${url}${V1}/${path}`, { ...init, signal: AbortSignal.timeout(15_000) });
      body = await res.json();
    } catch {
      return; // the server is gone: whatever was in flight was never acknowledged
    }
    if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(body)}`);
    const requestId = body.meta.request_id as string;
    if (kind === 'comment') acks.push({ kind, requestId, id: body.data.comment.id, marker });
    else if (kind === 'answer') acks.push({ kind, requestId, id: body.data.answer.id, marker });
    else if (kind === 'status') {
      const { status, updated_at } = body.data.item as { status: string; updated_at: string };
      acks.push({ kind, requestId, id: item, status: { to: status, changed: body.data.changed === true, at: updated_at, userId } });
    } else for (const a of body.data.attachments) acks.push({ kind, requestId, id: a.id, path: a.path, marker });
  }
}

describe('SIGKILL under load', () => {
  it(
    `${ROUNDS} kills at random moments lose nothing acknowledged and leave nothing behind`,
    async () => {
      // The fixture, loaded before the first start.
      const ctx = await createContext(loadConfig({ ...env, PORT: '0' }));
      const workspace = buildWorkspace();
      await importFixture(ctx.db.kysely, ctx.db.dialect, workspace.fixture, ctx.clock);
      await ctx.close();
      tokens = workspace.tokens;
      const images = [await solid(16, 16, 'png'), await solid(300, 200, 'jpeg'), await solid(640, 480, 'png')];
      const port = await freePort();

      const acks: Ack[] = [];
      const figures = {
        orphansAfterKill: 0,
        tempAfterKill: 0,
        planted: 0,
        startMs: [] as number[],
        killAfterMs: [] as number[],
        acked: [] as number[],
      };
      for (let round = 1; round <= ROUNDS + 1; round++) {
        // What the previous kill left, plus a planted orphan and a planted temp file (a crash mid-put).
        const before = inspect();
        before.db.close();
        figures.orphansAfterKill += before.orphans.length;
        figures.tempAfterKill += before.temp.length;
        mkdirSync(join(storage, 'items', '1000'), { recursive: true });
        mkdirSync(join(storage, '.tmp'), { recursive: true });
        writeFileSync(join(storage, 'items', '1000', `planted-${round}.webp`), 'orphan');
        writeFileSync(join(storage, '.tmp', `planted-${round}.part`), 'half a blob');
        figures.planted += 2;

        child = await startChildServer({ env, port });
        figures.startMs.push(child.startMs);
        // The start-up sweep ran before the server listened: nothing is left.
        const swept = inspect();
        swept.db.close();
        expect(swept.orphans, `round ${round}: orphans after start-up`).toEqual([]);
        expect(swept.temp, `round ${round}: temp files after start-up`).toEqual([]);
        expect(swept.missing, `round ${round}: rows without a blob`).toEqual([]);
        if (round > ROUNDS) break; // the last start only proves the sweep

        const count = acks.length;
        const load = Array.from({ length: WORKERS }, (_, n) => worker(child!.url, round, n, acks, images));
        // Killed amid the load: once this round has its first writes acknowledged (however slow the machine), then
        // at a random moment up to 1.25 s later.
        const loaded = performance.now();
        while (acks.length - count < ACKED_BEFORE_KILL && performance.now() - loaded < 60_000) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 1250));
        figures.killAfterMs.push(Math.round(performance.now() - loaded));
        child.process.kill('SIGKILL');
        const exit = await child.exited;
        expect(exit.signal).toBe('SIGKILL');
        await Promise.all(load);
        figures.acked.push(acks.length - count);
      }
      child!.process.kill('SIGKILL');
      await child!.exited;

      const final = inspect();
      try {
        expect(final.db.pragma('integrity_check', { simple: true })).toBe('ok');
        expect(final.db.pragma('foreign_key_check')).toEqual([]);
        expect(final.missing).toEqual([]);
        const has = (sql: string, ...args: unknown[]) => final.db.prepare(sql).get(...args) !== undefined;
        const statusHeld = (ack: Ack) => {
          const s = ack.status!;
          // A change commits its history entry with the item: same transaction, same timestamp, same user.
          if (s.changed) {
            return has(
              "select 1 from item_history where item_id = ? and kind = 'status_changed' and to_status = ? and user_id = ? and at = ?",
              ack.id,
              s.to,
              s.userId,
              s.at,
            );
          }
          // "Already that status" is only true if the history had reached it by then (`updated_at` answered is
          // the item's, at least as late as its last status entry).
          return has(
            "select 1 from item_history where item_id = ? and kind in ('created', 'status_changed') and to_status = ? and at <= ?",
            ack.id,
            s.to,
            s.at,
          );
        };
        const lost: string[] = [];
        for (const ack of acks) {
          const present =
            ack.kind === 'comment'
              ? has('select 1 from comments where id = ? and text = ?', ack.id, ack.marker)
              : ack.kind === 'answer'
                ? has('select 1 from answers where id = ? and text = ?', ack.id, ack.marker)
                : ack.kind === 'status'
                  ? statusHeld(ack)
                  : has('select 1 from attachments where id = ? and path = ?', ack.id, ack.path) &&
                    existsSync(join(storage, ack.path!)) &&
                    statSync(join(storage, ack.path!)).size > 0;
          if (!present)
            lost.push(
              ack.status
                ? `status ${ack.id} → ${ack.status.to} (${ack.status.changed ? 'changed' : 'unchanged'} at ${ack.status.at})`
                : `${ack.kind} ${ack.id}`,
            );
          // A successful write commits its audit record in its own transaction.
          if (!has('select 1 from audit_log where request_id = ? and status between 200 and 299', ack.requestId))
            lost.push(`audit of ${ack.kind} ${ack.requestId}`);
        }
        // Each written item's status history is one unbroken chain ending at its current status: no change
        // committed without its entry, none lost between two that were kept.
        const written = [...new Set(acks.filter((a) => a.kind === 'status').map((a) => a.id))];
        const broken: string[] = [];
        for (const itemId of written) {
          const entries = final.db
            .prepare(
              "select kind, from_status, to_status from item_history where item_id = ? and kind in ('created', 'status_changed') order by id",
            )
            .all(itemId) as { kind: string; from_status: string | null; to_status: string }[];
          const current = (final.db.prepare('select status from items where id = ?').get(itemId) as { status: string }).status;
          let previous: string | null = null;
          for (const [k, e] of entries.entries()) {
            if (k === 0 ? e.kind !== 'created' : e.kind !== 'status_changed' || e.from_status !== previous || e.to_status === previous) {
              broken.push(`item ${itemId} entry ${k}: ${e.kind} ${e.from_status} → ${e.to_status} after ${previous}`);
            }
            previous = e.to_status;
          }
          if (previous !== current) broken.push(`item ${itemId}: history ends at ${previous}, status is ${current}`);
        }
        const changes = acks.filter((a) => a.status?.changed).length;
        const kinds: Record<string, number> = {};
        for (const ack of acks) kinds[ack.kind] = (kinds[ack.kind] ?? 0) + 1;
        const byKind = Object.entries(kinds)
          .map(([k, n]) => `${n} ${k}`)
          .join(', ');
        console.log(
          `crash: ${ROUNDS} SIGKILLs after ${figures.killAfterMs.join('/')} ms of load; ${acks.length} acknowledged writes (${byKind}; ${changes} status changes, each in its item's history chain), per round ${figures.acked.join('/')}; ` +
            `lost ${lost.length}; after the kills ${figures.orphansAfterKill} orphan blobs and ${figures.tempAfterKill} temp files (+${figures.planted} planted), all swept at start-up; ` +
            `start ${Math.round(Math.min(...figures.startMs))}–${Math.round(Math.max(...figures.startMs))} ms; integrity_check ok`,
        );
        expect(lost).toEqual([]);
        expect(broken).toEqual([]);
        expect(acks.length).toBeGreaterThan(ROUNDS * 5);
      } finally {
        final.db.close();
      }
    },
    // Five server starts (each 2 s quiet, up to 20 s on a busy machine) and the load between: the limit ends a hang.
    Math.max(300_000, ROUNDS * 40_000),
  );
});
