import { describe, expect, it } from 'vitest';
import { expectOk } from '../helpers/envelope.js';
import { useReadsServer } from '../helpers/v1-reads.js';
import { USERS } from '../helpers/workspace.js';

/** The v1 item card through real HTTP (items/get): fields, history, participants, links and images, verdict rights. */
const { server, images, get } = useReadsServer();

describe('items/get', () => {
  it('gives the whole card', async () => {
    const data = expectOk(await get('manager', '/items/get.php?id=1000'));
    expect(Object.keys(data)).toEqual(['item']);
    const { item } = data;
    expect(item).toMatchObject({
      id: 1000,
      project_id: 1,
      section_id: 10,
      checklist_id: 100,
      text: 'Extinguishers checked',
      description: 'Description of item 1000',
      status: 'pending',
      priority: 'medium',
      deadline: null,
      requires_answer: true,
      verdict: null,
      rework_reason: null,
      rework_deadline: null,
      can_verdict: true,
      can_return_to_rework: true,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    });
    expect(item.participants).toEqual([
      { id: USERS.executor, name: 'Executor', role: 'executor' },
      { id: USERS.partial, name: 'Partial', role: 'executor' },
    ]);
    expect(item.comments).toEqual([
      { id: 5000, text: 'On it', author: { id: USERS.executor, name: 'Executor' }, created_at: '2026-01-01T00:00:00.000Z' },
    ]);
    expect(item.document_links).toEqual([{ id: expect.any(Number), kind: 'document', title: 'Plan', url: 'https://example.test/plan' }]);
    expect(item.attachments).toEqual([
      {
        id: images.item,
        original_name: 'photo.png',
        mime_type: 'image/webp',
        path: 'items/1000/a.webp',
        url: `${server.url}/api/items/file.php?id=${images.item}`,
        size: 1234,
        width: 32,
        height: 16,
        created_at: '2026-01-02T00:00:00.000Z',
        annotates: null,
        stage: null,
        caption: null,
      },
    ]);
    expect(item.answers).toHaveLength(2);
    expect(item.answers[0]).toMatchObject({
      id: 7000,
      text: 'Done, see act',
      status: 'approved',
      author: { id: USERS.executor, name: 'Executor' },
      document_links: [],
      attachments: [
        {
          id: images.answer,
          original_name: 'scan.jpg',
          mime_type: 'image/webp',
          path: 'answers/7000/b.webp',
          url: `${server.url}/api/answers/file.php?id=${images.answer}`,
          size: 1234,
          width: 32,
          height: 16,
        },
      ],
      created_at: '2026-01-01T00:00:00.000Z',
    });
    expect(item.answers[1]).toMatchObject({
      id: 7001,
      text: 'Second answer',
      status: 'pending',
      author: { id: USERS.partial, name: 'Partial' },
      document_links: [{ id: expect.any(Number), kind: 'spreadsheet', title: 'Sheet', url: 'https://example.test/sheet' }],
      attachments: [],
    });
    expect(item.status_history).toHaveLength(1);
    expect(item.status_history[0]).toMatchObject({
      kind: 'created',
      from: null,
      to: 'pending',
      at: '2026-01-01T00:00:00.000Z',
      user: null,
    });
  });

  it('keeps answer links and images off the item lists, and item ones off the answers', async () => {
    const { item } = expectOk(await get('observer', '/items/get.php?id=1000'));
    expect(item.document_links.map((l: any) => l.title)).toEqual(['Plan']);
    expect(item.attachments.map((a: any) => a.id)).toEqual([images.item]);
    expect(item.answers.flatMap((a: any) => a.attachments.map((x: any) => x.id))).toEqual([images.answer]);
    expect(item.answers.flatMap((a: any) => a.document_links.map((l: any) => l.title))).toEqual(['Sheet']);
  });

  it('gives status_changed entries with their user, after created', async () => {
    const { item } = expectOk(await get('executor', '/items/get.php?id=1001'));
    expect(item.status_history).toEqual([
      expect.objectContaining({ kind: 'created', from: null, to: 'in_progress', at: '2026-01-01T00:00:00.000Z', user: null }),
      expect.objectContaining({
        kind: 'status_changed',
        from: 'pending',
        to: 'in_progress',
        at: '2026-02-01T00:00:00.000Z',
        user: { id: USERS.manager, name: 'Manager' },
      }),
    ]);
    expect(item).toMatchObject({ priority: 'high', deadline: '2026-06-30', requires_answer: false, status: 'in_progress' });
    expect(item.participants).toEqual([{ id: USERS.executor, name: 'Executor', role: 'executor' }]);
    expect(item).toMatchObject({ comments: [], answers: [], attachments: [], document_links: [] });
  });

  it('shows a participant who is not a member with a null role', async () => {
    const { item } = expectOk(await get('manager', '/items/get.php?id=2001'));
    expect(item.participants).toEqual([{ id: USERS.outsider, name: 'Outsider', role: null }]);
  });

  it.each([
    ['admin', 1000, true],
    ['manager', 1000, true],
    ['executor', 1000, false],
    ['bystander', 1000, false],
    ['observer', 1000, false],
    ['partial', 1000, false],
    ['admin', 3000, false],
    ['manager', 3000, false],
    ['executor', 3000, false],
  ] as const)('can_verdict / can_return_to_rework for the %s on item %i: %s', async (who, id, expected) => {
    const { item } = expectOk(await get(who, `/items/get.php?id=${id}`));
    expect(item.can_verdict).toBe(expected);
    expect(item.can_return_to_rework).toBe(expected);
  });
});
