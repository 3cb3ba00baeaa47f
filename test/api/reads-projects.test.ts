import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/domain/scopes.js';
import { expectError, expectOk, ISO_DATE_TIME } from '../helpers/envelope.js';
import { CHECKLISTER, SECTIONER, type Who, useReadsServer } from '../helpers/v1-reads.js';

/** The v1 reads of projects through real HTTP: auth/me, projects/list, get and tree, and what a user cannot see. */
const { get } = useReadsServer();

/** progress and counters written out from the workspace, for a visible part. */
function numbers(sections: number, checklists: number, s: { pending: number; in_progress: number; done: number; blocked: number }) {
  const items = s.pending + s.in_progress + s.done + s.blocked;
  return {
    progress: { done: s.done, total: items, percent: items === 0 ? 0 : Math.floor((100 * s.done) / items) },
    counters: { sections, checklists, items, ...s },
  };
}
const FULL_1 = numbers(2, 4, { pending: 3, in_progress: 1, done: 2, blocked: 1 });
const PARTIAL_1 = numbers(2, 3, { pending: 2, in_progress: 1, done: 1, blocked: 1 });
const CHECKLISTER_1 = numbers(1, 1, { pending: 1, in_progress: 0, done: 0, blocked: 0 });
const SECTIONER_1 = numbers(1, 2, { pending: 2, in_progress: 0, done: 1, blocked: 0 });
const ARCHIVED_2 = numbers(1, 1, { pending: 0, in_progress: 0, done: 1, blocked: 0 });
const OTHER_3 = numbers(1, 1, { pending: 1, in_progress: 0, done: 0, blocked: 0 });
const EMPTY_4 = numbers(1, 0, { pending: 0, in_progress: 0, done: 0, blocked: 0 });

const CARD_FIELDS = ['id', 'name', 'description', 'deadline', 'verdict', 'archived', 'progress', 'counters', 'created_at', 'updated_at'];

function expectCard(card: any, id: number, expected: ReturnType<typeof numbers>) {
  for (const field of CARD_FIELDS) expect(card, `card ${id}`).toHaveProperty(field);
  expect(card.id).toBe(id);
  expect({ progress: card.progress, counters: card.counters }).toEqual(expected);
  expect(card.created_at).toMatch(ISO_DATE_TIME);
  expect(card.updated_at).toMatch(ISO_DATE_TIME);
}

describe('auth/me', () => {
  it.each([
    ['manager', { id: 2, name: 'Manager', role: 'member' }],
    ['admin', { id: 1, name: 'Admin', role: 'admin' }],
    ['outsider', { id: 7, name: 'Outsider', role: 'member' }],
  ] as const)('names the %s and the token', async (who, user) => {
    const data = expectOk(await get(who, '/auth/me.php'));
    expect(data.user).toEqual(user);
    expect(data.token).toEqual({ id: user.id, label: `${who} full`, scopes: [...SCOPES], expires_at: null, project_ids: null });
    expect(data.scopes).toEqual([...SCOPES]);
  });
});

