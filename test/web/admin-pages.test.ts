import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { USERS, type UserKey } from '../helpers/workspace.js';
import { signedInClients, WebClient } from './web-client.js';

/** The web pages of managers and administrators: reviews and verdicts, administration, the audit log. */

let server: TestServer;
/** One signed-in client per workspace user, reused across tests. */
const as = signedInClients(() => server.url);

/** GET the page, then post a form with its CSRF token. */
async function submit(user: UserKey, pagePath: string, action: string, fields: Record<string, string | string[]>) {
  const web = await as(user);
  const page = await web.get(pagePath);
  return web.post(action, fields, page.text);
}

/** The audit records of web writes to `path` (token null), oldest first. */
const webAudit = (path: string) =>
  server.ctx.db.kysely
    .selectFrom('audit_log')
    .select(['user_id', 'status', 'entity_type', 'entity_id'])
    .where('path', '=', path)
    .where('token_id', 'is', null)
    .orderBy('id')
    .execute();

const card = async (id: number, user: UserKey = 'manager') =>
  (await server.call(`${V1}/items/get.php?id=${id}`, { token: server.tokens[user] })).body.data.item;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('review (manager and admin only)', () => {
  it('lets a manager approve and reject answers, with a review record each', async () => {
    const page = await (await as('manager')).get('/items/1000');
    expect(page.text).toMatch(/data-answer-id="7001"[\s\S]*?Approve<\/button>/);
    const approve = await submit('manager', '/items/1000', '/items/1000/answers/7001/review', { decision: 'approved' });
    expect(approve.status).toBe(303);
    expect(approve.location).toBe('/items/1000?saved=review');
    expect((await card(1000)).answers.find((a: any) => a.id === 7001).status).toBe('approved');
    const reviews = await server.ctx.db.kysely.selectFrom('answer_reviews').selectAll().where('answer_id', '=', 7001).execute();
    expect(reviews).toMatchObject([{ from_status: 'pending', to_status: 'approved', reason: 'review', user_id: USERS.manager }]);

    await submit('admin', '/items/1000', '/items/1000/answers/7001/review', { decision: 'rejected' });
    expect((await card(1000)).answers.find((a: any) => a.id === 7001).status).toBe('rejected');
    const bad = await submit('manager', '/items/1000', '/items/1000/answers/7001/review', { decision: 'pending' });
    expect(bad.status).toBe(422);
  });

  it('refuses reviews, verdicts and rework to everybody else, with 403 (404 when invisible)', async () => {
    for (const user of ['executor', 'bystander', 'observer', 'partial'] as const) {
      const web = await as(user);
      const page = await web.get('/items/1000');
      expect(page.text).not.toContain('Approve</button>');
      for (const [action, fields] of [
        ['/items/1000/answers/7000/review', { decision: 'rejected' }],
        ['/items/1000/verdict', { verdict: 'accepted' }],
        ['/items/1000/rework', { reason: 'Redo', deadline: '2099-01-01' }],
        ['/projects/1/verdict', { verdict: 'accepted' }],
      ] as const) {
        const response = await web.post(action, fields, page.text);
        expect(response.status, `${user} ${action}`).toBe(403);
      }
    }
    const outsider = await as('outsider');
    const profile = await outsider.get('/profile');
    expect((await outsider.post('/items/1000/verdict', { verdict: 'accepted' }, profile.text)).status).toBe(404);
    expect((await outsider.post('/projects/1/verdict', { verdict: 'accepted' }, profile.text)).status).toBe(404);
    const item = await card(1000);
    expect(item.verdict).toBeNull();
    expect(item.answers.find((a: any) => a.id === 7000).status).toBe('approved');
  });

  it('sets the item verdict, reflected in the API card; accepts only a done item (422 beside "Item verdict")', async () => {
    expect((await card(1001)).can_verdict).toBe(true);
    expect((await card(1001, 'executor')).can_verdict).toBe(false);
    expect((await card(1001, 'executor')).can_return_to_rework).toBe(false);
    const refused = await submit('manager', '/items/1001', '/items/1001/verdict', { verdict: 'accepted' });
    expect(refused.status).toBe(422);
    expect(refused.text).toMatch(
      /<label for="item-verdict-select">Item verdict<\/label>\n<select id="item-verdict-select" name="verdict" aria-invalid="true" aria-describedby="item-verdict-select-error">/,
    );
    expect(refused.text).toContain('<p class="field-error" id="item-verdict-select-error">Only a done item can be accepted');
    expect((await card(1001)).verdict).toBeNull();
    // Rejecting says the work is not acceptable as it stands: open whatever the status.
    expect((await submit('manager', '/items/1001', '/items/1001/verdict', { verdict: 'rejected' })).status).toBe(303);
    expect((await card(1001)).verdict).toBe('rejected');
    expect((await submit('manager', '/items/1001', '/items/1001/status', { status: 'done' })).status).toBe(303);
    const response = await submit('manager', '/items/1001', '/items/1001/verdict', { verdict: 'accepted' });
    expect(response.status).toBe(303);
    const item = await card(1001, 'executor');
    expect(item.verdict).toBe('accepted');
    // v1's status_history keeps the spec's two kinds: a verdict is not a status change (the web page shows it).
    expect(item.status_history.every((h: any) => h.kind === 'created' || h.kind === 'status_changed')).toBe(true);
    expect((await (await as('manager')).get('/items/1001')).text).toMatch(/set the verdict: <span class="badge s-accepted">/);
    const page = await (await as('executor')).get('/items/1001');
    expect(page.text).toMatch(/data-testid="item-verdict"><span class="badge s-accepted">accepted/);
    await submit('manager', '/items/1001', '/items/1001/verdict', { verdict: '' });
    expect((await card(1001)).verdict).toBeNull();
    expect((await submit('manager', '/items/1001', '/items/1001/verdict', { verdict: 'maybe' })).status).toBe(422);
    expect((await submit('manager', '/items/1001', '/items/1001/status', { status: 'in_progress' })).status).toBe(303);
  });

  it('returns an item to rework with a reason and a deadline, clearing its verdict', async () => {
    expect((await submit('manager', '/items/1010', '/items/1010/verdict', { verdict: 'accepted' })).status).toBe(303);
    expect((await card(1010)).verdict).toBe('accepted');
    const response = await submit('manager', '/items/1010', '/items/1010/rework', { reason: 'Signs are missing', deadline: '2099-02-01' });
    expect(response.status).toBe(303);
    const item = await card(1010, 'executor');
    expect(item).toMatchObject({ status: 'in_progress', rework_reason: 'Signs are missing', rework_deadline: '2099-02-01', verdict: null });
    const [event] = (await server.call(`${V1}/events/list.php?item_id=1010&types=item.returned_to_rework`, { token: server.tokens.admin }))
      .body.data.events;
    expect(event.data).toMatchObject({ from: 'done', to: 'in_progress', verdict: { from: 'accepted', to: null } });
    expect(item.status_history.at(-1)).toMatchObject({
      kind: 'status_changed',
      from: 'done',
      to: 'in_progress',
      user: { id: USERS.manager },
      note: 'Signs are missing',
    });
    const page = await (await as('observer')).get('/items/1010');
    expect(page.text).toContain('Signs are missing');
    for (const fields of [
      { reason: '', deadline: '2099-02-01' },
      { reason: 'x', deadline: '2000-01-01' },
      { reason: 'x', deadline: 'soon' },
    ]) {
      expect((await submit('manager', '/items/1010', '/items/1010/rework', fields)).status).toBe(422);
    }
  });

  it('sets the project verdict; an archived project refuses it', async () => {
    const page = await (await as('manager')).get('/projects/1');
    expect(page.text).toContain('Project verdict');
    expect((await submit('manager', '/projects/1', '/projects/1/verdict', { verdict: 'rejected' })).status).toBe(303);
    const project = await server.call(`${V1}/projects/get.php?id=1`, { token: server.tokens.observer });
    expect(project.body.data.project.verdict).toBe('rejected');
    // Audited in the verdict's transaction, like every web write.
    expect(await webAudit('/projects/1/verdict')).toEqual([{ user_id: USERS.manager, status: 303, entity_type: 'project', entity_id: 1 }]);
    const archived = await (await as('manager')).get('/projects/2');
    expect(archived.text).not.toContain('Project verdict');
    expect((await submit('manager', '/projects/2', '/projects/2/verdict', { verdict: 'accepted' })).status).toBe(403);
    expect((await submit('manager', '/items/3000', '/items/3000/verdict', { verdict: 'accepted' })).status).toBe(403);
    expect((await (await as('executor')).get('/projects/1')).text).not.toContain('Project verdict');
  });
});

