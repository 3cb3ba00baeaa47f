import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solid } from '../../../test/helpers/images.js';
import { startTestServer, type TestServer, V1 } from '../../../test/helpers/server.js';
import { USERS } from '../../../test/helpers/workspace.js';
import type { Actor } from '../../domain/policy.js';
import type { ListEventsInput } from './events.service.js';

/** The change feed on a real server (both dialects): one event per committed change, read by who may see it. */
let server: TestServer;
const admin: Actor = { id: USERS.admin, role: 'admin' };
const manager = { id: USERS.manager, role: 'member' as const, name: 'Manager' };
const feed = (actor: Actor, input: Partial<ListEventsInput> = {}) =>
  server.ctx.events.list(actor, { after: 0, limit: 500, projectId: null, itemId: null, types: null, wait: 0, ...input });
const last = async () => (await feed(admin)).next_after;
/** The events recorded by `change`, read as the admin. */
async function eventsOf(change: () => Promise<unknown>) {
  const after = await last();
  await change();
  return (await feed(admin, { after })).events;
}

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('events', () => {
  it('records exactly one event per change, with what changed, the actor and the token', async () => {
    const { itemWrites, comments, review } = server.ctx;
    const status = await eventsOf(() => itemWrites.setStatus(manager, 1001, 'done'));
    expect(status).toMatchObject([
      {
        type: 'item.status_changed',
        project_id: 1,
        item_id: 1001,
        actor: { id: USERS.manager, name: 'Manager' },
        token_id: null,
        data: { from: 'in_progress', to: 'done' },
      },
    ]);
    expect(await eventsOf(() => itemWrites.setStatus(manager, 1001, 'done'))).toEqual([]);

    const planning = await eventsOf(() => itemWrites.setPlanning(manager, 1001, { priority: 'low' }));
    expect(planning).toMatchObject([
      {
        type: 'item.planning_changed',
        data: { from: { priority: 'high', deadline: '2026-06-30' }, to: { priority: 'low', deadline: '2026-06-30' } },
      },
    ]);
    expect(await eventsOf(() => itemWrites.setPlanning(manager, 1001, { priority: 'low' }))).toEqual([]);

    const links = await eventsOf(() => itemWrites.replaceItemLinks(manager, 1001, [{ title: 'Act', url: 'https://example.test/act' }]));
    expect(links).toMatchObject([
      { type: 'item.links_replaced', data: { document_links: [{ kind: 'document', title: 'Act', url: 'https://example.test/act' }] } },
    ]);

    const comment = await eventsOf(() => comments.addComment(manager, 1001, { text: 'Looks good' }));
    expect(comment).toMatchObject([{ type: 'comment.created', data: { comment: { text: 'Looks good', author: { id: USERS.manager } } } }]);

    const verdict = await eventsOf(() => review.setItemVerdict(manager, 1001, 'accepted'));
    expect(verdict).toMatchObject([{ type: 'item.verdict_set', data: { from: null, to: 'accepted' } }]);
    const rework = await eventsOf(() => review.returnToRework(manager, 1001, { reason: 'Redo', deadline: '2099-01-01' }));
    expect(rework).toMatchObject([
      { type: 'item.returned_to_rework', data: { from: 'done', to: 'in_progress', reason: 'Redo', rework_deadline: '2099-01-01' } },
    ]);
    const reviewed = await eventsOf(() => review.reviewAnswer(manager, 7001, 'rejected'));
    expect(reviewed).toMatchObject([
      { type: 'answer.reviewed', item_id: 1000, data: { answer_id: 7001, from: 'pending', to: 'rejected' } },
    ]);
    const project = await eventsOf(() => review.setProjectVerdict(manager, 1, 'accepted'));
    expect(project).toMatchObject([{ type: 'project.verdict_set', project_id: 1, item_id: null, data: { from: null, to: 'accepted' } }]);
  });

  it('records the token of an API write, and the created answer and images as items/get shows them', async () => {
    const token = server.tokens.manager;
    const answer = await eventsOf(() =>
      server.call(`${V1}/answers/create.php`, { method: 'POST', token, json: { item_id: 1000, text: 'Done' } }),
    );
    expect(answer).toMatchObject([
      { type: 'answer.created', token_id: USERS.manager, data: { answer: { text: 'Done', status: 'pending', attachments: [] } } },
    ]);
    const answerId = (answer[0]!.data as { answer: { id: number } }).answer.id;

    const upload = async (path: string, field: string, id: number) => {
      const form = new FormData();
      form.append(field, String(id));
      form.append('attachments[]', new Blob([new Uint8Array(await solid(32, 24, 'png'))], { type: 'image/png' }), 'tag.png');
      const response = await server.call(`${V1}${path}`, { method: 'POST', token, body: form });
      expect(response.status).toBe(201);
      return response.body.data;
    };
    let created: any;
    const images = await eventsOf(async () => (created = await upload('/items/attachments.php', 'item_id', 1000)));
    expect(images).toMatchObject([{ type: 'item.attachments_added', token_id: USERS.manager, data: { attachments: created.attachments } }]);
    const answerImages = await eventsOf(async () => (created = await upload('/answers/attachments.php', 'answer_id', answerId)));
    expect(answerImages).toMatchObject([
      { type: 'answer.attachments_added', data: { answer_id: answerId, attachments: created.attachments, status_reset: false } },
    ]);

    // A refused write records nothing.
    expect(
      await eventsOf(() =>
        server.call(`${V1}/comments/create.php`, { method: 'POST', token: server.tokens.observer, json: { item_id: 3000, text: 'x' } }),
      ),
    ).toEqual([]);
  });

  it('shows each reader only the events about what they can see when they read, and 404 for an invisible filter', async () => {
    const all = (await feed(admin)).events;
    const seenBy = async (actor: Actor) => (await feed(actor)).events.map((e) => e.id);
    const partial: Actor = { id: USERS.partial, role: 'member' };
    // Section 10 and checklist 201: items 1000, 1001 (checklist 100), none of checklist 200; the project's own events too.
    const visibleToPartial = all.filter((e) => e.item_id === null || [1000, 1001, 1010, 1011, 2010].includes(e.item_id)).map((e) => e.id);
    expect(await seenBy(partial)).toEqual(visibleToPartial);
    expect(await seenBy({ id: USERS.observer, role: 'member' })).toEqual(all.filter((e) => e.project_id === 1).map((e) => e.id));
    expect(await seenBy({ id: USERS.outsider, role: 'member' })).toEqual([]);
    await expect(feed({ id: USERS.outsider, role: 'member' }, { projectId: 1 })).rejects.toMatchObject({ status: 404 });
    await expect(feed(partial, { itemId: 2000 })).rejects.toMatchObject({ status: 404 });
    expect((await feed(partial, { itemId: 1000 })).events.every((e) => e.item_id === 1000)).toBe(true);

    // Access lost: the events are gone at once.
    await server.ctx.db.kysely.deleteFrom('project_members').where('user_id', '=', USERS.observer).where('project_id', '=', 1).execute();
    expect(await seenBy({ id: USERS.observer, role: 'member' })).toEqual([]);
  });

  it('pages by cursor, filters by type, and long-polls until a matching commit', async () => {
    const first = await feed(admin, { limit: 2 });
    expect(first.events).toHaveLength(2);
    expect(first.has_more).toBe(true);
    const next = await feed(admin, { after: first.next_after, limit: 2 });
    expect(next.events[0]!.id).toBeGreaterThan(first.next_after);
    expect((await feed(admin, { types: ['comment.created'] })).events.every((e) => e.type === 'comment.created')).toBe(true);

    const after = await last();
    const idle = await feed(admin, { after, wait: 1 });
    expect(idle).toEqual({ events: [], next_after: after, has_more: false });

    const started = Date.now();
    const waiting = feed(admin, { after, wait: 20, types: ['item.status_changed'] });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await server.ctx.comments.addComment(manager, 2001, { text: 'not what the reader waits for' });
    await server.ctx.itemWrites.setStatus(manager, 2001, 'blocked');
    const woken = await waiting;
    expect(woken.events).toMatchObject([{ type: 'item.status_changed', item_id: 2001 }]);
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
