import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/domain/values.js';
import { freePort } from '../helpers/child-server.js';
import { startReceiver, waitUntil } from '../helpers/receiver.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { USERS } from '../helpers/workspace.js';
import { decode, signedInClients } from './web-client.js';

/**
 * The Profile's "Webhooks" block (docs/design.md §8, §11) over real HTTP: create (secret once), list, a refused
 * URL, disable after confirmation, owners only, and Redeliver to a real receiver on loopback.
 */
let receiver: Awaited<ReturnType<typeof startReceiver>>;

let server: TestServer;
const as = signedInClients(() => server.url);
const SECRET = /data-testid="new-webhook-secret">(whsec_[A-Za-z0-9+/=]+)<\/code>/;

/** Each endpoint's article on a Profile page, by its URL. */
function rowOf(page: string, url: string): string | undefined {
  return page.match(/<article class="card" data-testid="webhook-row"[\s\S]*?<\/article>/g)?.find((r) => r.includes(`>${url}</h4>`));
}
const idOf = (row: string) => Number(/data-webhook-id="(\d+)"/.exec(row)![1]);

async function count(table: 'webhook_endpoints' | 'webhook_deliveries') {
  return Number(
    (
      await server.ctx.db.kysely
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
}

beforeAll(async () => {
  receiver = await startReceiver();
  server = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: '1' } });
});

afterAll(async () => {
  await server.ctx.webhookWorker.stop();
  await server.close();
  receiver.close();
});

