import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../helpers/plans.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import type { UserKey } from '../helpers/workspace.js';
import { decode, WebClient } from './web-client.js';

/**
 * The reasons the features give for a refused form (docs/design.md §23), beside the field in the page's language:
 * a Russian user posting bad input to the item, plan, template, company, vocabulary and escalation forms reads
 * Russian and none of the English; v1 answers the same refusals in English as it always did.
 */
let server: TestServer;
const clients = new Map<UserKey, WebClient>();

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** A user of the workspace signed in from a Russian browser (no language chosen in the Profile). */
async function russian(user: UserKey): Promise<WebClient> {
  let web = clients.get(user);
  if (!web) {
    web = new WebClient(server.url, { 'accept-language': 'ru-RU,ru;q=0.9' });
    expect((await web.signIn(user)).status).toBe(303);
    clients.set(user, web);
  }
  return web;
}

async function submit(user: UserKey, pagePath: string, action: string, fields: Record<string, string>) {
  const web = await russian(user);
  const page = await web.get(pagePath);
  return web.post(action, fields, page.text);
}

async function upload(path: string, file: { bytes: Buffer | string; name: string; type: string }) {
  const web = await russian('manager');
  const page = await web.get('/projects/1/plans');
  const form = new FormData();
  form.append('file', new Blob([typeof file.bytes === 'string' ? file.bytes : new Uint8Array(file.bytes)], { type: file.type }), file.name);
  form.append('_key', crypto.randomUUID());
  return web.postMultipart(path, form, page.text);
}

/** The refused page says `russian` (HTML decoded) and not `english`. */
function expectRussian(response: { status: number; text: string }, russianText: string, english: string) {
  const text = decode(response.text);
  expect(response.status, english).toBe(422);
  expect(text, english).toContain(russianText);
  expect(text, english).not.toContain(english);
}

/** A form refused: who posts, from which page, to which action, what; the Russian reason shown, the English not. */
const REFUSALS: [string, UserKey, string, string, Record<string, string>, string, string][] = [
  [
    "the item's edit form: a checklist of another project",
    'manager',
    '/items/1001',
    '/items/1001/edit',
    { text: 'Item 1001', checklist: '999999' },
    'выберите чек-лист этого проекта',
    'choose a checklist of this project',
  ],
  [
    "the item's status form: a status the schema refuses",
    'manager',
    '/items/1001',
    '/items/1001/status',
    { status: 'finished' },
    'допустимо одно из: pending, in_progress, done, blocked',
    'must be one of',
  ],
  [
    'a template saved under a name taken',
    'manager',
    '/projects/1/structure',
    '/projects/1/template',
    { name: 'Шаблон отделки' },
    'шаблон с таким названием уже есть',
    'a template of that name exists already',
  ],
  [
    'a category named twice',
    'manager',
    '/projects/1/structure',
    '/projects/1/categories',
    { name: 'Отделка' },
    'уже используется в этом проекте',
    'is already used in this project',
  ],
  [
    'an escalation of no days',
    'manager',
    '/projects/1/structure',
    '/projects/1/escalation',
    { enabled: '1', every_days: '0', managers_after_days: '1' },
    'целое число дней от 1 до',
    'must be a whole number of days',
  ],
  [
    "a company's person who is no user",
    'admin',
    '/admin/companies',
    '/admin/companies/people',
    { user: '999999', company: '' },
    'выберите одного из пользователей',
    'choose one of the users',
  ],
  [
    'an invitation to a role not offered',
    'manager',
    '/projects/1/invite',
    '/projects/1/invite',
    { name: 'Новый человек', email: 'new.person@punchlist.test', company: '', role: 'manager' },
    'допустимо одно из: executor, observer',
    'must be one of',
  ],
];

describe('a refused form of a feature, in Russian', () => {
  beforeAll(async () => {
    // What the refusals find taken: a template and a category of these names.
    expect((await submit('manager', '/projects/1/structure', '/projects/1/template', { name: 'Шаблон отделки' })).status).toBe(303);
    expect((await submit('manager', '/projects/1/structure', '/projects/1/categories', { name: 'Отделка' })).status).toBe(303);
  });

  it.each(REFUSALS)('%s', async (_, user, page, action, fields, russianText, english) => {
    expectRussian(await submit(user, page, action, fields), russianText, english);
  });

  it('a plan upload that is no plan (refused in the rendering process) and a new version of several pages', async () => {
    expectRussian(
      await upload('/projects/1/plans', { bytes: 'not a drawing', name: 'notes.txt', type: 'text/plain' }),
      'Файл не является планом: загрузите файл PDF, PNG, JPEG или WebP',
      'The file is not a plan',
    );
    expectRussian(
      await upload('/plans/1/versions', { bytes: await makePdf({ pages: 2 }), name: 'two.pdf', type: 'application/pdf' }),
      'Новая версия — это один лист: загрузите PDF из одной страницы или изображение',
      'A new version is one sheet',
    );
  });
});

/** A v1 write asked for in Russian. */
const v1Patch = (path: string, json: Record<string, unknown>) =>
  server.call(`${V1}${path}`, { token: server.tokens.manager, method: 'PATCH', headers: { 'accept-language': 'ru' }, json });

describe("v1's refusals of the same checks are unchanged", () => {
  it('answers the English field and message, whatever Accept-Language asks', async () => {
    const planning = await v1Patch('/items/planning.php', { id: 1001 });
    expect(planning.status).toBe(422);
    expect(planning.body.error.message).toBe('body: give at least one of deadline, priority, requires_answer');
    expect(planning.body.error.details).toEqual([{ field: 'body', message: 'give at least one of deadline, priority, requires_answer' }]);
    const status = await v1Patch('/items/status.php', { id: 1001, status: 'finished' });
    expect(status.status).toBe(422);
    expect(status.body.error.message).toBe('status: must be one of pending, in_progress, done, blocked');
  });
});
