import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { USERS, type UserKey } from '../helpers/workspace.js';
import { photos } from './item-forms.js';
import { signedInClients, type WebClient } from './web-client.js';

/**
 * The item page as the place where the work is done (docs/design.md §3, §8): every action as every role.
 * What a role may do succeeds and shows through v1; what it may not is absent from the page and, posted
 * anyway, answers the 403 page and changes nothing.
 */
let server: TestServer;
/** One signed-in client per workspace user, reused across tests. */
const as = signedInClients(() => server.url);

const card = async (id: number) => (await server.call(`${V1}/items/get.php?id=${id}`, { token: server.tokens.admin })).body.data.item;

interface Action {
  name: string;
  /** The form's action on /items/<item>; the page must hold it exactly when the user may use it. */
  action: (item: number) => string;
  send: (web: WebClient, item: number, page: string) => Promise<{ status: number; location: string | null; text: string }>;
  /** What v1 shows once it worked. */
  effect: (before: any, after: any) => void;
}

const ACTIONS: Action[] = [
  {
    name: 'status',
    action: (item) => `/items/${item}/status`,
    send: (web, item, page) => web.post(`/items/${item}/status`, { status: 'blocked' }, page),
    effect: (_before, after) => {
      expect(after.status).toBe('blocked');
      expect(after.status_history.at(-1)).toMatchObject({ kind: 'status_changed', to: 'blocked' });
    },
  },
  {
    name: 'planning',
    action: (item) => `/items/${item}/planning`,
    send: (web, item, page) => web.post(`/items/${item}/planning`, { deadline: '2027-03-01', priority: 'low', requires_answer: '1' }, page),
    effect: (_before, after) => expect(after).toMatchObject({ deadline: '2027-03-01', priority: 'low', requires_answer: true }),
  },
  {
    name: 'comment',
    action: (item) => `/items/${item}/comments`,
    send: (web, item, page) => web.post(`/items/${item}/comments`, { text: '  Checked on site <b>today</b>  ' }, page),
    effect: (before, after) => {
      expect(after.comments).toHaveLength(before.comments.length + 1);
      expect(after.comments.at(-1).text).toBe('Checked on site <b>today</b>');
    },
  },
  {
    name: 'answer',
    action: (item) => `/items/${item}/answers`,
    send: async (web, item, page) => {
      const form = await photos(1);
      form.append('text', 'Done, photo attached');
      form.append('link-0-title', 'Act');
      form.append('link-0-url', 'https://example.test/act');
      return web.postMultipart(`/items/${item}/answers`, form, page);
    },
    effect: (before, after) => {
      expect(after.answers).toHaveLength(before.answers.length + 1);
      const answer = after.answers.at(-1);
      expect(answer).toMatchObject({
        text: 'Done, photo attached',
        status: 'pending',
        document_links: [{ kind: 'document', title: 'Act', url: 'https://example.test/act' }],
      });
      expect(answer.attachments).toMatchObject([{ original_name: 'site-0.png', mime_type: 'image/webp', width: 40, height: 30 }]);
    },
  },
  {
    name: 'item photos',
    action: (item) => `/items/${item}/photos`,
    send: async (web, item, page) => web.postMultipart(`/items/${item}/photos`, await photos(2), page),
    effect: (before, after) => {
      expect(after.attachments).toHaveLength(before.attachments.length + 2);
      expect(after.attachments.slice(-2).map((a: any) => a.original_name)).toEqual(['site-0.png', 'site-1.png']);
    },
  },
  {
    name: 'document links',
    action: (item) => `/items/${item}/links`,
    send: (web, item, page) =>
      web.post(
        `/items/${item}/links`,
        {
          'link-0-title': '',
          'link-0-url': '',
          'link-3-kind': 'spreadsheet',
          'link-3-title': 'Budget',
          'link-3-url': 'https://example.test/budget',
        },
        page,
      ),
    effect: (_before, after) =>
      expect(after.document_links).toMatchObject([{ kind: 'spreadsheet', title: 'Budget', url: 'https://example.test/budget' }]),
  },
  {
    name: 'edit item',
    action: (item) => `/items/${item}/edit`,
    // The item keeps its text, people and checklist: the other tests of this file rely on them (structure.test.ts moves items).
    send: (web, item, page) =>
      web.post(
        `/items/${item}/edit`,
        {
          text: 'Extinguishers checked',
          description: 'All 14 of them, floor by floor',
          participants_sent: '1',
          participants: [String(USERS.executor), String(USERS.partial)],
          checklist: '100',
        },
        page,
      ),
    effect: (before, after) => {
      expect(after).toMatchObject({ text: 'Extinguishers checked', description: 'All 14 of them, floor by floor', checklist_id: 100 });
      expect(after.participants).toEqual(before.participants);
      expect(after.status_history).toEqual(before.status_history);
    },
  },
];

