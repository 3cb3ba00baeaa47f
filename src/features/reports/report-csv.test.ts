import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { CSV_COLUMNS, csvRecord, csvReport, neutralise } from './report-csv.js';
import type { ReportRow } from './report-rows.js';

const row = (overrides: Partial<ReportRow> = {}): ReportRow => ({
  number: 1,
  id: 1000,
  section: 'Safety',
  checklist: 'Fire',
  text: 'Extinguishers checked',
  status: 'in_progress',
  priority: 'high',
  deadline: '2026-12-31',
  participants: ['Ann', 'Борис'],
  answers: 2,
  lastAnswer: { text: 'ok', status: 'approved', author: 'Ann', created_at: '2026-01-01T00:00:00.000Z', review: null },
  verdict: null,
  reworkReason: null,
  url: 'https://punchlist.test/items/1000',
  photoCount: 0,
  thumbnails: [],
  stages: { defect: [], fix: [] },
  location: null,
  company: null,
  ballInCourt: 'company',
  ...overrides,
});

async function textOf(pages: ReportRow[][]): Promise<string> {
  async function* iterate() {
    yield* pages;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of csvReport(iterate())) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

describe('the CSV report writer', () => {
  it('neutralises what a spreadsheet would run as a formula, and nothing else', () => {
    for (const formula of ['=1+2', '+1', '-1', '@SUM(A1)', '\tx', '\rx', '=HYPERLINK("http://x")']) {
      expect(neutralise(formula), JSON.stringify(formula)).toBe(`'${formula}`);
    }
    for (const plain of ['Text', ' =not first', "'quoted", '1-2', 'Проверка', '']) expect(neutralise(plain)).toBe(plain);
  });

  it('writes a BOM, the header, CRLF rows and values as v1 writes them (empty for none)', async () => {
    const text = await textOf([
      [row()],
      [row({ id: 1001, deadline: null, participants: [], answers: 0, lastAnswer: null, verdict: 'accepted' })],
    ]);
    expect(text.startsWith('\uFEFFitem_id,section,')).toBe(true);
    expect(text.split('\r\n')).toHaveLength(4);
    const records = parse(text.slice(1)) as string[][];
    expect(records[0]).toEqual([...CSV_COLUMNS]);
    expect(records[1]).toEqual(csvRecord(row()).map(String));
    expect(records[1]?.[7]).toBe('Ann; Борис');
    expect(records[2]).toEqual([
      '1001',
      'Safety',
      'Fire',
      'Extinguishers checked',
      'in_progress',
      'high',
      '',
      '',
      '0',
      '',
      'accepted',
      row().url,
      '',
      '',
      '',
      '',
      'company',
    ]);
  });

  it('appends the category, then one column per field by its name (docs/design.md §21), neutralised; none without a vocabulary', async () => {
    const fields = ['Severity', 'Cost estimate'];
    const chunks: Buffer[] = [];
    async function* pages() {
      yield [
        row({ category: 'Electrical', fields: { Severity: 'high', 'Cost estimate': '1250.5' } }),
        row({ id: 1001, category: '=cmd', fields: { 'Cost estimate': '-3' } }),
      ];
    }
    for await (const chunk of csvReport(pages(), { used: true, fieldNames: fields })) chunks.push(chunk as Buffer);
    const records = parse(Buffer.concat(chunks).toString('utf8').slice(1)) as string[][];
    expect(records[0]).toEqual([...CSV_COLUMNS, 'category', 'Severity', 'Cost estimate']);
    expect(records.slice(1).map((r) => r.slice(CSV_COLUMNS.length))).toEqual([
      ['Electrical', 'high', '1250.5'],
      ["'=cmd", '', "'-3"],
    ]);
  });

  it('appends the place on a plan (docs/design.md §19): the plan, x and y as fractions; the name neutralised', async () => {
    expect(CSV_COLUMNS.slice(-5, -2)).toEqual(['plan', 'plan_x', 'plan_y']);
    const placed = row({ location: { plan_id: 7, plan_name: 'Floor 3', x: 0.25, y: 0.75 } });
    const odd = row({ id: 1001, location: { plan_id: 8, plan_name: '=B1', x: 1, y: 0 } });
    const records = parse((await textOf([[placed, odd, row({ id: 1002 })]])).slice(1)) as string[][];
    expect(records.slice(1).map((r) => r.slice(CSV_COLUMNS.length - 5, CSV_COLUMNS.length - 2))).toEqual([
      ['Floor 3', '0.25', '0.75'],
      ["'=B1", '1', '0'],
      ['', '', ''],
    ]);
  });

  it('appends the responsible company (its name, neutralised) and whose move it is (docs/design.md §20)', async () => {
    expect(CSV_COLUMNS.slice(-2)).toEqual(['company', 'ball_in_court']);
    const held = row({ company: { id: 3, name: 'Sparks Ltd' }, ballInCourt: 'review' });
    const odd = row({ id: 1001, company: { id: 4, name: '=cmd' }, ballInCourt: 'none' });
    const records = parse((await textOf([[held, odd, row({ id: 1002 })]])).slice(1)) as string[][];
    expect(records.slice(1).map((r) => r.slice(-2))).toEqual([
      ['Sparks Ltd', 'review'],
      ["'=cmd", 'none'],
      ['', 'company'],
    ]);
  });

  it('quotes commas, quotes and line breaks so the row survives a round trip', async () => {
    const tricky = row({ text: 'Line one,\n"two"', participants: ['-Eve', 'Bob'] });
    const records = parse((await textOf([[tricky]])).slice(1)) as string[][];
    expect(records[1]?.[3]).toBe('Line one,\n"two"');
    expect(records[1]?.[7]).toBe("'-Eve; Bob");
  });
});
