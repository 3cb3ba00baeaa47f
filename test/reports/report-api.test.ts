import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSV_COLUMNS } from '../../src/features/reports/report-csv.js';
import { solid, uploadForm } from '../helpers/images.js';
import { startTestServer, type TestServer, V1 } from '../helpers/server.js';
import { USERS } from '../helpers/workspace.js';
import { parseCsvReport, pdfText } from './pdf-text.js';

/** v1 `projects/report.php` (docs/design.md §17): the file streamed, errors in the envelope, audited like a read. */
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const report = (query: string, token = server.tokens.manager) => server.request(`${V1}/projects/report.php?${query}`, { token });

async function csvOf(query: string, token?: string) {
  const res = await report(query, token);
  expect(res.status).toBe(200);
  // The BOM is the file's own: read the bytes, not a decoded text that may drop it.
  return parseCsvReport(new TextDecoder('utf-8', { ignoreBOM: true }).decode(await res.arrayBuffer()));
}

describe('GET /projects/report.php as CSV', () => {
  it('is the default format: a UTF-8 attachment with a BOM, one row per visible item in tree order', async () => {
    const res = await report('id=1');
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="punchlist-project-1-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(res.headers.get('etag')).toBeNull();
    const { header, rows } = parseCsvReport(new TextDecoder('utf-8', { ignoreBOM: true }).decode(await res.arrayBuffer()));
    expect(header).toEqual([...CSV_COLUMNS]);
    expect(rows.map((r) => r.item_id)).toEqual(['1000', '1001', '1010', '1011', '2000', '2001', '2010']);
    expect(rows[0]).toEqual({
      item_id: '1000',
      section: 'Safety',
      checklist: 'Fire',
      text: 'Extinguishers checked',
      status: 'pending',
      priority: 'medium',
      deadline: '',
      participants: 'Executor; Partial',
      answers: '2',
      last_answer_status: 'pending',
      verdict: '',
      url: `${server.url}/items/1000`,
      plan: '',
      plan_x: '',
      plan_y: '',
      company: '',
      ball_in_court: 'review',
    });
    expect(rows[1]).toMatchObject({
      status: 'in_progress',
      priority: 'high',
      deadline: '2026-06-30',
      answers: '0',
      last_answer_status: '',
    });
    expect(rows[4]).toMatchObject({ section: 'Documents', checklist: 'Permits', text: 'Проверка документов' });
  });

  it('parsed back, equals the tree of projects/tree.php (sections, checklists, items in order)', async () => {
    const { rows } = await csvOf('id=1');
    const tree = (await server.call(`${V1}/projects/tree.php?id=1`, { token: server.tokens.manager })).body.data;
    const expected = tree.sections.flatMap((s: any) =>
      s.checklists.flatMap((c: any) =>
        c.items.map((i: any) => ({
          item_id: String(i.id),
          section: s.name,
          checklist: c.name,
          text: i.text,
          status: i.status,
          priority: i.priority,
          deadline: i.deadline ?? '',
        })),
      ),
    );
    expect(
      rows.map(({ item_id, section, checklist, text, status, priority, deadline }) => ({
        item_id,
        section,
        checklist,
        text,
        status,
        priority,
        deadline,
      })),
    ).toEqual(expected);
  });

  it('lists only what the user sees: a member limited to section 10 and checklist 201', async () => {
    const { rows } = await csvOf('id=1&format=csv', server.tokens.partial);
    expect(rows.map((r) => r.item_id)).toEqual(['1000', '1001', '1010', '1011', '2010']);
  });

  it('neutralises cells a spreadsheet would run as formulas', async () => {
    await server.ctx.db.kysely.updateTable('items').set({ text: '=HYPERLINK("http://evil.test","x")' }).where('id', '=', 2001).execute();
    await server.ctx.db.kysely.updateTable('checklists').set({ name: '@Reports' }).where('id', '=', 201).execute();
    try {
      const { rows } = await csvOf('id=1');
      expect(rows.find((r) => r.item_id === '2001')?.text).toBe(`'=HYPERLINK("http://evil.test","x")`);
      expect(rows.find((r) => r.item_id === '2010')?.checklist).toBe(`'@Reports`);
    } finally {
      await server.ctx.db.kysely.updateTable('items').set({ text: 'Item 2001' }).where('id', '=', 2001).execute();
      await server.ctx.db.kysely.updateTable('checklists').set({ name: 'Reports' }).where('id', '=', 201).execute();
    }
  });
});

describe('GET /projects/report.php as PDF', () => {
  it('prints the project, its items (Cyrillic included) and their photos', async () => {
    const upload = await server.request(`${V1}/items/attachments.php`, {
      token: server.tokens.manager,
      method: 'POST',
      body: uploadForm({ item_id: '1001' }, [{ name: 'crack.png', bytes: await solid(640, 480, 'png') }]),
    });
    expect(upload.status).toBe(201);
    const res = await report('id=1&format=pdf');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="punchlist-project-1-.*\.pdf"$/);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(Buffer.from(bytes.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    expect(Buffer.from(bytes).toString('latin1')).toContain('/Subtype /Image');
    const text = await pdfText(bytes);
    for (const expected of [
      'Plant audit',
      'Extinguishers checked',
      'Проверка документов',
      'Safety',
      'Fire',
      'Manager',
      'Page 1',
      'Page 2',
    ]) {
      expect(text, expected).toContain(expected);
    }
    expect(text).toMatch(/Progress: \d+% \(2 of 7 items done\)/);
    expect(text).toContain('Last answer by Partial');
    expect(text).not.toContain('Hidden list');
  });
});

describe('GET /projects/report.php refusals, in the envelope', () => {
  it('404 for a project the user cannot see, 422 for another format or a bad id, 403 without the scope', async () => {
    const hidden = await server.call(`${V1}/projects/report.php?id=3`, { token: server.tokens.manager });
    expect([hidden.status, hidden.body.error.code]).toEqual([404, 'not_found']);
    const missing = await server.call(`${V1}/projects/report.php?id=999`, { token: server.tokens.manager });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'not_found']);
    const format = await server.call(`${V1}/projects/report.php?id=1&format=xlsx`, { token: server.tokens.manager });
    expect([format.status, format.body.error.code, format.body.error.details[0].field]).toEqual([422, 'validation_error', 'format']);
    const id = await server.call(`${V1}/projects/report.php?id=one`, { token: server.tokens.manager });
    expect([id.status, id.body.error.code]).toEqual([422, 'validation_error']);
    const unknown = await server.call(`${V1}/projects/report.php?id=1&status=done`, { token: server.tokens.manager });
    expect([unknown.status, unknown.body.error.details[0].field]).toEqual([422, 'status']);
    const limited = await server.ctx.tokens.createToken({ userId: USERS.manager, name: 'me', scopes: ['auth:me'], expiresAt: null });
    const scope = await server.call(`${V1}/projects/report.php?id=1`, { token: limited.token });
    expect([scope.status, scope.body.error.code]).toEqual([403, 'scope_missing']);
    const post = await server.call(`${V1}/projects/report.php?id=1`, { token: server.tokens.manager, method: 'POST' });
    expect([post.status, post.body.error.code]).toEqual([405, 'method_not_allowed']);
  });

  it('is audited like a read, naming the project', async () => {
    const res = await report('id=1&format=csv', server.tokens.observer);
    await res.arrayBuffer();
    await server.ctx.audit.flush();
    const [record] = await server.ctx.audit.list({ userId: USERS.observer, limit: 1 });
    expect(record).toMatchObject({ path: `${V1}/projects/report.php`, status: 200, entity_type: 'project', entity_id: 1 });
  });
});
