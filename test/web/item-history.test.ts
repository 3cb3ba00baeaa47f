import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { USERS } from '../helpers/workspace.js';
import { signedInClients } from './web-client.js';

/**
 * An item's page stays small however long its history (issue 46): 3 000 comments and as many timeline entries,
 * shown a screenful at a time (the newest first, "Show earlier" as plain links), while items/get keeps giving
 * the whole card, from the card cache.
 */
let server: TestServer;
const as = signedInClients(() => server.url);
const ITEM = 1001;
const COMMENTS = 3000;
/** A comment of about the length a site manager writes (~200 characters). */
const textOf = (n: number) =>
  `Comment ${n}: the sealant along the window frame in room 2.14 is cracked again; photos taken, supplier called, waiting for the replacement batch before the next inspection round ${n}.`;

beforeAll(async () => {
  server = await startTestServer();
  const db = server.ctx.db.kysely;
  const item = await db
    .selectFrom('items')
    .select(['project_id', 'section_id', 'checklist_id'])
    .where('id', '=', ITEM)
    .executeTakeFirstOrThrow();
  const start = Date.parse('2026-01-05T08:00:00Z');
  // Written straight into the tables (a real write per comment would take minutes), as the write path leaves them:
  // each comment with its `comment.created` event.
  for (let from = 0; from < COMMENTS; from += 500) {
    const rows = Array.from({ length: Math.min(500, COMMENTS - from) }, (_, i) => {
      const n = from + i + 1;
      return { n, at: new Date(start + n * 60_000).toISOString(), author: n % 2 ? USERS.executor : USERS.manager };
    });
    const inserted = await db
      .insertInto('comments')
      .values(rows.map((r) => ({ item_id: ITEM, author_id: r.author, text: textOf(r.n), created_at: r.at })))
      .returning('id')
      .execute();
    await db
      .insertInto('events')
      .values(
        rows.map((r, i) => ({
          type: 'comment.created',
          at: r.at,
          project_id: item.project_id,
          section_id: item.section_id,
          checklist_id: item.checklist_id,
          item_id: ITEM,
          actor_id: r.author,
          token_id: null,
          data: JSON.stringify({ comment: { id: inserted[i]!.id, item_id: ITEM, text: textOf(r.n), created_at: r.at } }),
        })),
      )
      .execute();
  }
});
afterAll(() => server.close());

const count = (page: string, testId: string) => page.split(`data-testid="${testId}"`).length - 1;
const hrefOf = (page: string, testId: string) => {
  const match = new RegExp(`<a href="([^"]+)" data-testid="${testId}"`).exec(page);
  return match ? match[1]!.replace(/&amp;/g, '&') : null;
};

describe('an item with 3 000 comments', () => {
  it('has a page under 300 KB: the newest screenful of comments and timeline, "Show earlier" links back', async () => {
    const web = await as('executor');
    const page = await web.get(`/items/${ITEM}`);
    expect(page.status).toBe(200);
    expect(Buffer.byteLength(page.text)).toBeLessThan(300 * 1024);
    const total = (await server.call(`${V1}/items/get.php?id=${ITEM}`, { token: server.tokens.manager })).body.data.item.comments.length;
    expect(page.text).toContain(`Comments (${total})`);
    expect(count(page.text, 'comment')).toBe(20);
    expect(page.text).toContain(textOf(COMMENTS));
    expect(page.text).toContain(textOf(COMMENTS - 19));
    expect(page.text).not.toContain(textOf(COMMENTS - 20));
    expect(count(page.text, 'timeline-entry')).toBe(30);
    expect(page.text).toContain(`Show the timeline (`);

    // Earlier comments: a plain link (no script), the screenful before, and the way back to the newest.
    const earlier = hrefOf(page.text, 'comments-earlier')!;
    expect(earlier).toMatch(new RegExp(`^/items/${ITEM}\\?comments_before=\\d+#comments$`));
    const second = await web.get(earlier.replace(/#.*/, ''));
    expect(second.status).toBe(200);
    expect(Buffer.byteLength(second.text)).toBeLessThan(300 * 1024);
    expect(count(second.text, 'comment')).toBe(20);
    expect(second.text).toContain(textOf(COMMENTS - 20));
    expect(second.text).toContain(textOf(COMMENTS - 39));
    expect(second.text).not.toContain(textOf(COMMENTS - 19));
    expect(hrefOf(second.text, 'comments-latest')).toBe(`/items/${ITEM}#comments`);

    // The timeline's earlier screenful, open at once.
    const timelineEarlier = hrefOf(page.text, 'timeline-earlier')!;
    expect(timelineEarlier).toBe(`/items/${ITEM}?timeline=2#timeline`);
    const older = await web.get(`/items/${ITEM}?timeline=2`);
    expect(Buffer.byteLength(older.text)).toBeLessThan(300 * 1024);
    expect(count(older.text, 'timeline-entry')).toBe(30);
    expect(older.text).toContain(`commented: “${textOf(COMMENTS - 30).slice(0, 140)}…”`);
    expect(older.text).not.toContain(`commented: “${textOf(COMMENTS - 29).slice(0, 140)}…”`);
    expect(older.text).toMatch(/<details class="fold" open><summary>Show the timeline/);
    expect(hrefOf(older.text, 'timeline-latest')).toBe(`/items/${ITEM}#timeline`);

    // The oldest screenful: nothing earlier; a page asked beyond it shows the oldest.
    const last = Math.ceil(Number(/Show the timeline \((\d+)\)/.exec(page.text)![1]) / 30);
    const oldest = await web.get(`/items/${ITEM}?timeline=${last + 5}`);
    expect(hrefOf(oldest.text, 'timeline-earlier')).toBeNull();
    expect(oldest.text).toContain('raised the item');
    // Anything else than a number: the newest.
    expect(count((await web.get(`/items/${ITEM}?comments_before=x&timeline=-1`)).text, 'comment')).toBe(20);
  });

  it('keeps items/get whole (every comment), served from the card cache', async () => {
    const cache = server.ctx.responseCache!;
    const first = await server.call(`${V1}/items/get.php?id=${ITEM}`, { token: server.tokens.manager });
    expect(first.status).toBe(200);
    expect(first.body.data.item.comments.length).toBeGreaterThanOrEqual(COMMENTS);
    expect(first.body.data.item.comments.at(-1).text).toBe(textOf(COMMENTS));
    const hits = cache.stats.hits;
    const again = await server.call(`${V1}/items/get.php?id=${ITEM}`, { token: server.tokens.manager });
    expect(again.body.data.item.comments).toHaveLength(first.body.data.item.comments.length);
    expect(cache.stats.hits).toBe(hits + 1);
  });
});
