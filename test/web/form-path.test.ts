import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { ApiError, type FieldError } from '../../src/shared/errors.js';
import { commentOf, planningOf, statusOf } from '../../src/web/pages/item-forms.js';
import { changedTables, snapshot } from '../helpers/snapshot.js';
import type { UserKey } from '../helpers/workspace.js';
import { decode, signedInClients, WebClient } from './web-client.js';

/**
 * The one form path (STYLE.md 15, issue 41 item 5): a form parsed with its v1 twin's schema, refusing what v1
 * refuses under the same field names; the audit queue written once per write, whatever the write touches.
 */
let server: TestServer;
const as = signedInClients(() => server.url);

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** Counts the audit service's flushes while `run` runs (the real service and database; only counted). */
async function flushesDuring(run: () => Promise<unknown>): Promise<number> {
  const audit = server.ctx.audit;
  const flush = audit.flush;
  let calls = 0;
  audit.flush = () => {
    calls++;
    return flush();
  };
  try {
    await run();
  } finally {
    audit.flush = flush;
  }
  return calls;
}

describe('the audit queue', () => {
  it('is flushed once per web write: an item form, and a bulk change of three items', async () => {
    const web = await as('manager');
    const page = await web.get('/items/1001');
    let comment = 0;
    const commentFlushes = await flushesDuring(async () => {
      comment = (await web.post('/items/1001/comments', { text: 'Flushed once' }, page.text)).status;
    });
    expect(comment).toBe(303);
    expect(commentFlushes).toBe(1);

    const list = await web.get('/projects/1');
    let bulk = 0;
    const bulkFlushes = await flushesDuring(async () => {
      bulk = (await web.post('/projects/1/bulk', { items: ['1000', '1001', '1010'], priority: 'low' }, list.text)).status;
    });
    expect(bulk).toBe(303);
    expect(bulkFlushes).toBe(1);
  });

  it('is flushed once per v1 write, and not for a read', async () => {
    let status = 0;
    const write = await flushesDuring(async () => {
      status = (
        await server.call(`${V1}/comments/create.php`, {
          method: 'POST',
          token: server.tokens.manager,
          json: { item_id: 1001, text: 'Once' },
        })
      ).status;
    });
    expect(status).toBe(201);
    expect(write).toBe(1);
    const read = await flushesDuring(() => server.call(`${V1}/items/get.php?id=1001`, { token: server.tokens.manager }));
    expect(read).toBe(0);
  });
});

/** The fields (and messages) a web form's parse refuses. */
/** A form's refusal as v1 would send it: each field and its English message (its reason's key is the web's own). */
function refusedByForm(parse: (form: URLSearchParams) => unknown, fields: Record<string, string>): FieldError[] {
  try {
    parse(new URLSearchParams(fields));
  } catch (err) {
    if (err instanceof ApiError && err.status === 422) return (err.details ?? []).map(({ field, message }) => ({ field, message }));
    throw err;
  }
  throw new Error('the form accepted it');
}

async function refusedByV1(method: string, path: string, json: Record<string, unknown>): Promise<FieldError[]> {
  const response = await server.call(`${V1}${path}`, { method, token: server.tokens.manager, json });
  expect(response.status).toBe(422);
  return response.body.error.details;
}

describe('a web form and its v1 twin', () => {
  it('refuse the same bad input with the same field names and messages', async () => {
    const cases = [
      [statusOf, { status: 'finished' }, 'PATCH', '/items/status.php', { id: 1001, status: 'finished' }],
      [statusOf, {}, 'PATCH', '/items/status.php', { id: 1001 }],
      [planningOf, { priority: 'urgent', deadline: '' }, 'PATCH', '/items/planning.php', { id: 1001, priority: 'urgent', deadline: '' }],
      [commentOf, {}, 'POST', '/comments/create.php', { item_id: 1001 }],
    ] as const;
    for (const [parse, form, method, path, json] of cases) {
      const web = refusedByForm(parse, form);
      expect(web.length).toBeGreaterThan(0);
      expect(web).toEqual(await refusedByV1(method, path, json));
    }
  });

  it('the refused web form is shown again (422), its summary linking the schema’s message to the field', async () => {
    const web = await as('manager');
    const page = await web.get('/items/1001');
    const refused = await web.post('/items/1001/planning', { deadline: '', priority: 'urgent' }, page.text);
    expect(refused.status).toBe(422);
    expect(decode(refused.text)).toContain('<a href="#planning-priority">Priority: must be one of low, medium, high</a>');
  });
});

/** The database as "nothing changed" means it (test/helpers/snapshot.ts: bookkeeping left out). */
const data = () => snapshot(server.ctx.db.kysely, server.ctx.db.dialect);

/** A form as posted. */
type Fields = Record<string, string | string[]>;

/** The hidden fields of the consent page: the authorization request the form repeats. */
async function consentFields(web: WebClient): Promise<{ page: string; fields: Record<string, string> }> {
  const redirect = 'http://127.0.0.1:9/callback';
  const registered = await server.call('/oauth/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Form path agent', redirect_uris: [redirect] }),
  });
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: registered.body.client_id as string,
    redirect_uri: redirect,
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    scope: 'auth:me items:read',
  });
  const page = `/oauth/authorize?${query}`;
  const text = (await web.get(page)).text;
  const fields: Record<string, string> = {};
  for (const match of text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[match[1]!] = decode(match[2]!);
  return { page, fields };
}