/** Item 1000: executor and partial are its participants; answer 7000 is the executor's. */
const ALLOWED: Record<string, UserKey[]> = {
  status: ['admin', 'manager', 'executor'],
  planning: ['admin', 'manager'],
  comment: ['admin', 'manager', 'executor', 'bystander', 'observer'],
  answer: ['admin', 'manager', 'executor'],
  'item photos': ['admin', 'manager', 'executor'],
  'document links': ['admin', 'manager', 'executor'],
  'edit item': ['admin', 'manager'],
};
const ROLES: UserKey[] = ['admin', 'manager', 'executor', 'bystander', 'observer'];

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('the item page, action by action and role by role', () => {
  for (const action of ACTIONS) {
    for (const role of ROLES) {
      const allowed = ALLOWED[action.name]!.includes(role);
      it(`${action.name} as ${role}: ${allowed ? 'shown, saved and visible through v1' : 'absent, and refused with the 403 page'}`, async () => {
        const web = await as(role);
        const page = await web.get('/items/1000');
        expect(page.status).toBe(200);
        expect(page.text.includes(`action="${action.action(1000)}"`)).toBe(allowed);
        const before = await card(1000);
        // A forbidden form is absent: it is posted with the page's CSRF token anyway.
        const response = await action.send(web, 1000, page.text);
        if (allowed) {
          expect(response.status, response.text).toBe(303);
          expect(response.location).toMatch(/^\/items\/1000\?saved=/);
          const saved = await web.get(response.location!);
          expect(saved.text).toContain('role="status"');
          action.effect(before, await card(1000));
        } else {
          expect(response.status).toBe(403);
          expect(response.text).toContain('<h1>Not allowed</h1>');
          expect(await card(1000)).toEqual(before);
        }
      });
    }
  }

  it('answer photos: the author, a participant, managers and admins; nobody else', async () => {
    for (const role of ROLES) {
      const web = await as(role);
      const page = await web.get('/items/1000');
      const allowed = ['admin', 'manager', 'executor'].includes(role);
      expect(page.text.includes('action="/answers/7000/photos"'), role).toBe(allowed);
      const before = await card(1000);
      const response = await web.postMultipart('/answers/7000/photos', await photos(1), page.text);
      if (allowed) {
        expect(response.status, role).toBe(303);
        expect(response.location).toBe('/items/1000?saved=answer-photos');
        const answer = (await card(1000)).answers.find((a: any) => a.id === 7000);
        expect(answer.attachments.length).toBe(before.answers.find((a: any) => a.id === 7000).attachments.length + 1);
        // An approved answer that gets new images goes back to review, as in v1.
        expect(answer.status).toBe('pending');
      } else {
        expect(response.status, role).toBe(403);
        expect(await card(1000)).toEqual(before);
      }
    }
  });

  it('shows no control at all on an item of an archived project, and refuses every write', async () => {
    const web = await as('executor');
    const page = await web.get('/items/3000');
    expect(page.status).toBe(200);
    expect(page.text).not.toMatch(/<form method="post" action="\/items\/3000/);
    const before = await card(3000);
    for (const action of ACTIONS) {
      const response = await action.send(web, 3000, page.text);
      expect(response.status, action.name).toBe(403);
      expect(response.text).toContain('archived');
    }
    expect(await card(3000)).toEqual(before);
  });

  it('answers 404 for an item the user cannot see, for the page and every write', async () => {
    const web = await as('partial');
    const visible = await web.get('/items/1000');
    expect((await web.get('/items/2000')).status).toBe(404);
    for (const action of ACTIONS) expect((await action.send(web, 2000, visible.text)).status, action.name).toBe(404);
  });
});
