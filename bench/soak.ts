/**
 * Soak run (`npm run soak`; not part of `npm test`): the real server as a child process on SQLite and disk
 * storage, under mixed load at 50 connections (autocannon) for SOAK_SECONDS (default 600), then stopped
 * gracefully and checked:
 *
 * - requests sent and answered, and how many answered 5xx (target 0);
 * - writes acknowledged against the ones found afterwards (target equal): the 201 writes (comments, answers,
 *   attachments) by their rows; the 200 writes (status changes, planning, links) by an audit record with
 *   status 200 for each acknowledged request_id and, for a status change, its status history entry; and
 *   the final state of each item written must be the last acknowledged write's (status, planning fields,
 *   the links list);
 * - audit records written during the run against the requests sent (target equal: every request under
 *   /api/ is audited);
 * - the server's RSS at the start of the load, its peak and at the end.
 *
 * Exits non-zero when a target is missed. Loopback only; bounded by SOAK_SECONDS.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import SQLite from 'better-sqlite3';
import autocannon, { type Request } from 'autocannon';
import { REPO_ROOT, startChildServer } from '../test/helpers/child-server.js';
import { solid } from '../test/helpers/images.js';
import { buildWorkspace } from '../test/helpers/workspace.js';

declare module 'autocannon' {
  interface Request {
    /** Called with every answer to this request (autocannon 9). */
    onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void;
  }
}

const run = promisify(execFile);
const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const CONNECTIONS = Number(process.env.SOAK_CONNECTIONS ?? 50);
const BATCH = 2000;
const V1 = '/api/external/v1';

