import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFixture } from '../../src/features/fixtures/import.service.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { PASSWORD, USERS } from '../helpers/workspace.js';
import { keyOf, photos } from './item-forms.js';
import { csrfOf, decode, signedInClients, WebClient } from './web-client.js';

/**
 * The item page's forms (docs/design.md §3, §8): what a refused form keeps, idempotency and CSRF, the item write
 * path behind them; the project page and My items; sign-in redirects (every action role by role:
 * workplace.test.ts).
 */
let server: TestServer;
/** One signed-in client per workspace user, reused across tests. */
const as = signedInClients(() => server.url);

const card = async (id: number) => (await server.call(`${V1}/items/get.php?id=${id}`, { token: server.tokens.admin })).body.data.item;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('forms', () => {
  it('keep what the user typed when validation fails, with the message next to the field, and change nothing', async () => {
    const web = await as('manager');
    const page = await web.get('/items/1001');
    const before = await card(1001);
    const planning = await web.post('/items/1001/planning', { deadline: '2026-02-30', priority: 'high', requires_answer: '1' }, page.text);
    expect(planning.status).toBe(422);
    expect(planning.text).toMatch(
      /id="planning-deadline" type="date" name="deadline" value="2026-02-30" aria-invalid="true" aria-describedby="planning-deadline-error"/,
    );
    expect(planning.text).toContain('<p class="field-error" id="planning-deadline-error">');
    expect(planning.text).toMatch(
      /id="planning-requires" type="checkbox" name="requires_answer" value="1" aria-describedby="planning-requires-hint" checked/,
    );

    const long = 'x'.repeat(20_001);
    const comment = await web.post('/items/1001/comments', { text: long }, page.text);
    expect(comment.status).toBe(422);
    expect(comment.text).toContain(`>${long}</textarea>`);
    expect(comment.text).toContain('id="comment-text-error"');

    const links = await web.post('/items/1001/links', { 'link-1-title': 'Plan', 'link-1-url': 'ftp://example.test/plan' }, page.text);
    expect(links.status).toBe(422);
    expect(links.text).toContain('value="ftp://example.test/plan" aria-invalid="true" aria-describedby="item-link-1-url-error"');

    const answer = new FormData();
    answer.append('text', 'My answer, kept');
    answer.append('attachments[]', new Blob([new TextEncoder().encode('not an image at all')], { type: 'image/png' }), 'fake.png');
    const refused = await web.postMultipart('/items/1001/answers', answer, page.text);
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('>My answer, kept</textarea>');
    expect(refused.text).toContain('id="answer-photos-error"');
    expect(await card(1001)).toEqual(before);
  });

  it('are idempotent: the same form sent twice writes once; the same key with other values is refused', async () => {
    const web = await as('executor');
    const page = await web.get('/items/1001');
    const key = keyOf(page.text, '/items/1001/comments');
    const before = (await card(1001)).comments.length;
    const first = await web.post('/items/1001/comments', { text: 'Sent twice', _key: key }, page.text);
    const second = await web.post('/items/1001/comments', { text: 'Sent twice', _key: key }, page.text);
    expect([first.status, second.status]).toEqual([303, 303]);
    expect(second.location).toBe(first.location);
    expect((await card(1001)).comments.length).toBe(before + 1);
    const other = await web.post('/items/1001/comments', { text: 'Something else', _key: key }, page.text);
    expect(other.status).toBe(409);
    expect((await card(1001)).comments.length).toBe(before + 1);
    // A refused form frees its key: corrected, it goes through.
    const fresh = await web.get('/items/1001');
    const retryKey = keyOf(fresh.text, '/items/1001/comments');
    expect((await web.post('/items/1001/comments', { text: ' ', _key: retryKey }, fresh.text)).status).toBe(422);
    expect((await web.post('/items/1001/comments', { text: 'Corrected', _key: retryKey }, fresh.text)).status).toBe(303);
  });

  it('refuse a photo form without its CSRF token, storing nothing', async () => {
    const web = await as('executor');
    const before = await card(1001);
    const form = await photos(1);
    form.append('_csrf', 'forged');
    const response = await web.postMultipart('/items/1001/photos', form);
    expect(response.status).toBe(403);
    expect(await card(1001)).toEqual(before);
  });

  it('say when no photo was chosen', async () => {
    const web = await as('executor');
    const page = await web.get('/items/1001');
    const form = new FormData();
    form.append('attachments[]', new Blob([]), '');
    const response = await web.postMultipart('/items/1001/photos', form, page.text);
    expect(response.status).toBe(422);
    expect(decode(response.text)).toContain('choose at least one photo');
  });
});

