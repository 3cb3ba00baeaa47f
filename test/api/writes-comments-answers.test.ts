import { describe, expect, it } from 'vitest';
import { expectError, expectOk, ISO_DATE_TIME } from '../helpers/envelope.js';
import { useWritesServer } from '../helpers/v1-writes.js';
import { USERS } from '../helpers/workspace.js';

/** The v1 writes 9–10 through real HTTP: comments and answers on an item. */
const { postComment, postAnswer, card, refused, expectEveryWriteAudited } = useWritesServer();

describe('POST /comments/create.php', () => {
  it('adds a trimmed comment, shaped like the card, and moves updated_at', async () => {
    const before = await card(1000);
    const data = expectOk(await postComment('executor', { item_id: 1000, text: '  Checked the east wing \n' }), 201);
    expect(data).toEqual({
      comment: {
        id: expect.any(Number),
        text: 'Checked the east wing',
        author: { id: USERS.executor, name: 'Executor' },
        created_at: expect.stringMatching(ISO_DATE_TIME),
      },
    });
    const after = await card(1000);
    expect(after.comments).toEqual([...before.comments, data.comment]);
    expect(after.updated_at).toBe(data.comment.created_at);
    expect(after.updated_at > before.updated_at).toBe(true);
    expect(after.status_history).toEqual(before.status_history);
  });

  it('is open to every member who sees the item (observers and non-participants included)', async () => {
    for (const user of ['observer', 'bystander', 'manager', 'admin'] as const) {
      const data = expectOk(await postComment(user, { item_id: 1001, text: `From ${user}` }), 201);
      expect(data.comment.author.id).toBe(USERS[user]);
    }
    expectOk(await postComment('partial', { item_id: 2010, text: 'In my granted checklist' }), 201);
  });

  it('counts the length in characters (code points), after trimming', async () => {
    const emoji = '😀'.repeat(20_000);
    expect(expectOk(await postComment('executor', { item_id: 1001, text: ` ${emoji} ` }), 201).comment.text).toBe(emoji);
    expectOk(await postComment('executor', { item_id: 1001, text: 'x'.repeat(20_000) }), 201);
    await refused(1001, () => postComment('executor', { item_id: 1001, text: 'x'.repeat(20_001) }), 422, 'validation_error');
  });

  it('refuses invalid input with 422', async () => {
    const cases: [unknown, string][] = [
      [{ item_id: 1000 }, 'text'],
      [{ text: 'hello' }, 'item_id'],
      [{ item_id: 1000, text: '' }, 'text'],
      [{ item_id: 1000, text: '   \n\t ' }, 'text'],
      [{ item_id: 1000, text: 42 }, 'text'],
      [{ item_id: 1000, text: null }, 'text'],
      [{ item_id: 1000, text: ['a'] }, 'text'],
      [{ item_id: '1000', text: 'hello' }, 'item_id'],
      [{ item_id: 1000, text: 'NUL \u0000 inside' }, 'text'],
    ];
    for (const [json, field] of cases) {
      const res = await refused(1000, () => postComment('executor', json), 422, 'validation_error');
      expect(res.body.error.details?.[0]?.field, JSON.stringify(json)).toBe(field);
    }
    // Validation before visibility.
    await refused(4000, () => postComment('outsider', { item_id: 4000, text: ' ' }), 422, 'validation_error');
  });

  it('403 on an archived project, 404 when the item is not visible', async () => {
    await refused(3000, () => postComment('manager', { item_id: 3000, text: 'Late note' }), 403, 'forbidden');
    await refused(1000, () => postComment('outsider', { item_id: 1000, text: 'Hi' }), 404, 'not_found');
    await refused(2000, () => postComment('partial', { item_id: 2000, text: 'Hi' }), 404, 'not_found');
    expectError(await postComment('manager', { item_id: 123456, text: 'Hi' }), 404, 'not_found');
  });
});