describe('every form parsed by parseFields', () => {
  it('answers a bad value with 422, the form again naming the field, and changes nothing', async () => {
    const consent = await consentFields(await as('manager'));
    // Who posts, from which page (its CSRF token), and per form: its path, a bad value, what the page then says of the
    // field (the place and from-template forms say "please check the form" only: their views).
    const pages: [UserKey, string, [string, Fields, string][]][] = [
      [
        'manager',
        '/projects/1/structure',
        [
          ['/projects/1/sections', { name: ' ' }, 'Section name: must be 1 to 200 characters'],
          ['/projects/1/checklists', { name: 'New', section: 'ten' }, 'Section: choose a section'],
          ['/sections/10/rename', { name: '' }, 'Rename section “Safety”: must be 1 to 200 characters'],
          ['/checklists/100/rename', { name: '' }, 'Rename checklist “Fire”: must be 1 to 200 characters'],
          ['/sections/10/move', { direction: 'sideways' }, 'direction: must be up or down'],
          ['/checklists/100/move', { direction: 'sideways' }, 'direction: must be up or down'],
          ['/projects/1/categories', { name: '' }, 'Category name: must be 1 to 100 characters'],
          ['/projects/1/template', { name: '' }, 'Template name: must be 1 to 200 characters'],
          ['/projects/1/checklists/from-template', { template: 'x', section: '10' }, 'please check the form. <a href="#from-template">'],
          ['/projects/1/fields', { name: 'Colour', kind: 'colour', options: '' }, 'Field kind: choose one of text, number, date, choice'],
          [
            '/projects/1/escalation',
            { enabled: '1', every_days: 'x', managers_after_days: '3' },
            'Every how many days while overdue: must be a whole number of days from 1 to 30',
          ],
        ],
      ],
      [
        'admin',
        '/admin/projects',
        [['/admin/projects', { name: '', description: '', deadline: '', template: '' }, 'Project name: must be 1 to 200 characters']],
      ],
      [
        'admin',
        '/admin/projects/1',
        [
          [
            '/admin/projects/1',
            { name: 'Plant audit', description: '', deadline: '31.12.2027' },
            'Deadline: must be a real date written YYYY-MM-DD, or empty to clear it',
          ],
          ['/admin/projects/1/members', { user: '4', role: 'boss', access: 'all' }, 'role: must be one of manager, executor, observer'],
        ],
      ],
      [
        'admin',
        '/admin/users',
        [
          [
            '/admin/users',
            { email: 'not an address', name: 'N', role: 'member', password: 'long enough 1' },
            'Email address: must be an email address',
          ],
        ],
      ],
      [
        'admin',
        '/admin/companies',
        [
          ['/admin/companies', { name: '', trade: '' }, 'Name: must be 1 to 200 characters'],
          ['/admin/companies/people', { user: 'x', company: '' }, 'Person: choose one of the users'],
        ],
      ],
      [
        'manager',
        '/projects/1',
        [
          ['/projects/1/bulk', { items: ['1000'], status: 'finished' }, 'New status: choose one of pending, in_progress, done, blocked'],
          ['/projects/1/verdict', { verdict: 'maybe' }, 'verdict: must be one of accepted, rejected or empty'],
        ],
      ],
      [
        'manager',
        '/profile',
        [
          ['/profile/time-zone', { time_zone: 'Mars/Base' }, 'Time zone: choose one of the listed time zones'],
          [
            '/profile/password',
            { current_password: 'not it at all', new_password: 'second password 2', confirm_password: 'second password 2' },
            'Current password: is not your current password',
          ],
          ['/profile/tokens', { name: 'T', scopes: 'items:read', expiry: 'forever' }, 'expiry: choose one of the offered expiries'],
          [
            '/profile/webhooks',
            { url: 'https://example.test/hook', events: 'item.created', project_id: 'x' },
            'project: choose one of the offered projects',
          ],
          ['/profile/notifications', { item_assigned: 'sometimes' }, 'kind: unknown notification kind "item_assigned"'],
        ],
      ],
      [
        'manager',
        '/projects/1/invite',
        [['/projects/1/invite', { name: 'N', email: 'not an address', company: '', role: 'executor' }, 'Email: must be an email address']],
      ],
      [
        'manager',
        '/items/1001',
        [['/items/1001/location', { plan_id: '1', x: 'left', y: '0.5' }, 'please check the form. <a href="#place">']],
      ],
      [
        'manager',
        consent.page,
        [
          [
            '/oauth/authorize',
            { ...consent.fields, decision: 'allow', scopes: 'items:read', expiry: 'forever' },
            'expiry: choose one of the offered expiries',
          ],
        ],
      ],
    ];
    for (const [user, path, forms] of pages) {
      for (const [action, fields, says] of forms) {
        const web = await as(user);
        const page = await web.get(path);
        const before = await data();
        const refused = await web.post(action, fields, page.text);
        expect(refused.status, action).toBe(422);
        expect(decode(refused.text), action).toContain(says);
        expect(changedTables(before, await data()), action).toEqual([]);
      }
    }
    // "Add item" is multipart (its photos): the same parse, read from the upload's fields.
    const web = await as('manager');
    const page = await web.get('/projects/1/items/new');
    const before = await data();
    const item = new FormData();
    item.append('checklist', 'fire');
    item.append('text', 'Refused');
    const refused = await web.postMultipart('/projects/1/items', item, page.text);
    expect(refused.status).toBe(422);
    expect(decode(refused.text)).toContain('Checklist: choose a checklist');
    expect(changedTables(before, await data())).toEqual([]);
  });
});