describe('projects/list', () => {
  const ids = (data: any) => data.projects.map((p: any) => p.id);

  it('gives the project card of docs/design.md §5, ordered by id, with total, limit and offset', async () => {
    const data = expectOk(await get('manager', '/projects/list.php'));
    expect(ids(data)).toEqual([1, 4]);
    expect(data).toMatchObject({ total: 2, limit: 50, offset: 0 });
    const [plant, empty] = data.projects;
    expect(plant).toMatchObject({
      id: 1,
      name: 'Plant audit',
      description: 'Yearly audit of the plant',
      deadline: '2026-12-31',
      verdict: null,
      archived: false,
    });
    expectCard(plant, 1, FULL_1);
    expect(plant.progress.percent).toBe(28); // floor(200 / 7): 28.57 is not rounded up
    expect(empty).toMatchObject({
      id: 4,
      name: 'Empty',
      description: '',
      deadline: null,
      archived: false,
      created_at: '2020-01-01T00:00:00.000Z',
    });
    expectCard(empty, 4, EMPTY_4);
  });

  it.each([
    ['(default)', '', [1, 4]],
    ['false', '?archived=false', [1, 4]],
    ['0', '?archived=0', [1, 4]],
    ['true', '?archived=true', [2]],
    ['1', '?archived=1', [2]],
    ['all', '?archived=all', [1, 2, 4]],
  ])('archived %s', async (_name, query, expected) => {
    const data = expectOk(await get('manager', `/projects/list.php${query}`));
    expect(ids(data)).toEqual(expected);
    expect(data.total).toBe(expected.length);
    for (const p of data.projects) expect(p.archived).toBe(p.id === 2);
  });

  it('shows an archived project as archived, with its numbers', async () => {
    const data = expectOk(await get('executor', '/projects/list.php?archived=true'));
    expect(data.projects).toHaveLength(1);
    expect(data.projects[0]).toMatchObject({ id: 2, name: 'Archived works', archived: true });
    expectCard(data.projects[0], 2, ARCHIVED_2);
  });

  it('pages with limit and offset over the total', async () => {
    const page = async (query: string) => expectOk(await get('admin', `/projects/list.php?archived=all&${query}`));
    expect(await page('limit=2')).toMatchObject({ total: 4, limit: 2, offset: 0 });
    expect(ids(await page('limit=2'))).toEqual([1, 2]);
    expect(ids(await page('limit=2&offset=2'))).toEqual([3, 4]);
    expect(ids(await page('limit=3&offset=1'))).toEqual([2, 3, 4]);
    expect(ids(await page('limit=1&offset=3'))).toEqual([4]);
    const past = await page('offset=4');
    expect(past).toMatchObject({ projects: [], total: 4, limit: 50, offset: 4 });
    expect(await page('limit=200&offset=0')).toMatchObject({ total: 4, limit: 200, offset: 0 });
  });

  it.each([
    ['admin', [1, 3, 4], [1, 2, 3, 4]],
    ['manager', [1, 4], [1, 2, 4]],
    ['executor', [1], [1, 2]],
    ['bystander', [1], [1]],
    ['observer', [1], [1]],
    ['partial', [1], [1]],
    ['outsider', [], []],
  ] as const)('%s sees projects %j (all: %j)', async (who, active, all) => {
    expect(ids(expectOk(await get(who, '/projects/list.php')))).toEqual(active);
    const everything = expectOk(await get(who, '/projects/list.php?archived=all'));
    expect(ids(everything)).toEqual(all);
    expect(everything.total).toBe(all.length);
  });

  it('computes each card over the part the user sees', async () => {
    const cardOf = async (who: Who) => expectOk(await get(who, '/projects/list.php')).projects.find((p: any) => p.id === 1);
    expectCard(await cardOf('manager'), 1, FULL_1);
    expectCard(await cardOf('observer'), 1, FULL_1);
    expectCard(await cardOf('partial'), 1, PARTIAL_1);
    expectCard(await cardOf(CHECKLISTER), 1, CHECKLISTER_1);
    expectCard(await cardOf(SECTIONER), 1, SECTIONER_1);
  });

  it('shows the admin a project without membership, in full', async () => {
    const data = expectOk(await get('admin', '/projects/list.php'));
    expectCard(
      data.projects.find((p: any) => p.id === 3),
      3,
      OTHER_3,
    );
    expectCard(
      data.projects.find((p: any) => p.id === 1),
      1,
      FULL_1,
    );
  });
});

