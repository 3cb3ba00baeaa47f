import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { ReportRow } from './report-rows.js';

/**
 * The columns of docs/design.md §17, in that order, then §19's place on a plan (empty when on none), then §20's
 * responsible company (its name; empty when none) and whose move it is.
 */
export const CSV_COLUMNS = [
  'item_id',
  'section',
  'checklist',
  'text',
  'status',
  'priority',
  'deadline',
  'participants',
  'answers',
  'last_answer_status',
  'verdict',
  'url',
  'plan',
  'plan_x',
  'plan_y',
  'company',
  'ball_in_court',
] as const;

const BOM = '\uFEFF';

/**
 * A cell a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, or a tab or carriage return that some
 * programs strip first) gets a leading `'`: the cell shows as text, and the CRM import keeps the value
 * readable (docs/decisions.md, "Reports: CSV formula injection").
 */
export function neutralise(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

export function csvRecord(row: ReportRow): (string | number)[] {
  return [
    row.id,
    neutralise(row.section),
    neutralise(row.checklist),
    neutralise(row.text),
    row.status,
    row.priority,
    row.deadline ?? '',
    neutralise(row.participants.join('; ')),
    row.answers,
    row.lastAnswer?.status ?? '',
    row.verdict ?? '',
    row.url,
    row.location ? neutralise(row.location.plan_name) : '',
    row.location?.x ?? '',
    row.location?.y ?? '',
    row.company ? neutralise(row.company.name) : '',
    row.ballInCourt,
  ];
}

async function* chunks(pages: AsyncIterable<ReportRow[]>): AsyncGenerator<string> {
  yield BOM + stringify([[...CSV_COLUMNS]], { record_delimiter: 'windows' });
  for await (const page of pages) yield stringify(page.map(csvRecord), { record_delimiter: 'windows' });
}

/** UTF-8 with BOM (spreadsheets then read Cyrillic right), CRLF rows (RFC 4180), one page of items per chunk. */
export function csvReport(pages: AsyncIterable<ReportRow[]>): Readable {
  return Readable.from(chunks(pages), { objectMode: false });
}