describe('POST /answers/create.php', () => {
  it('adds a pending answer with its links, shaped like the card', async () => {
    const before = await card(1000);
    const res = await postAnswer('executor', {
      item_id: 1000,
      text: ' The act is signed ',
      document_links: [
        { title: ' Act ', url: 'https://example.test/act.pdf' },
        { kind: 'spreadsheet', title: 'Register', url: 'http://example.test/register' },
      ],
    });
    const data = expectOk(res, 201);
    expect(data).toEqual({
      answer: {
        id: expect.any(Number),
        text: 'The act is signed',
        status: 'pending',
        author: { id: USERS.executor, name: 'Executor' },
        document_links: [
          { id: expect.any(Number), kind: 'document', title: 'Act', url: 'https://example.test/act.pdf' },
          { id: expect.any(Number), kind: 'spreadsheet', title: 'Register', url: 'http://example.test/register' },
        ],
        attachments: [],
        created_at: expect.stringMatching(ISO_DATE_TIME),
        updated_at: expect.stringMatching(ISO_DATE_TIME),
      },
    });
    const after = await card(1000);
    expect(after.answers).toEqual([...before.answers, data.answer]);
    // The answer's links are its own, not the item's.
    expect(after.document_links).toEqual(before.document_links);
    expect(after.updated_at).toBe(data.answer.created_at);
  });

  it('takes text alone, and an empty links list', async () => {
    expect(expectOk(await postAnswer('manager', { item_id: 1001, text: 'Plain' }), 201).answer.document_links).toEqual([]);
    expect(expectOk(await postAnswer('admin', { item_id: 1001, text: 'Plain', document_links: [] }), 201).answer.status).toBe('pending');
  });

  it('refuses invalid input with 422 and stores nothing', async () => {
    const links = (n: number) => Array.from({ length: n }, (_, i) => ({ title: `L${i}`, url: `https://example.test/${i}` }));
    const cases: [unknown, string][] = [
      [{ item_id: 1000 }, 'text'],
      [{ item_id: 1000, text: '  ' }, 'text'],
      [{ item_id: 1000, text: 'ok', document_links: [{ title: 'x', url: 'javascript:alert(1)' }] }, 'document_links[0].url'],
      [{ item_id: 1000, text: 'ok', document_links: [...links(2), { title: 'x', url: '/relative' }] }, 'document_links[2].url'],
      [{ item_id: 1000, text: 'ok', document_links: [{ title: '', url: 'https://example.test' }] }, 'document_links[0].title'],
      [{ item_id: 1000, text: 'ok', document_links: [{ kind: 'pdf', title: 'x', url: 'https://example.test' }] }, 'document_links[0].kind'],
      [{ item_id: 1000, text: 'ok', document_links: links(101) }, 'document_links'],
      [{ item_id: 1000, text: 'ok', document_links: 'https://example.test' }, 'document_links'],
      [{ item_id: 1000, text: 'x'.repeat(20_001) }, 'text'],
    ];
    for (const [json, field] of cases) {
      const res = await refused(1000, () => postAnswer('executor', json), 422, 'validation_error');
      expect(res.body.error.details?.[0]?.field, JSON.stringify(json).slice(0, 200)).toBe(field);
    }
  });

  it('403 for observers, non-participating executors and archived projects; 404 when unseen', async () => {
    await refused(1000, () => postAnswer('observer', { item_id: 1000, text: 'No' }), 403, 'forbidden');
    await refused(1000, () => postAnswer('bystander', { item_id: 1000, text: 'No' }), 403, 'forbidden');
    await refused(1001, () => postAnswer('partial', { item_id: 1001, text: 'No' }), 403, 'forbidden');
    await refused(3000, () => postAnswer('executor', { item_id: 3000, text: 'No' }), 403, 'forbidden');
    await refused(3000, () => postAnswer('manager', { item_id: 3000, text: 'No' }), 403, 'forbidden');
    await refused(1000, () => postAnswer('outsider', { item_id: 1000, text: 'No' }), 404, 'not_found');
    await refused(2001, () => postAnswer('partial', { item_id: 2001, text: 'No' }), 404, 'not_found');
    expectOk(await postAnswer('partial', { item_id: 1000, text: 'Partial participant' }), 201);
  });
});

describe('audit', () => {
  it('every successful comment and answer has exactly one audit record, committed before the response', async () => {
    await expectEveryWriteAudited(10);
  });
});