describe('web writes go through the item write path', () => {
  it('record the user in the history and an audit record, also for review actions', async () => {
    const web = await as('manager');
    let page = await web.get('/items/2001');
    expect((await web.post('/items/2001/status', { status: 'done' }, page.text)).status).toBe(303);
    page = await web.get('/items/2001');
    expect((await web.post('/items/2001/rework', { reason: 'Sign missing', deadline: '2099-01-01' }, page.text)).status).toBe(303);
    page = await web.get('/items/2001');
    expect((await web.post('/items/2001/verdict', { verdict: 'rejected' }, page.text)).status).toBe(303);

    const history = (await card(2001)).status_history;
    expect(history.slice(-2)).toMatchObject([
      { kind: 'status_changed', from: 'pending', to: 'done', user: { id: USERS.manager } },
      // v1 shows the return to rework as a status change; it starts from the status read under the lock.
      { kind: 'status_changed', from: 'done', to: 'in_progress', user: { id: USERS.manager }, note: 'Sign missing' },
    ]);
    const page2 = await web.get('/items/2001');
    expect(page2.text).toMatch(/<strong>Manager<\/strong> set the verdict: <span class="badge s-rejected">/);

    const records = await server.ctx.audit.list({ userId: USERS.manager, limit: 10 });
    const web2001 = records.filter((r) => r.entity_id === 2001 && r.token_id === null);
    expect(web2001.map((r) => r.path).sort()).toEqual(['/items/2001/rework', '/items/2001/status', '/items/2001/verdict']);
    expect(web2001.every((r) => r.method === 'POST' && r.status === 303 && r.entity_type === 'item')).toBe(true);
  });

  it('refuse a review of an answer that changed since the reviewer saw it', async () => {
    const web = await as('manager');
    const page = await web.get('/items/1000');
    const seen = /name="seen" value="([^"]+)"/.exec(page.text.slice(page.text.indexOf('/items/1000/answers/7001/review')))![1]!;
    await server.ctx.db.kysely.updateTable('answers').set({ updated_at: new Date().toISOString() }).where('id', '=', 7001).execute();
    const response = await web.post('/items/1000/answers/7001/review', { decision: 'approved', seen }, page.text);
    expect(response.status).toBe(409);
    expect(decode(response.text)).toContain('The answer changed while you were reviewing it');
    expect((await card(1000)).answers.find((a: any) => a.id === 7001).status).toBe('pending');
  });

  it('refuse a review of an answer through the URL of another item, and change nothing', async () => {
    const web = await as('manager');
    const page = await web.get('/items/1001');
    const response = await web.post('/items/1001/answers/7001/review', { decision: 'approved' }, page.text);
    expect(response.status).toBe(404);
    expect(decode(response.text)).toContain('The answer was not found');
    expect((await card(1000)).answers.find((a: any) => a.id === 7001).status).toBe('pending');
  });
});