describe('administration', () => {
  it('is reserved to administrators', async () => {
    const manager = await as('manager');
    for (const path of ['/admin', '/admin/users', '/admin/projects/1']) {
      expect((await manager.get(path)).status, path).toBe(403);
    }
    const page = await manager.get('/profile');
    expect(
      (await manager.post('/admin/users', { email: 'x@y.test', name: 'X', role: 'admin', password: 'password1' }, page.text)).status,
    ).toBe(403);
    expect((await manager.post('/admin/projects', { name: 'Sneaky', description: '', deadline: '' }, page.text)).status).toBe(403);
    expect(page.text).not.toContain('href="/admin"');
    expect((await (await as('admin')).get('/projects')).text).toContain('href="/admin"');
  });

  it('creates a user who signs in, and deactivation stops their tokens and sessions at once', async () => {
    const created = await submit('admin', '/admin/users', '/admin/users', {
      email: 'New.Person@punchlist.test',
      name: 'New Person',
      role: 'member',
      password: 'long enough',
    });
    expect(created.status).toBe(303);
    const duplicate = await submit('admin', '/admin/users', '/admin/users', {
      email: 'new.person@punchlist.test',
      name: 'Again',
      role: 'member',
      password: '',
    });
    expect(duplicate.status).toBe(409);
    const person = (await server.ctx.users.findByEmail('new.person@punchlist.test'))!;
    const web = new WebClient(server.url);
    expect((await web.signIn('new.person@punchlist.test', 'long enough')).status).toBe(303);
    const { token } = await server.ctx.tokens.createToken({ userId: person.id, name: 'cli', scopes: ['auth:me'], expiresAt: null });
    expect((await server.call(`${V1}/auth/me.php`, { token })).status).toBe(200);

    const off = await submit('admin', '/admin/users', `/admin/users/${person.id}/active`, { active: '0' });
    expect(off.status).toBe(303);
    const refused = await server.call(`${V1}/auth/me.php`, { token });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('token_revoked');
    expect((await web.get('/projects')).status).toBe(303);
    expect((await new WebClient(server.url).signIn('new.person@punchlist.test', 'long enough')).status).toBe(401);
    expect((await submit('admin', '/admin/users', `/admin/users/${USERS.admin}/active`, { active: '0' })).status).toBe(422);
    // The creation and the deactivation are audited, naming the user; the refusals are not (nothing changed).
    expect(await webAudit('/admin/users')).toEqual([{ user_id: USERS.admin, status: 303, entity_type: 'user', entity_id: person.id }]);
    expect(await webAudit(`/admin/users/${person.id}/active`)).toEqual([
      { user_id: USERS.admin, status: 303, entity_type: 'user', entity_id: person.id },
    ]);

    await submit('admin', '/admin/users', `/admin/users/${person.id}/active`, { active: '1' });
    expect((await server.call(`${V1}/auth/me.php`, { token })).status).toBe(200);
  });

  it('manages memberships with partial access', async () => {
    const editor = '/admin/projects/1';
    const page = await (await as('admin')).get(editor);
    expect(page.text).toContain('data-testid="member-row"');
    const added = await submit('admin', editor, `${editor}/members`, {
      user: String(USERS.outsider),
      role: 'observer',
      access: 'limited',
      sections: [],
      checklists: ['200'],
    });
    expect(added.status).toBe(303);
    const outsider = new WebClient(server.url);
    await outsider.signIn('outsider');
    const tree = await outsider.get('/projects/1');
    expect(tree.status).toBe(200);
    expect(tree.text).toContain('Permits');
    expect(tree.text).not.toContain('Fire');
    expect((await outsider.get('/items/1000')).status).toBe(404);
    expect((await outsider.get('/items/2000')).status).toBe(200);

    expect(
      (await submit('admin', editor, `${editor}/members`, { user: String(USERS.outsider), role: 'observer', access: 'limited' })).status,
    ).toBe(422);
    expect(
      (
        await submit('admin', editor, `${editor}/members`, {
          user: String(USERS.outsider),
          role: 'observer',
          access: 'limited',
          checklists: '400',
        })
      ).status,
    ).toBe(422);
    await submit('admin', editor, `${editor}/members`, { user: String(USERS.outsider), role: 'manager', access: 'whole' });
    expect((await outsider.get('/items/1000')).text).toContain('Save verdict');
    await submit('admin', editor, `${editor}/members/${USERS.outsider}/remove`, {});
    expect((await outsider.get('/projects/1')).status).toBe(404);
  });
});

