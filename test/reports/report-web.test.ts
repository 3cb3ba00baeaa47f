import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { decode, signedInClients, type WebClient } from '../web/web-client.js';
import { parseCsvReport, pdfText } from './pdf-text.js';

/** The project page's link "Report" and the web routes of the files (docs/design.md §17). */
let server: TestServer;
const as = signedInClients(() => server.url);

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** A file route fetched with the client's session cookie: the bytes as sent. */
async function download(web: WebClient, path: string) {
  const cookie = [...web.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const res = await fetch(server.url + path, { headers: { cookie }, redirect: 'manual' });
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

const csvText = (bytes: Uint8Array) => new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);

describe('the link "Report" on the project page', () => {
  it('keeps the page filter (not its page number) and offers PDF and CSV of the same list', async () => {
    const web = await as('manager');
    const project = await web.get('/projects/1?status=pending&page=1');
    expect(project.status).toBe(200);
    const link = /<a href="([^"]+)" data-testid="report-link">Report<\/a>/.exec(project.text);
    expect(decode(link?.[1] ?? '')).toBe('/projects/1/report?status=pending');
    const offer = await web.get(decode(link![1]!));
    expect(offer.status).toBe(200);
    const files = [...offer.text.matchAll(/<a href="([^"]+)" download>(PDF|CSV)<\/a>/g)].map((m) => [m[2], decode(m[1]!)]);
    expect(files).toEqual([
      ['PDF', '/projects/1/report.pdf?status=pending'],
      ['CSV', '/projects/1/report.csv?status=pending'],
    ]);
    expect(offer.text).toContain('status pending');
  });
});

describe('the report files in the web', () => {
  it('CSV: what the filtered page shows, with a BOM, as an attachment', async () => {
    const web = await as('manager');
    const all = await download(web, '/projects/1/report.csv');
    expect(all.status).toBe(200);
    expect(all.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(all.headers.get('content-disposition')).toMatch(/^attachment; filename="punchlist-project-1-.*\.csv"$/);
    expect(parseCsvReport(csvText(all.bytes)).rows.map((r) => r.item_id)).toEqual(['1000', '1001', '1010', '1011', '2000', '2001', '2010']);
    const pending = await download(web, '/projects/1/report.csv?status=pending');
    expect(parseCsvReport(csvText(pending.bytes)).rows.map((r) => r.item_id)).toEqual(['1000', '2001', '2010']);
    const mine = await download(await as('executor'), '/projects/1/report.csv?mine=1');
    expect(parseCsvReport(csvText(mine.bytes)).rows.map((r) => r.item_id)).toEqual(['1000', '1001']);
    const text = await download(web, `/projects/1/report.csv?q=${encodeURIComponent('документов')}`);
    expect(parseCsvReport(csvText(text.bytes)).rows.map((r) => r.item_id)).toEqual(['2000']);
  });

  it('PDF: the project and its items, made by the signed-in user', async () => {
    const web = await as('observer');
    const pdf = await download(web, '/projects/1/report.pdf?overdue=0');
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const text = await pdfText(pdf.bytes);
    for (const expected of ['Plant audit', 'Item 2010', 'Проверка документов', 'by Observer']) expect(text, expected).toContain(expected);
  });

  it('a project the user cannot see is the 404 page, for the offer and for both files; signed out goes to sign-in', async () => {
    const web = await as('manager');
    for (const path of ['/projects/3/report', '/projects/3/report.pdf', '/projects/3/report.csv', '/projects/999/report.csv']) {
      const res = await web.get(path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toMatch(/^text\/html/);
    }
    const anonymous = await fetch(`${server.url}/projects/1/report.csv`, { redirect: 'manual' });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toMatch(/^\/login/);
  });
});