describe('Webhooks on /profile', () => {
  it('has the block: URL, one checkbox per event type, the projects the user sees, "Create webhook"', async () => {
    const page = await (await as('executor')).get('/profile');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<section class="card" aria-labelledby="webhooks-title">\n<h2 id="webhooks-title">Webhooks</h2>');
    expect(page.text).toContain('<label for="webhook-url">URL</label>');
    expect(page.text).toMatch(/<input id="webhook-url" type="url" name="url"/);
    for (const type of EVENT_TYPES) {
      expect(page.text).toContain(
        `<label class="inline" for="event-${type}"><input type="checkbox" id="event-${type}" name="events" value="${type}"`,
      );
      expect(page.text).toMatch(new RegExp(`value="${type.replace('.', '\\.')}"\\s*>${type.replace('.', '\\.')}</label>`));
    }
    expect(page.text).toContain('None ticked: every event type');
    expect(page.text).toContain('<label for="webhook-project">Project</label>');
    expect(page.text).toContain('<option value="">All my projects</option>');
    expect(page.text).toContain('<option value="1" >Plant audit</option>');
    expect(page.text).not.toContain('>Other</option>'); // project 3: the executor does not see it
    expect(page.text).not.toContain('>Archived works</option>');
    expect(page.text).toContain('<button type="submit">Create webhook</button>');
    expect(page.text).toContain('No webhooks yet.');
    // CSP: no inline script or style.
    expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(page.text).not.toMatch(/\sstyle=/);
    expect(page.text).not.toMatch(/\son[a-z]+=/);
  });

  it('creates a webhook, shows its secret once (no-store, 201), then lists it', async () => {
    const web = await as('executor');
    const profile = await web.get('/profile');
    const url = `${receiver.base}/executor?x=<1>`;
    const created = await web.post(
      '/profile/webhooks',
      { url, events: ['comment.created', 'answer.created'], project_id: '1' },
      profile.text,
    );
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const secret = SECRET.exec(created.text)?.[1];
    expect(secret).toMatch(/^whsec_/);
    expect(created.text).toContain('Copy it now: it is shown only this once.');
    const endpoints = await server.ctx.webhooks.list({ id: USERS.executor, role: 'member' });
    expect(endpoints).toEqual([
      expect.objectContaining({
        url: `${receiver.base}/executor?x=%3C1%3E`,
        events: ['comment.created', 'answer.created'],
        project_id: 1,
        state: 'active',
      }),
    ]);
    const stored = await server.ctx.db.kysely
      .selectFrom('webhook_endpoints')
      .select('secret')
      .where('id', '=', endpoints[0]!.id)
      .executeTakeFirstOrThrow();
    expect(stored.secret).toBe(secret);

    const later = await web.get('/profile');
    expect(later.text).not.toContain(secret);
    expect(later.text).not.toContain('data-testid="new-webhook-secret"');
    const row = rowOf(later.text, endpoints[0]!.url)!;
    expect(row).toBeDefined();
    expect(idOf(row)).toBe(endpoints[0]!.id);
    expect(row).toContain('<dd data-testid="webhook-state"><span class="badge s-active">active</span></dd>');
    expect(row).toContain('<code>comment.created</code>, <code>answer.created</code>');
    expect(row).toContain('<dd data-testid="webhook-project">Plant audit</dd>');
    expect(row).toContain('No deliveries yet.');
    expect(row).toContain(`action="/profile/webhooks/${endpoints[0]!.id}/disable"`);
    expect(row).toContain('>Disable</button>');
    expect(row).not.toContain('whsec_');

    // None ticked, no project: every type, every project.
    const all = await web.post('/profile/webhooks', { url: `${receiver.base}/executor-all`, project_id: '' }, later.text);
    expect(all.status).toBe(201);
    const allRow = rowOf(all.text, `${receiver.base}/executor-all`)!;
    expect(allRow).toContain('<dd data-testid="webhook-events">All event types</dd>');
    expect(allRow).toContain('<dd data-testid="webhook-project">All my projects</dd>');
  });

  it('shows the form again with the typed URL and the reason when the webhook is refused', async () => {
    const web = await as('observer');
    const profile = await web.get('/profile');
    const before = await count('webhook_endpoints');
    const url = 'http://someone:pass@127.0.0.1:9/"hook"';
    const refused = await web.post('/profile/webhooks', { url, events: ['answer.reviewed'], project_id: '1' }, profile.text);
    expect(refused.status).toBe(422);
    expect(refused.headers.get('cache-control')).toBe('no-store');
    expect(refused.text).toContain('value="http://someone:pass@127.0.0.1:9/&quot;hook&quot;"');
    // The form starts with its error summary, linking to the field.
    expect(refused.text).toMatch(
      /<div id="webhook-error"><div class="error-summary" role="alert"[^>]*>[\s\S]*?<li><a href="#webhook-url">The webhook was not created: url: must not hold a user name or password<\/a><\/li>/,
    );
    expect(refused.text).toContain('aria-describedby="webhook-url-help webhook-error" aria-invalid="true"');
    expect(refused.text).toMatch(/value="answer\.reviewed"\s+checked>/);
    expect(refused.text).toContain('<option value="1" selected>Plant audit</option>');
    expect(refused.text).not.toContain('data-testid="new-webhook-secret"');

    const [badEvent, hiddenProject, badProject, empty] = await Promise.all([
      web.post('/profile/webhooks', { url: `${receiver.base}/o`, events: ['item.deleted'] }, profile.text),
      web.post('/profile/webhooks', { url: `${receiver.base}/o`, project_id: '3' }, profile.text),
      web.post('/profile/webhooks', { url: `${receiver.base}/o`, project_id: 'one' }, profile.text),
      web.post('/profile/webhooks', { url: '  ' }, profile.text),
    ]);
    expect(badEvent.status).toBe(422);
    expect(decode(badEvent.text)).toContain('events: unknown event type item.deleted');
    expect(hiddenProject.status).toBe(422);
    expect(hiddenProject.text).toContain('project: The project was not found');
    expect(badProject.status).toBe(422);
    expect(badProject.text).toContain('project: choose one of the offered projects');
    expect(empty.status).toBe(422);
    expect(empty.text).toContain('url: is required');
    expect(await count('webhook_endpoints')).toBe(before);
  });

  it('disables a webhook after confirmation; it stays listed, disabled, with the reason', async () => {
    const web = await as('bystander');
    const profile = await web.get('/profile');
    const url = `${receiver.base}/bystander`;
    expect((await web.post('/profile/webhooks', { url }, profile.text)).status).toBe(201);
    const row = rowOf((await web.get('/profile')).text, url)!;
    expect(row).toContain(`data-confirm="Disable the webhook to ${url}? Nothing more is sent to it, and it cannot be enabled again."`);
    const id = idOf(row);

    // Without the confirmation, a page asks first and nothing changes.
    const ask = await web.post(`/profile/webhooks/${id}/disable`, {}, profile.text);
    expect(ask.status).toBe(200);
    expect(ask.text).toContain(`<h1>Disable the webhook to ${url}?</h1>`);
    expect(ask.text).toContain('<input type="hidden" name="confirmed" value="1">');
    expect((await server.ctx.webhooks.list({ id: USERS.bystander, role: 'member' }))[0]!.state).toBe('active');

    const done = await web.post(`/profile/webhooks/${id}/disable`, { confirmed: '1' }, ask.text);
    expect(done.status).toBe(303);
    expect(done.location).toBe('/profile?webhook_disabled=1');
    const after = await web.get(done.location!);
    expect(after.text).toContain('<div class="notice" role="status">The webhook was disabled.</div>');
    const disabled = rowOf(after.text, url)!;
    expect(disabled).toContain('<span class="badge s-disabled">disabled</span>');
    expect(disabled).toContain('<span data-testid="webhook-disabled-reason">disabled by its owner</span>');
    expect(disabled).not.toContain('>Disable</button>');
    expect(await server.ctx.webhooks.list({ id: USERS.bystander, role: 'member' })).toEqual([
      expect.objectContaining({ id, state: 'disabled', disabled_reason: 'disabled by its owner' }),
    ]);
  });

  it("gives 404 for another user's webhook or an unknown one, and lists only the user's own", async () => {
    const [executor] = await server.ctx.webhooks.list({ id: USERS.executor, role: 'member' });
    const manager = await as('manager');
    const page = await manager.get('/profile');
    expect(page.text).not.toContain(`data-webhook-id="${executor!.id}"`);
    expect(page.text).not.toContain(`${receiver.base}/executor`);
    for (const path of [`/profile/webhooks/${executor!.id}/disable`, '/profile/webhooks/999999/disable', '/profile/webhooks/abc/disable']) {
      const response = await manager.post(path, { confirmed: '1' }, page.text);
      expect(response.status, path).toBe(404);
      expect(response.text).toContain('<h1>Page not found</h1>');
    }
    expect((await server.ctx.webhooks.list({ id: USERS.executor, role: 'member' }))[0]!.state).toBe('active');
    // Without the CSRF field, nothing happens.
    expect((await manager.post(`/profile/webhooks`, { url: `${receiver.base}/csrf` })).status).toBe(403);
  });

  it('redelivers a logged delivery: the receiver gets the same webhook-id again, and the list shows it', async () => {
    const web = await as('manager');
    const profile = await web.get('/profile');
    const url = `${receiver.base}/redeliver`;
    expect((await web.post('/profile/webhooks', { url, events: 'comment.created' }, profile.text)).status).toBe(201);

    // And one whose receiver is gone: a port nothing listens on any more.
    const closedUrl = `http://127.0.0.1:${await freePort()}/closed`;
    expect((await web.post('/profile/webhooks', { url: closedUrl, events: 'comment.created' }, profile.text)).status).toBe(201);

    await server.ctx.comments.addComment({ id: USERS.manager, role: 'member', name: 'Manager' }, 1001, { text: 'x' });
    const at = () => receiver.at('/redeliver');
    const failures = async () =>
      (await server.ctx.webhooks.listWithDeliveries({ id: USERS.manager, role: 'member' })).find((w) => w.url === closedUrl)!.deliveries;
    server.ctx.webhookWorker.start();
    const first = await waitUntil(at, (list) => list.length >= 1);
    for (let i = 0; i < 200 && (await failures()).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    await server.ctx.webhookWorker.stop();
    expect(first.length).toBe(1);
    const webhookId = first[0]!.headers['webhook-id'];
    expect(webhookId).toMatch(/^msg_\d+$/);
    const eventId = Number(String(webhookId).slice(4));

    const listed = await web.get('/profile');
    const row = rowOf(listed.text, url)!;
    const deliveries = row.match(/<tr data-testid="delivery-row"[\s\S]*?<\/tr>/g)!;
    expect(deliveries.length).toBe(1);
    expect(deliveries[0]).toContain(`<td data-label="Event" data-testid="delivery-event">${eventId}</td>`);
    expect(deliveries[0]).toContain('<td data-label="Attempt">1</td>');
    expect(deliveries[0]).toContain('<span class="badge s-succeeded">succeeded</span>');
    expect(deliveries[0]).toContain('<td data-label="Response">HTTP 200</td>');
    expect(deliveries[0]).toMatch(/<td data-label="Duration">\d+ ms<\/td>/);
    expect(deliveries[0]).toMatch(/<td data-label="Time"><time datetime="[^"]+">\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC<\/time><\/td>/);
    const action = /action="(\/profile\/webhooks\/deliveries\/(\d+)\/redeliver)"/.exec(deliveries[0]!)!;
    expect(deliveries[0]).toContain('>Redeliver</button>');

    // Another user cannot redeliver it, nor see it.
    const outsider = await as('outsider');
    const outsiderPage = await outsider.get('/profile');
    expect(outsiderPage.text).not.toContain(action[1]);
    const refused = await outsider.post(action[1]!, {}, outsiderPage.text);
    expect(refused.status).toBe(404);
    expect(refused.text).toContain('The delivery was not found');
    expect((await web.post('/profile/webhooks/deliveries/999999/redeliver', {}, listed.text)).status).toBe(404);
    expect(at().length).toBe(1);

    const again = await web.post(action[1]!, {}, listed.text);
    expect(again.status).toBe(303);
    expect(again.location).toBe('/profile?redelivered=200#webhooks-title');
    expect(at().length).toBe(2);
    expect(at()[1]!.headers['webhook-id']).toBe(webhookId);
    expect(at()[1]!.body).toBe(first[0]!.body);

    const after = await web.get('/profile?redelivered=200');
    expect(after.text).toContain('<div class="notice" role="status">The event was sent again: the receiver accepted it (HTTP 200).</div>');
    const rows = rowOf(after.text, url)!.match(/<tr data-testid="delivery-row"[\s\S]*?<\/tr>/g)!;
    expect(rows.length).toBe(2);
    expect(rows[0]).toContain(`data-testid="delivery-event">${eventId}</td>`);
    expect(rows[0]).toContain('<td data-label="Attempt">1 <span class="muted">(redelivery)</span></td>');
    expect(rows[0]).toContain('<span class="badge s-succeeded">succeeded</span>');

    // A receiver that refuses: said so, and logged as failed.
    receiver.answers.set('/redeliver', [500]);
    const failed = await web.post(action[1]!, {}, after.text);
    expect(failed.location).toBe('/profile?redelivered=500#webhooks-title');
    const failedPage = await web.get('/profile?redelivered=500');
    expect(failedPage.text).toContain('The event was sent again, but the receiver did not accept it (HTTP 500).');
    const newest = rowOf(failedPage.text, url)!.match(/<tr data-testid="delivery-row"[\s\S]*?<\/tr>/)![0];
    expect(newest).toContain('<span class="badge s-failed">failed</span>');
    expect(newest).toContain('HTTP 500');
    expect(at().length).toBe(3);

    // No answer at all: said so; the error is in the list.
    const closedRow = rowOf(failedPage.text, closedUrl)!;
    expect(closedRow).toContain('<span class="badge s-failed">failed</span>');
    expect(closedRow).toMatch(/<td data-label="Response"><span class="muted">[^<]+<\/span><\/td>/);
    const closedAction = /action="(\/profile\/webhooks\/deliveries\/\d+\/redeliver)"/.exec(closedRow)![1]!;
    const none = await web.post(closedAction, {}, failedPage.text);
    expect(none.location).toBe('/profile?redelivered=none#webhooks-title');
    expect((await web.get('/profile?redelivered=none')).text).toContain('The event was sent again, but the receiver did not answer');
    // No notice for a value the page did not send (the offline outbox's own status line is always there, hidden).
    expect((await web.get('/profile?redelivered=forged')).text).not.toContain('<div class="notice" role="status">');
  });
});

describe('Webhooks on /profile without WEBHOOK_ALLOW_PRIVATE', () => {
  let strict: TestServer;
  beforeAll(async () => {
    strict = await startTestServer();
  });
  afterAll(() => strict.close());

  it('refuses a loopback receiver, naming the address, and says so in the hint', async () => {
    const client = await signedInClients(() => strict.url)('manager');
    const profile = await client.get('/profile');
    expect(profile.text).toContain('addresses of this machine or of a private network are refused');
    const refused = await client.post('/profile/webhooks', { url: 'http://127.0.0.1:9/hook' }, profile.text);
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('value="http://127.0.0.1:9/hook"');
    expect(refused.text).toContain('resolves to 127.0.0.1, a loopback, private or link-local address');
    expect(await strict.ctx.webhooks.list({ id: USERS.manager, role: 'member' })).toEqual([]);
  });
});