describe('audit log', () => {
  it('shows a user only the calls made with their own tokens; an admin sees all, with filters', async () => {
    await server.call(`${V1}/auth/me.php`, { token: server.tokens.bystander });
    await server.call(`${V1}/items/get.php?id=4000`, { token: server.tokens.bystander });
    await server.call(`${V1}/auth/me.php`, { token: server.tokens.observer });
    const own = await (await as('bystander')).get('/audit');
    expect(own.status).toBe(200);
    const rows = own.text.match(/<tr data-testid="audit-row">[\s\S]*?<\/tr>/g) ?? [];
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const row of rows) expect(row).toContain(`#${USERS.bystander}<`);
    const errors = await (await as('bystander')).get('/audit?status=4xx');
    const errorRows = errors.text.match(/<tr data-testid="audit-row">[\s\S]*?<\/tr>/g) ?? [];
    expect(errorRows.length).toBe(1);
    expect(errorRows[0]).toContain('/api/external/v1/items/get.php?id=4000');
    expect(errorRows[0]).toContain('not found');
    const future = await (await as('bystander')).get('/audit?from=2999-01-01T00%3A00');
    expect(future.text).toContain('No calls match.');

    const all = await (await as('admin')).get(`/audit?user=${USERS.observer}`);
    const observerRows = all.text.match(/<tr data-testid="audit-row">[\s\S]*?<\/tr>/g) ?? [];
    expect(observerRows.length).toBeGreaterThanOrEqual(1);
    for (const row of observerRows) expect(row).toContain('<td data-label="User">Observer</td>');
    const byToken = await (await as('admin')).get(`/audit?token=${USERS.bystander}`);
    expect(byToken.text.match(/<tr data-testid="audit-row">/g)?.length).toBeGreaterThanOrEqual(2);
  });

  it("filters a user's own calls by token and by an upper time bound", async () => {
    const minute = (ms: number) => encodeURIComponent(new Date(ms).toISOString().slice(0, 16));
    const web = await as('bystander');
    const before = Date.now();
    const { id, token } = await server.ctx.tokens.createToken({
      userId: USERS.bystander,
      name: 'Filtered',
      scopes: ['auth:me'],
      expiresAt: null,
    });
    await server.call(`${V1}/auth/me.php`, { token });
    await server.call(`${V1}/projects/list.php`, { token });
    await server.call(`${V1}/auth/me.php`, { token: server.tokens.bystander });
    const after = Date.now();
    const rowsOf = (text: string) => text.match(/<tr data-testid="audit-row">[\s\S]*?<\/tr>/g) ?? [];

    const byToken = await web.get(`/audit?token=${id}`);
    expect(byToken.text).toContain(`<option value="${id}" selected>Filtered (#${id}, active)</option>`);
    const rows = rowsOf(byToken.text);
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row).toContain(`Filtered #${id}`);
    expect(rows[0]).toContain('/api/external/v1/projects/list.php');
    expect(rows[1]).toContain('/api/external/v1/auth/me.php');

    // Another user's token filters nothing in: a member only ever sees their own calls.
    expect((await web.get(`/audit?token=${USERS.observer}`)).text).toContain('No calls match.');
    expect(rowsOf((await web.get(`/audit?token=${id}&user=${USERS.observer}`)).text)).toHaveLength(2);

    // "To" is exclusive, to the minute (UTC): the minute the calls began excludes them, the next one after includes them.
    expect((await web.get(`/audit?token=${id}&to=${minute(before)}`)).text).toContain('No calls match.');
    const upTo = await web.get(`/audit?token=${id}&to=${minute(after + 60_000)}`);
    expect(upTo.text).toContain(`value="${new Date(after + 60_000).toISOString().slice(0, 16)}"`);
    expect(rowsOf(upTo.text)).toHaveLength(2);
    expect(rowsOf((await web.get(`/audit?token=${id}&from=${minute(before)}&to=${minute(after + 60_000)}`)).text)).toHaveLength(2);
    expect(rowsOf((await web.get(`/audit?to=${minute(before)}`)).text).length).toBeLessThan(rowsOf((await web.get('/audit')).text).length);
    // A value that is not a datetime-local is no bound at all.
    expect(rowsOf((await web.get(`/audit?token=${id}&to=yesterday`)).text)).toHaveLength(2);
  });
});