function rssMb(pid: number | undefined): number | null {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/** The acknowledged 200 writes, by what they answered: the request_id (for the audit record) and the state. */
interface Updates {
  status: { requestId: string; id: number; status: string; changed: boolean; updatedAt: string }[];
  planning: { requestId: string; id: number; deadline: string | null; priority: string; requiresAnswer: boolean; updatedAt: string }[];
  links: { requestId: string; links: { id: number; kind: string; title: string; url: string }[] }[];
}

async function main() {
  if (!Number.isFinite(SECONDS) || SECONDS < 1) throw new Error('SOAK_SECONDS must be a positive number');
  const dir = mkdtempSync(join(tmpdir(), 'punchlist-soak-'));
  const dbFile = join(dir, 'punchlist.db');
  const env = {
    DATABASE_URL: `sqlite:${dbFile}`,
    STORAGE_URL: `file:${join(dir, 'storage')}`,
    DATA_DIR: dir,
    SESSION_SECRET: 'soak',
    RATE_LIMIT_PER_MINUTE: '0',
  };
  try {
    // Loaded the operator's way: `bin/punchlist import` (which migrates first).
    const workspace = buildWorkspace();
    const fixture = join(dir, 'fixture.json');
    writeFileSync(fixture, JSON.stringify(workspace.fixture));
    await run(process.execPath, [join(REPO_ROOT, 'bin', 'punchlist'), 'import', fixture], { env: { ...process.env, ...env } });
    const { admin, manager, executor, partial } = workspace.tokens;

    const server = await startChildServer({ env });
    const pid = server.process.pid;
    process.stdout.write(`soak: server pid ${pid} on ${server.url}, ${CONNECTIONS} connections for ${SECONDS} s\n`);

    const png = await solid(64, 64, 'png');
    const boundary = '----punchlist-soak';
    const multipart = (field: string, value: string) =>
      Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"\r\n\r\n${value}\r\n`),
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="attachments[]"; filename="soak.png"\r\nContent-Type: image/png\r\n\r\n`,
        ),
        png,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
    const seed = await fetch(`${server.url}${V1}/items/attachments.php`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: multipart('item_id', '1000'),
    });
    const seeded = (await seed.json()) as { data?: { attachments: { id: number }[] } };
    if (seed.status !== 201 || !seeded.data) throw new Error(`the seed upload failed: ${seed.status} ${JSON.stringify(seeded)}`);
    const downloadId = seeded.data.attachments[0]!.id;

    const acked = { comments: [] as number[], answers: [] as number[], attachments: [] as number[] };
    const updates: Updates = { status: [], planning: [], links: [] };
    const statuses: Record<string, number> = {};
    let answered = 0;
    const json = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
    const get = (token: string) => ({ authorization: `Bearer ${token}` });
    const requests: Request[] = [
      { method: 'GET', path: `${V1}/auth/me.php`, headers: get(manager) },
      { method: 'GET', path: `${V1}/projects/list.php?limit=10`, headers: get(partial) },
      { method: 'GET', path: `${V1}/projects/tree.php?id=1`, headers: get(manager) },
      { method: 'GET', path: `${V1}/items/get.php?id=1000`, headers: get(executor) },
      { method: 'GET', path: `${V1}/projects/search.php?id=1&q=item&limit=20`, headers: get(partial) },
      {
        method: 'POST',
        path: `${V1}/comments/create.php`,
        headers: json(manager),
        body: JSON.stringify({ item_id: 1001, text: 'soak comment [<id>]' }),
      },
      { method: 'PATCH', path: `${V1}/items/status.php`, headers: json(admin), body: JSON.stringify({ id: 1010, status: 'in_progress' }) },
      { method: 'PATCH', path: `${V1}/items/planning.php`, headers: json(admin), body: JSON.stringify({ id: 1011, priority: 'high' }) },
      {
        method: 'POST',
        path: `${V1}/answers/create.php`,
        headers: json(executor),
        body: JSON.stringify({ item_id: 1000, text: 'soak answer [<id>]' }),
      },
      {
        method: 'PUT',
        path: `${V1}/items/links.php`,
        headers: json(manager),
        body: JSON.stringify({ id: 2010, document_links: [{ title: 'Soak', url: 'https://example.test/soak' }] }),
      },
      {
        method: 'POST',
        path: `${V1}/items/attachments.php`,
        headers: { authorization: `Bearer ${manager}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: multipart('item_id', '2001'),
      },
      { method: 'GET', path: `/api/items/file.php?id=${downloadId}`, headers: get(executor) },
      // Refusals belong in the mix: 404, 422, 401, 403, 405.
      { method: 'GET', path: `${V1}/items/get.php?id=2000`, headers: get(partial) },
      { method: 'PATCH', path: `${V1}/items/status.php`, headers: json(manager), body: JSON.stringify({ id: 1000, status: 'finished' }) },
      { method: 'GET', path: `${V1}/auth/me.php`, headers: get('plk_not-a-real-token') },
      { method: 'PATCH', path: `${V1}/items/planning.php`, headers: json(executor), body: JSON.stringify({ id: 1000, priority: 'low' }) },
      { method: 'DELETE', path: `${V1}/items/get.php?id=1000`, headers: get(manager) },
    ];
    // autocannon may hand an answer to the onResponse of the next request in the list, so the writes are
    // recognised by their answer, whichever request it is reported under.
    const onResponse = (status: number, body: string) => {
      answered++;
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status === 201) {
        const data = (JSON.parse(body) as { data: { comment?: { id: number }; answer?: { id: number }; attachments?: { id: number }[] } })
          .data;
        if (data.comment) acked.comments.push(data.comment.id);
        else if (data.answer) acked.answers.push(data.answer.id);
        else if (data.attachments) acked.attachments.push(...data.attachments.map((a) => a.id));
      } else if (status === 200) recordUpdate(body);
    };
    // A 200 write is told from a read by its answer's shape (docs/design.md §5): `changed` is only in the status
    // answer; the planning answer's item has the planning fields but no text; the links answer is the list alone.
    const recordUpdate = (body: string) => {
      if (!body.startsWith('{')) return; // a download
      const { ok, data, meta } = JSON.parse(body) as { ok: boolean; data: Record<string, any>; meta: { request_id: string } };
      if (!ok) return;
      const item = data.item as Record<string, any> | undefined;
      const requestId = meta.request_id;
      if (item && typeof data.changed === 'boolean') {
        updates.status.push({ requestId, id: item.id, status: item.status, changed: data.changed, updatedAt: item.updated_at });
      } else if (item && 'requires_answer' in item && !('text' in item)) {
        updates.planning.push({
          requestId,
          id: item.id,
          deadline: item.deadline,
          priority: item.priority,
          requiresAnswer: item.requires_answer,
          updatedAt: item.updated_at,
        });
      } else if (!item && Array.isArray(data.document_links)) {
        updates.links.push({ requestId, links: data.document_links });
      }
    };
    for (const request of requests) request.onResponse = onResponse;

    const auditBefore = (() => {
      const db = new SQLite(dbFile, { readonly: true });
      try {
        return (db.prepare('select count(*) as n from audit_log').get() as { n: number }).n;
      } finally {
        db.close();
      }
    })();
    const rssStart = rssMb(pid);
    let rssPeak = rssStart ?? 0;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, rssMb(pid) ?? 0);
    }, 1000);
    const progress = setInterval(() => process.stdout.write(`soak: ${answered} answered, RSS ${rssMb(pid)} MB\n`), 60_000);
    // Batches of a fixed number of requests until the time is up: each batch waits for all its answers,
    // so nothing is in flight when the run stops and every request sent is accounted for.
    const started = performance.now();
    let sent = 0;
    let connectionErrors = 0;
    let timeouts = 0;
    const latencies: number[] = [];
    while ((performance.now() - started) / 1000 < SECONDS) {
      const batch = await autocannon({ url: server.url, connections: CONNECTIONS, amount: BATCH, timeout: 30, requests });
      sent += batch.requests.sent;
      connectionErrors += batch.errors;
      timeouts += batch.timeouts;
      latencies.push(batch.latency.p50, batch.latency.p99, batch.latency.max);
    }
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    clearInterval(progress);
    const rssEnd = rssMb(pid);

    // A clean stop flushes what is pending (batched audit records) before the checks.
    server.process.kill('SIGTERM');
    const exit = await server.exited;

    const db = new SQLite(dbFile, { readonly: true });
    let found: { comments: number; answers: number; attachments: number };
    let updatesFound: { status: number; planning: number; links: number };
    let finalState: string[];
    let audited: number;
    let integrity: unknown;
    try {
      const count = (table: string, ids: number[]) => {
        let n = 0;
        const stmt = db.prepare(`select 1 from ${table} where id = ?`);
        for (const id of ids) if (stmt.get(id)) n++;
        return n;
      };
      found = {
        comments: count('comments', acked.comments),
        answers: count('answers', acked.answers),
        attachments: count('attachments', acked.attachments),
      };
      ({ found: updatesFound, problems: finalState } = checkUpdates(db, updates));
      audited = (db.prepare('select count(*) as n from audit_log').get() as { n: number }).n - auditBefore;
      integrity = db.pragma('integrity_check', { simple: true });
    } finally {
      db.close();
    }
    const fiveXx = Object.entries(statuses)
      .filter(([s]) => Number(s) >= 500)
      .reduce((n, [, c]) => n + c, 0);
    const ackedUpdates = { status: updates.status.length, planning: updates.planning.length, links: updates.links.length };
    const ackedTotal =
      acked.comments.length +
      acked.answers.length +
      acked.attachments.length +
      ackedUpdates.status +
      ackedUpdates.planning +
      ackedUpdates.links;
    const foundTotal =
      found.comments + found.answers + found.attachments + updatesFound.status + updatesFound.planning + updatesFound.links;
    const report = {
      seconds: Math.round(seconds),
      connections: CONNECTIONS,
      requests_sent: sent,
      requests_answered: answered,
      requests_per_s: Math.round(answered / seconds),
      latency_ms_worst_batch: {
        p50: Math.max(...latencies.filter((_, i) => i % 3 === 0)),
        p99: Math.max(...latencies.filter((_, i) => i % 3 === 1)),
        max: Math.max(...latencies.filter((_, i) => i % 3 === 2)),
      },
      status_codes: statuses,
      '5xx': fiveXx,
      connection_errors: connectionErrors,
      timeouts,
      writes_acknowledged: {
        comments: acked.comments.length,
        answers: acked.answers.length,
        attachments: acked.attachments.length,
        ...ackedUpdates,
        total: ackedTotal,
      },
      writes_found: { ...found, ...updatesFound, total: foundTotal },
      final_state: finalState.length ? finalState : 'ok',
      audit_records: audited,
      rss_mb: { start: rssStart, peak: rssPeak, end: rssEnd },
      server_exit: exit,
      integrity_check: integrity,
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    const problems = [
      fiveXx > 0 && `${fiveXx} answers were 5xx`,
      connectionErrors + timeouts > 0 && `${connectionErrors} connection errors, ${timeouts} timeouts`,
      answered !== sent && `${sent - answered} requests sent were not answered`,
      foundTotal !== ackedTotal && `${ackedTotal - foundTotal} acknowledged writes are missing`,
      updates.status.length === 0 || updates.planning.length === 0 || updates.links.length === 0
        ? `no acknowledged ${Object.entries(ackedUpdates)
            .filter(([, n]) => n === 0)
            .map(([k]) => k)
            .join(', ')} write was recognised`
        : false,
      finalState.length > 0 && `final state: ${finalState.join('; ')}`,
      audited !== sent && `${audited} audit records for ${sent} requests sent`,
      integrity !== 'ok' && `integrity_check: ${String(integrity)}`,
      exit.code !== 0 && `the server exited with ${exit.code ?? exit.signal}`,
    ].filter(Boolean);
    process.stdout.write(problems.length ? `soak: FAILED: ${problems.join('; ')}\n` : 'soak: all targets met\n');
    process.exitCode = problems.length ? 1 : 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The acknowledged 200 writes against the database after the run. One is found when its request has its
 * audit record with status 200 (committed in the write's own transaction) and, for a status change, the
 * history entry it answered. Then, per item written, the final state must be the last acknowledged one.
 */
function checkUpdates(db: SQLite.Database, updates: Updates) {
  const problems: string[] = [];
  // One pass over the audit log (it has no index by request_id: a lookup per write would scan it each time).
  const rows = db.prepare('select request_id, entity_type, entity_id from audit_log where status = 200').all() as {
    request_id: string;
    entity_type: string | null;
    entity_id: number | null;
  }[];
  const byRequestId = new Map(rows.map((row) => [row.request_id, row]));
  const audited = (requestId: string) => byRequestId.get(requestId);
  const changeEntry = db.prepare("select 1 from item_history where item_id = ? and kind = 'status_changed' and to_status = ? and at = ?");
  const reachedBy = db.prepare(
    "select 1 from item_history where item_id = ? and kind in ('created', 'status_changed') and to_status = ? and at <= ?",
  );
  const found = {
    status: updates.status.filter((u) => audited(u.requestId) && (u.changed ? changeEntry : reachedBy).get(u.id, u.status, u.updatedAt))
      .length,
    planning: updates.planning.filter((u) => audited(u.requestId)).length,
    links: updates.links.filter((u) => audited(u.requestId)).length,
  };
  const latest = <T extends { updatedAt: string }>(list: T[]) => list.reduce((a, b) => (b.updatedAt > a.updatedAt ? b : a));

  // Status: every committed change was acknowledged (nothing was in flight at the end) and the item ends
  // at the last one.
  for (const id of new Set(updates.status.map((u) => u.id))) {
    const mine = updates.status.filter((u) => u.id === id);
    const changes = mine.filter((u) => u.changed);
    const entries = (
      db.prepare("select count(*) as n from item_history where item_id = ? and kind = 'status_changed'").get(id) as { n: number }
    ).n;
    if (entries !== changes.length)
      problems.push(`item ${id}: ${entries} status history entries for ${changes.length} acknowledged changes`);
    const final = db.prepare('select status from items where id = ?').get(id) as { status: string };
    const last = latest(changes.length ? changes : mine);
    if (final.status !== last.status) problems.push(`item ${id}: status ${final.status}, last acknowledged ${last.status}`);
  }
  // Planning: the item holds the values of the last acknowledged write.
  for (const id of new Set(updates.planning.map((u) => u.id))) {
    const last = latest(updates.planning.filter((u) => u.id === id));
    const final = db.prepare('select deadline, priority, requires_answer, updated_at from items where id = ?').get(id) as {
      deadline: string | null;
      priority: string;
      requires_answer: number;
      updated_at: string;
    };
    const want = { deadline: last.deadline, priority: last.priority, requires_answer: last.requiresAnswer ? 1 : 0 };
    const have = { deadline: final.deadline, priority: final.priority, requires_answer: final.requires_answer };
    if (JSON.stringify(have) !== JSON.stringify(want) || final.updated_at < last.updatedAt) {
      problems.push(
        `item ${id}: planning ${JSON.stringify(have)} at ${final.updated_at}, last acknowledged ${JSON.stringify(want)} at ${last.updatedAt}`,
      );
    }
  }
  // Links: each replace makes new rows, so the last one committed has the highest ids; its item (from its
  // audit record) holds exactly its list.
  const lastLinks = new Map<number, Updates['links'][number]>();
  for (const u of updates.links) {
    const itemId = audited(u.requestId)?.entity_id;
    if (itemId == null || u.links.length === 0) continue;
    const known = lastLinks.get(itemId);
    if (!known || u.links[0]!.id > known.links[0]!.id) lastLinks.set(itemId, u);
  }
  if (updates.links.some((u) => u.links.length > 0) && lastLinks.size === 0) problems.push('no links write could be traced to its item');
  for (const [id, last] of lastLinks) {
    const rows = db
      .prepare('select id, kind, title, url from document_links where item_id = ? and answer_id is null order by position, id')
      .all(id);
    if (JSON.stringify(rows) !== JSON.stringify(last.links)) {
      problems.push(
        `item ${id}: links ${JSON.stringify(rows).slice(0, 200)}, last acknowledged ${JSON.stringify(last.links).slice(0, 200)}`,
      );
    }
  }
  return { found, problems };
}

main().catch((err: unknown) => {
  process.stderr.write(`soak: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
