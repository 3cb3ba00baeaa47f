import { describe, expect, it } from 'vitest';
import { expectError, expectOk, ISO_DATE_TIME } from '../helpers/envelope.js';
import { useWritesServer } from '../helpers/v1-writes.js';
import { USERS } from '../helpers/workspace.js';

/** The v1 writes 7–8 through real HTTP: an item's status and its planning (deadline, priority, requires_answer). */
const { patchStatus, patchPlanning, card, refused, expectEveryWriteAudited } = useWritesServer();

describe('PATCH /items/status.php', () => {
  it('changes the status, records a status_changed entry and moves updated_at', async () => {
    const before = await card(1010);
    expect(before.status).toBe('done');
    const res = await patchStatus('manager', { id: 1010, status: 'in_progress' });
    const data = expectOk(res);
    expect(data).toEqual({ item: { id: 1010, status: 'in_progress', updated_at: expect.stringMatching(ISO_DATE_TIME) }, changed: true });
    expect(data.item.updated_at > before.updated_at).toBe(true);
    const after = await card(1010);
    expect(after.status).toBe('in_progress');
    expect(after.updated_at).toBe(data.item.updated_at);
    expect(after.status_history).toHaveLength(before.status_history.length + 1);
    expect(after.status_history.at(-1)).toEqual({
      kind: 'status_changed',
      from: 'done',
      to: 'in_progress',
      at: data.item.updated_at,
      user: { id: USERS.manager, name: 'Manager' },
      note: null,
    });
  });

  it('same status again: 200, changed false, no history entry, updated_at kept', async () => {
    const before = await card(1010);
    const data = expectOk(await patchStatus('manager', { id: 1010, status: 'in_progress' }));
    expect(data).toEqual({ item: { id: 1010, status: 'in_progress', updated_at: before.updated_at }, changed: false });
    expect(await card(1010)).toEqual(before);
  });

  it('accepts each of the four statuses; unknown fields are refused with 422 naming each, nothing applied', async () => {
    const refusedTypo = await refused(
      1010,
      () => patchStatus('admin', { id: 1010, status: 'done', text: 'never applied', description: 'no' }),
      422,
      'validation_error',
    );
    expect(refusedTypo.body.error.details.map((d: { field: string }) => d.field)).toEqual(['text', 'description']);
    expect(refusedTypo.body.error.message).toContain('text, description');
    for (const status of ['pending', 'in_progress', 'done', 'blocked']) {
      const data = expectOk(await patchStatus('admin', { id: 1010, status }));
      expect(data.item.status).toBe(status);
    }
    const after = await card(1010);
    expect(after.text).toBe('Item 1010');
    expect(after.description).toBe('Description of item 1010');
  });

  it('lets a participating executor (also a partially limited one) change the status', async () => {
    expect(expectOk(await patchStatus('executor', { id: 1000, status: 'in_progress' })).changed).toBe(true);
    expect(expectOk(await patchStatus('partial', { id: 1000, status: 'pending' })).changed).toBe(true);
    const history = (await card(1000)).status_history.slice(-2);
    expect(history.map((h: any) => [h.from, h.to, h.user.id])).toEqual([
      ['pending', 'in_progress', USERS.executor],
      ['in_progress', 'pending', USERS.partial],
    ]);
  });

  it('refuses invalid input with 422 before looking the item up', async () => {
    const cases: [unknown, string][] = [
      [{ id: 1010, status: 'archived' }, 'status'],
      [{ id: 1010, status: 'DONE' }, 'status'],
      [{ id: 1010, status: null }, 'status'],
      [{ id: 1010 }, 'status'],
      [{ status: 'done' }, 'id'],
      [{ id: '1010', status: 'done' }, 'id'],
      [{ id: 0, status: 'done' }, 'id'],
      [{ id: -5, status: 'done' }, 'id'],
      [{ id: 1010.5, status: 'done' }, 'id'],
      [{ id: null, status: 'done' }, 'id'],
      [[{ id: 1010, status: 'done' }], 'body'],
    ];
    for (const [json, field] of cases) {
      const res = await refused(1010, () => patchStatus('manager', json), 422, 'validation_error');
      expect(res.body.error.details?.[0]?.field, JSON.stringify(json)).toBe(field);
      expect(res.body.error.message).toContain(field);
    }
    // Invisible item with a bad body: the 422 comes first.
    await refused(4000, () => patchStatus('manager', { id: 4000, status: 'nope' }), 422, 'validation_error');
  });

  it('refuses with 403 forbidden whoever sees the item but may not change its status', async () => {
    await refused(1000, () => patchStatus('observer', { id: 1000, status: 'done' }), 403, 'forbidden');
    await refused(1000, () => patchStatus('bystander', { id: 1000, status: 'done' }), 403, 'forbidden');
    await refused(1001, () => patchStatus('partial', { id: 1001, status: 'done' }), 403, 'forbidden');
    // Archived project: read-only for everybody, even with the same status.
    await refused(3000, () => patchStatus('manager', { id: 3000, status: 'pending' }), 403, 'forbidden');
    await refused(3000, () => patchStatus('executor', { id: 3000, status: 'done' }), 403, 'forbidden');
    await refused(3000, () => patchStatus('admin', { id: 3000, status: 'pending' }), 403, 'forbidden');
  });

  it('answers 404 for items the user cannot see or that do not exist', async () => {
    await refused(1000, () => patchStatus('outsider', { id: 1000, status: 'done' }), 404, 'not_found');
    await refused(2000, () => patchStatus('partial', { id: 2000, status: 'pending' }), 404, 'not_found');
    await refused(4000, () => patchStatus('manager', { id: 4000, status: 'done' }), 404, 'not_found');
    expectError(await patchStatus('admin', { id: 999999, status: 'done' }), 404, 'not_found');
  });
});