describe('the project page and My items', () => {
  const rows = (text: string) => [...text.matchAll(/<a href="\/items\/(\d+)">/g)].map((m) => Number(m[1]));

  it('filters by status, by participation, by overdue and by text (through search), for what the user sees', async () => {
    const web = await as('executor');
    expect(rows((await web.get('/projects/1')).text)).toEqual([1000, 1001, 1010, 1011, 2000, 2001, 2010]);
    expect(rows((await web.get('/projects/1?status=done')).text)).toEqual([1010, 2000]);
    expect(rows((await web.get('/projects/1?mine=1')).text)).toEqual([1000, 1001]);
    expect(rows((await web.get('/projects/1?overdue=1')).text)).toEqual([1001]);
    expect(rows((await web.get('/projects/1?q=%D0%BF%D1%80%D0%BE%D0%B2%D0%B5%D1%80%D0%BA%D0%B0')).text)).toEqual([2000]);
    // Text found in a comment finds its item.
    expect(rows((await web.get('/projects/1?q=on%20it')).text)).toEqual([1000]);
    expect(rows((await web.get('/projects/1?mine=1&status=done')).text)).toEqual([]);
    const partial = await as('partial');
    expect(rows((await partial.get('/projects/1')).text)).toEqual([1000, 1001, 1010, 1011, 2010]);
    expect(rows((await partial.get('/projects/1?q=%D0%BF%D1%80%D0%BE%D0%B2%D0%B5%D1%80%D0%BA%D0%B0')).text)).toEqual([]);
  });

  it('lists My items: where the user takes part, open first by deadline, done last, active projects only', async () => {
    const web = await as('partial');
    expect((await web.get('/projects')).text).toContain('<a href="/my-items"');
    const page = await web.get('/my-items');
    expect([...page.text.matchAll(/data-testid="my-item-row"><td><a href="\/items\/(\d+)"/g)].map((m) => Number(m[1]))).toEqual([1000]);
    const executor = await as('executor');
    const ids = async () =>
      [...(await executor.get('/my-items')).text.matchAll(/data-testid="my-item-row"><td><a href="\/items\/(\d+)"/g)].map((m) =>
        Number(m[1]),
      );
    const mine = await ids();
    expect(mine).toContain(1001);
    expect(mine).not.toContain(3000); // archived project
    const item = await executor.get('/items/1001');
    await executor.post('/items/1001/status', { status: 'done' }, item.text);
    expect((await ids()).at(-1)).toBe(1001);
  });

  it('keeps a 5 000-item project usable: pages of 100 items, counts for every checklist', async () => {
    const many = Array.from({ length: 5000 }, (_, i) => ({
      id: 100_000 + i,
      text: `Bulk item ${i}`,
      status: i % 4 === 0 ? 'done' : 'pending',
    }));
    await importFixture(
      server.ctx.db.kysely,
      server.ctx.db.dialect,
      {
        projects: [
          { id: 50, name: 'Big', sections: [{ id: 500, name: 'All', checklists: [{ id: 5000, name: 'Everything', items: many }] }] },
        ],
      },
      server.ctx.clock,
    );
    const web = await as('admin');
    const first = await web.get('/projects/50');
    expect(rows(first.text)).toHaveLength(100);
    expect(first.text).toContain('Page 1 of 50');
    expect(first.text).toMatch(/Everything <span class="counts">— 1250\/5000 done/);
    expect(first.text.length).toBeLessThan(200_000);
    const last = await web.get('/projects/50?page=50');
    expect(rows(last.text).at(-1)).toBe(104_999);
    const done = await web.get('/projects/50?status=done&page=2');
    expect(done.text).toContain('Page 2 of 13');
    expect(rows(done.text)[0]).toBe(100_400);
  });
});

describe('sign-in redirects', () => {
  it('never leave the site, and never answer 500, whatever `next` holds', async () => {
    const attempts = [
      '/%09/evil.example',
      '/%09%5Cevil.example',
      '%2F%2Fevil.example',
      '/%5C/evil.example',
      'https://evil.example/',
      '/%0D%0ALocation:%20https://evil.example',
      '/%E2%80%AE',
      '/%C3%A9t%C3%A9',
      '/%0A/evil.example',
    ];
    for (const next of attempts) {
      const web = new WebClient(server.url);
      const login = await web.get(`/login?next=${next}`);
      expect(login.status, next).toBe(200);
      const response = await web.post(
        '/login',
        { email: 'observer@punchlist.test', password: PASSWORD, next: decodeURIComponent(next) },
        login.text,
      );
      expect(response.status, next).toBe(303);
      expect(response.location, next).toBe('/projects');
      // Signed in already: the same `next` on /login.
      const again = await web.get(`/login?next=${next}`);
      expect(again.status, next).toBe(303);
      expect(again.location, next).toBe('/projects');
    }
    const web = new WebClient(server.url);
    const login = await web.get('/login?next=/items/1000%3Fsaved%3Dcomment');
    expect(csrfOf(login.text)).toBeTruthy();
    const ok = await web.post(
      '/login',
      { email: 'observer@punchlist.test', password: PASSWORD, next: '/items/1000?saved=comment' },
      login.text,
    );
    expect(ok.location).toBe('/items/1000?saved=comment');
  });
});