describe('projects/get', () => {
  it('gives {project: ProjectCard}, the same card as the list', async () => {
    const data = expectOk(await get('manager', '/projects/get.php?id=1'));
    expect(Object.keys(data)).toContain('project');
    expectCard(data.project, 1, FULL_1);
    const listed = expectOk(await get('manager', '/projects/list.php')).projects[0];
    expect(data.project).toEqual(listed);
  });

  it.each([
    ['partial', 1, PARTIAL_1],
    [CHECKLISTER, 1, CHECKLISTER_1],
    [SECTIONER, 1, SECTIONER_1],
    ['admin', 3, OTHER_3],
    ['manager', 2, ARCHIVED_2],
    ['executor', 2, ARCHIVED_2],
    ['manager', 4, EMPTY_4],
  ] as const)('%s gets project %i with the numbers of their part', async (who, id, expected) => {
    expectCard(expectOk(await get(who, `/projects/get.php?id=${id}`)).project, id, expected);
  });

  it('answers an archived project with archived: true', async () => {
    expect(expectOk(await get('manager', '/projects/get.php?id=2')).project.archived).toBe(true);
  });
});

describe('projects/tree', () => {
  /** [section id, [[checklist id, [item ids]]]] */
  const shape = (data: any) => data.sections.map((s: any) => [s.id, s.checklists.map((c: any) => [c.id, c.items.map((i: any) => i.id)])]);
  const FULL_TREE = [
    [
      10,
      [
        [100, [1000, 1001]],
        [101, [1010, 1011]],
      ],
    ],
    [
      20,
      [
        [200, [2000, 2001]],
        [201, [2010]],
      ],
    ],
  ];

  it('gives the project card and every section, checklist and item, in order', async () => {
    const data = expectOk(await get('manager', '/projects/tree.php?id=1'));
    expectCard(data.project, 1, FULL_1);
    expect(shape(data)).toEqual(FULL_TREE);
    expect(data.sections[0]).toMatchObject({ id: 10, name: 'Safety', position: 0 });
    expect(data.sections[1]).toMatchObject({ id: 20, name: 'Documents', position: 1 });
    expect(data.sections[0].checklists.map((c: any) => [c.name, c.position])).toEqual([
      ['Fire', 0],
      ['Exits', 1],
    ]);
    const [first, second] = data.sections[0].checklists[0].items;
    expect(first).toEqual({
      id: 1000,
      text: 'Extinguishers checked',
      status: 'pending',
      priority: 'medium',
      deadline: null,
      requires_answer: true,
      location: null,
      // An answer waits for its review (docs/design.md §20); no company, category or field values.
      ball_in_court: 'review',
      responsible_company: null,
      category: null,
      fields: {},
    });
    expect(second).toMatchObject({
      id: 1001,
      text: 'Item 1001',
      status: 'in_progress',
      priority: 'high',
      deadline: '2026-06-30',
      requires_answer: false,
      location: null,
    });
    expect(data.sections[1].checklists[0].items[0]).toMatchObject({ id: 2000, text: 'Проверка документов', status: 'done' });
  });

  it('gives the partial member exactly the granted parts: section 10 whole, section 20 with checklist 201 only', async () => {
    const data = expectOk(await get('partial', '/projects/tree.php?id=1'));
    expect(shape(data)).toEqual([
      [
        10,
        [
          [100, [1000, 1001]],
          [101, [1010, 1011]],
        ],
      ],
      [20, [[201, [2010]]]],
    ]);
    expectCard(data.project, 1, PARTIAL_1);
  });

  it('gives a member limited to one checklist its parent section holding only that checklist', async () => {
    const data = expectOk(await get(CHECKLISTER, '/projects/tree.php?id=1'));
    expect(shape(data)).toEqual([[20, [[201, [2010]]]]]);
    expectCard(data.project, 1, CHECKLISTER_1);
    expect(data.project.progress.percent).toBe(0);
  });

  it('gives a member limited to one section that section only', async () => {
    const data = expectOk(await get(SECTIONER, '/projects/tree.php?id=1'));
    expect(shape(data)).toEqual([
      [
        20,
        [
          [200, [2000, 2001]],
          [201, [2010]],
        ],
      ],
    ]);
    expectCard(data.project, 1, SECTIONER_1);
    expect(data.project.progress.percent).toBe(33); // floor(100 / 3)
  });

  it('agrees with the card: counters are the counts of the tree it gives', async () => {
    for (const who of ['manager', 'partial', CHECKLISTER, SECTIONER] as Who[]) {
      const data = expectOk(await get(who, '/projects/tree.php?id=1'));
      const checklists = data.sections.flatMap((s: any) => s.checklists);
      const items = checklists.flatMap((c: any) => c.items);
      expect(data.project.counters).toMatchObject({
        sections: data.sections.length,
        checklists: checklists.length,
        items: items.length,
        done: items.filter((i: any) => i.status === 'done').length,
        pending: items.filter((i: any) => i.status === 'pending').length,
      });
    }
  });

  it('gives the admin the project nobody is a member of, and an empty one', async () => {
    expect(shape(expectOk(await get('admin', '/projects/tree.php?id=3')))).toEqual([[40, [[400, [4000]]]]]);
    const empty = expectOk(await get('manager', '/projects/tree.php?id=4'));
    expect(shape(empty)).toEqual([[50, []]]);
    expect(empty.project.progress).toEqual({ done: 0, total: 0, percent: 0 });
  });

  it('gives an archived project to its members', async () => {
    const data = expectOk(await get('executor', '/projects/tree.php?id=2'));
    expect(data.project.archived).toBe(true);
    expect(shape(data)).toEqual([[30, [[300, [3000]]]]]);
  });
});