describe('PATCH /items/planning.php', () => {
  it('sets deadline, priority and requires_answer together', async () => {
    const before = await card(1011);
    const data = expectOk(await patchPlanning('manager', { id: 1011, deadline: '2026-09-30', priority: 'high', requires_answer: true }));
    expect(data).toEqual({
      item: { id: 1011, deadline: '2026-09-30', priority: 'high', requires_answer: true, updated_at: expect.stringMatching(ISO_DATE_TIME) },
    });
    expect(data.item.updated_at > before.updated_at).toBe(true);
    const after = await card(1011);
    expect(after).toMatchObject({ deadline: '2026-09-30', priority: 'high', requires_answer: true, updated_at: data.item.updated_at });
    expect(after.status_history).toEqual(before.status_history);
  });

  it('a misspelt field (dedline) is 422 naming it and changes nothing', async () => {
    const res = await refused(1011, () => patchPlanning('manager', { id: 1011, dedline: '2026-12-01' }), 422, 'validation_error');
    expect(res.body.error.details).toEqual([{ field: 'dedline', message: expect.stringContaining('not a field') }]);
  });

  it('applies only the fields given and never text or description', async () => {
    await refused(
      1011,
      () => patchPlanning('manager', { id: 1011, priority: 'low', text: 'Renamed', description: 'Rewritten', status: 'done' }),
      422,
      'validation_error',
    );
    const data = expectOk(await patchPlanning('manager', { id: 1011, priority: 'low' }));
    expect(data.item).toMatchObject({ deadline: '2026-09-30', priority: 'low', requires_answer: true });
    const after = await card(1011);
    expect(after).toMatchObject({ text: 'Item 1011', description: 'Description of item 1011', status: 'blocked', priority: 'low' });
    expectOk(await patchPlanning('admin', { id: 1011, requires_answer: false }));
    expect(await card(1011)).toMatchObject({ deadline: '2026-09-30', priority: 'low', requires_answer: false });
  });

  it('clears the deadline with null and with ""', async () => {
    expect(expectOk(await patchPlanning('manager', { id: 1011, deadline: null })).item.deadline).toBeNull();
    expect((await card(1011)).deadline).toBeNull();
    expectOk(await patchPlanning('manager', { id: 1011, deadline: '2028-02-29' }));
    expect((await card(1011)).deadline).toBe('2028-02-29');
    expect(expectOk(await patchPlanning('manager', { id: 1011, deadline: '' })).item.deadline).toBeNull();
    expect((await card(1011)).deadline).toBeNull();
  });

  it('the same values again change nothing, not even updated_at', async () => {
    const before = await card(1011);
    const data = expectOk(await patchPlanning('manager', { id: 1011, deadline: null, priority: before.priority, requires_answer: false }));
    expect(data.item.updated_at).toBe(before.updated_at);
    expect(await card(1011)).toEqual(before);
  });

  it('refuses invalid input with 422', async () => {
    const cases: [unknown, string][] = [
      [{ id: 1011 }, 'body'],
      [{ id: 1011, text: 'only text' }, 'text'],
      [{ id: 1011, priority: 'urgent' }, 'priority'],
      [{ id: 1011, priority: null }, 'priority'],
      [{ id: 1011, requires_answer: 'yes' }, 'requires_answer'],
      [{ id: 1011, requires_answer: 1 }, 'requires_answer'],
      [{ id: 1011, requires_answer: null }, 'requires_answer'],
      [{ id: 1011, deadline: '2026-02-30' }, 'deadline'],
      [{ id: 1011, deadline: '2027-02-29' }, 'deadline'],
      [{ id: 1011, deadline: '2026-2-3' }, 'deadline'],
      [{ id: 1011, deadline: '30.09.2026' }, 'deadline'],
      [{ id: 1011, deadline: '2026-09-30T00:00:00Z' }, 'deadline'],
      [{ id: 1011, deadline: 20260930 }, 'deadline'],
      [{ id: '1011', priority: 'low' }, 'id'],
      [{ priority: 'low' }, 'id'],
    ];
    for (const [json, field] of cases) {
      const res = await refused(1011, () => patchPlanning('manager', json), 422, 'validation_error');
      expect(res.body.error.details?.[0]?.field, JSON.stringify(json)).toBe(field);
    }
  });

  it('is for managers and admins only: 403 for executors (even participants) and observers, 404 when unseen', async () => {
    await refused(1000, () => patchPlanning('executor', { id: 1000, priority: 'high' }), 403, 'forbidden');
    await refused(1000, () => patchPlanning('partial', { id: 1000, priority: 'high' }), 403, 'forbidden');
    await refused(1000, () => patchPlanning('observer', { id: 1000, priority: 'high' }), 403, 'forbidden');
    await refused(3000, () => patchPlanning('manager', { id: 3000, priority: 'high' }), 403, 'forbidden');
    await refused(1000, () => patchPlanning('outsider', { id: 1000, priority: 'high' }), 404, 'not_found');
    await refused(2001, () => patchPlanning('partial', { id: 2001, priority: 'high' }), 404, 'not_found');
    expectOk(await patchPlanning('admin', { id: 4000, priority: 'high' }));
  });
});

describe('audit', () => {
  it('every successful status and planning write has exactly one audit record, committed before the response', async () => {
    await expectEveryWriteAudited(10);
  });
});
