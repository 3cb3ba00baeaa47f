import { describe, expect, it } from 'vitest';
import {
  makeChecklist,
  makeComment,
  makeItem,
  makeMember,
  makeMembership,
  makeProject,
  makeSection,
  makeToken,
  makeUser,
  useTestContext,
} from '../../../test/helpers/factories.js';
import type { Actor } from '../../domain/policy.js';
import { READ_ONLY_SCOPES } from '../../domain/scopes.js';

/** Tokens limited to projects (docs/design.md §18) through the services, on both dialects. */
const t = useTestContext();

const tokenRow = (id: number) => t.ctx.db.kysely.selectFrom('api_tokens').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** Two projects A and B, each with an item, and a manager of both. */
async function twoProjects() {
  const [a, b] = [await makeProject(t), await makeProject(t)];
  const itemA = await makeItem(t, { checklist: await makeChecklist(t, await makeSection(t, a)) });
  const itemB = await makeItem(t, { checklist: await makeChecklist(t, await makeSection(t, b)) });
  const manager = await makeMember(t, a, 'manager');
  await makeMembership(t, b, manager, 'manager');
  return { a, b, itemA, itemB, manager };
}

/** The actor a request with that raw token acts as. */
const actorOf = async (raw: string): Promise<Actor> => (await t.ctx.tokens.authenticate(raw, '127.0.0.1')).user;

describe('tokens limited to projects', () => {
  it('stores the list sorted and deduplicated, lists it, and hands it to every request as the actor’s limit', async () => {
    const { a, b, manager } = await twoProjects();
    const created = await makeToken(t, manager, READ_ONLY_SCOPES, { projectIds: [b.id, a.id, b.id] });
    const sorted = [a.id, b.id].sort((x, y) => x - y);
    expect(created.project_ids).toEqual(sorted);
    expect(JSON.parse((await tokenRow(created.id)).project_ids!)).toEqual(sorted);
    const principal = await t.ctx.tokens.authenticate(created.token, '127.0.0.1');
    expect(principal.user.projectIds).toEqual(sorted);
    expect(principal.token.project_ids).toEqual(sorted);
    const unlimited = await makeToken(t, manager, READ_ONLY_SCOPES);
    expect((await t.ctx.tokens.authenticate(unlimited.token, '127.0.0.1')).user.projectIds).toBeNull();
    expect((await t.ctx.tokens.listTokens(manager.id)).map((tk) => tk.project_ids)).toEqual([null, sorted]);
  });

  it('refuses a project the user cannot see, an unknown one, an empty list or a bad id (422 project_ids), creating nothing', async () => {
    const { a, b } = await twoProjects();
    const member = await makeMember(t, a, 'observer');
    const cases = [[b.id], [a.id, b.id], [999_999], [], [0], [1.5]];
    for (const projectIds of cases) {
      await expect(makeToken(t, member, READ_ONLY_SCOPES, { projectIds })).rejects.toMatchObject({
        status: 422,
        details: [{ field: 'project_ids' }],
      });
    }
    expect(await t.ctx.tokens.listTokens(member.id)).toEqual([]);
    // An administrator sees every project, so may limit a token to any existing one.
    expect((await makeToken(t, await makeUser(t, { role: 'admin' }), READ_ONLY_SCOPES, { projectIds: [b.id] })).project_ids).toEqual([
      b.id,
    ]);
  });

  it('outside the list nothing exists: projects, trees, items, search, events (404 or absent); inside, as before', async () => {
    const { a, b, itemA, itemB, manager } = await twoProjects();
    await makeComment(t, itemA);
    await makeComment(t, itemB);
    const limited = await actorOf((await makeToken(t, manager, READ_ONLY_SCOPES, { projectIds: [a.id] })).token);
    const { projects, items, projectSearch, events } = t.ctx;
    const page = { archived: 'all' as const, limit: 100, offset: 0 };

    const listed = await projects.listProjects(limited, page);
    expect(listed.projects.map((p) => p.id)).toEqual([a.id]);
    expect(listed.total).toBe(1);
    expect((await projects.listProjects(manager, page)).total).toBe(2);

    await expect(projects.getProject(limited, b.id)).rejects.toMatchObject({ status: 404 });
    await expect(projects.getTree(limited, b.id)).rejects.toMatchObject({ status: 404 });
    await expect(items.access(limited, itemB.id)).rejects.toMatchObject({ status: 404 });
    await expect(
      projectSearch.searchProject(limited, b.id, { q: 'Item', entityType: null, itemId: null, limit: 10, offset: 0 }),
    ).rejects.toMatchObject({
      status: 404,
    });
    await expect(t.ctx.itemWrites.setStatus(limited, itemB.id, 'done')).rejects.toMatchObject({ status: 404 });
    expect((await projects.getTree(limited, a.id)).project.id).toBe(a.id);
    expect((await items.access(limited, itemA.id)).item.id).toBe(itemA.id);

    const feed = (actor: Actor, projectId: number | null = null) =>
      events.list(actor, { after: 0, limit: 500, projectId, itemId: null, types: null, wait: 0 });
    const seen = new Set((await feed(limited)).events.map((e) => e.project_id));
    expect(seen).toEqual(new Set([a.id]));
    expect(new Set((await feed(manager)).events.map((e) => e.project_id))).toEqual(new Set([a.id, b.id]));
    await expect(feed(limited, b.id)).rejects.toMatchObject({ status: 404 });
  });

  it('an administrator’s limited token sees only its projects', async () => {
    const { a, b, itemA, itemB } = await twoProjects();
    await makeComment(t, itemA);
    await makeComment(t, itemB);
    const admin = await makeUser(t, { role: 'admin' });
    const limited = await actorOf((await makeToken(t, admin, READ_ONLY_SCOPES, { projectIds: [a.id] })).token);
    const listed = await t.ctx.projects.listProjects(limited, { archived: 'all', limit: 100, offset: 0 });
    expect(listed.projects.map((p) => p.id)).toEqual([a.id]);
    expect(listed.total).toBe(1);
    await expect(t.ctx.items.access(limited, itemB.id)).rejects.toMatchObject({ status: 404 });
    const events = await t.ctx.events.list(limited, { after: 0, limit: 500, projectId: null, itemId: null, types: null, wait: 0 });
    expect(events.events.length).toBeGreaterThan(0);
    expect(events.events.every((e) => e.project_id === a.id)).toBe(true);
    expect(b.id).not.toBe(a.id);
  });

  it('limits only narrow: a project the user loses stays invisible to the token', async () => {
    const { a, itemA, manager } = await twoProjects();
    const limited = await actorOf((await makeToken(t, manager, READ_ONLY_SCOPES, { projectIds: [a.id] })).token);
    expect((await t.ctx.items.access(limited, itemA.id)).item.id).toBe(itemA.id);
    await t.ctx.members.removeMember(t.admin, a.id, manager.id);
    await expect(t.ctx.items.access(limited, itemA.id)).rejects.toMatchObject({ status: 404 });
    expect((await t.ctx.projects.listProjects(limited, { archived: 'all', limit: 100, offset: 0 })).total).toBe(0);
  });
});