describe('visibility: what a user cannot see does not exist', () => {
  const hidden: [Who, number[]][] = [
    ['outsider', [1, 2, 3, 4]],
    ['bystander', [2, 3, 4]],
    ['observer', [2, 3, 4]],
    ['partial', [2, 3, 4]],
    ['manager', [3]],
    [CHECKLISTER, [2, 3, 4]],
    ['admin', [99, 999_999_999_999_999]],
  ];
  it.each(hidden)('%s: projects/get and projects/tree of %j → 404 not_found', async (who, projectIds) => {
    for (const id of projectIds) {
      expectError(await get(who, `/projects/get.php?id=${id}`), 404, 'not_found');
      expectError(await get(who, `/projects/tree.php?id=${id}`), 404, 'not_found');
    }
  });

  const hiddenItems: [Who, number[]][] = [
    ['outsider', [1000, 2001, 3000, 4000]],
    ['partial', [2000, 2001, 3000, 4000]],
    [CHECKLISTER, [1000, 1010, 2000, 2001]],
    [SECTIONER, [1000, 1001, 1010, 1011]],
    ['bystander', [3000, 4000]],
    ['manager', [4000]],
    ['admin', [5, 999999]],
  ];
  it.each(hiddenItems)('%s: items/get of %j → 404 not_found', async (who, itemIds) => {
    for (const id of itemIds) expectError(await get(who, `/items/get.php?id=${id}`), 404, 'not_found');
  });

  const visibleItems: [Who, number[]][] = [
    ['partial', [1000, 1001, 1010, 1011, 2010]],
    [CHECKLISTER, [2010]],
    [SECTIONER, [2000, 2001, 2010]],
    ['observer', [1000, 2000]],
    ['executor', [1000, 3000]],
    ['admin', [1000, 3000, 4000]],
  ];
  it.each(visibleItems)('%s: items/get of %j → 200', async (who, itemIds) => {
    for (const id of itemIds) expect(expectOk(await get(who, `/items/get.php?id=${id}`)).item.id).toBe(id);
  });

  it('answers a hidden entity exactly like a missing one', async () => {
    const hiddenItem = await get('manager', '/items/get.php?id=4000');
    const missingItem = await get('manager', '/items/get.php?id=999999');
    expect(hiddenItem.body.error).toEqual(missingItem.body.error);
    const hiddenProject = await get('manager', '/projects/tree.php?id=3');
    const missingProject = await get('manager', '/projects/tree.php?id=999');
    expect(hiddenProject.body.error).toEqual(missingProject.body.error);
  });
});
