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

/**
 * The columns of the project's vocabulary (docs/design.md §21), appended after the others when the project has
 * categories or fields (`used`): `category`, then one per field (retired ones too: their values are kept), by name.
 */
export interface CsvVocabulary {
  used: boolean;
  fieldNames: readonly string[];
}

const NO_VOCABULARY: CsvVocabulary = { used: false, fieldNames: [] };

export function vocabularyColumns(vocabulary: CsvVocabulary): string[] {
  return vocabulary.used ? ['category', ...vocabulary.fieldNames] : [];
}

export function csvRecord(row: ReportRow, vocabulary: CsvVocabulary = NO_VOCABULARY): (string | number)[] {
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
    // docs/design.md §21: the category, then one column per field.
    ...(vocabulary.used
      ? [neutralise(row.category ?? ''), ...vocabulary.fieldNames.map((name) => neutralise(row.fields?.[name] ?? ''))]
      : []),
  ];
}

async function* chunks(pages: AsyncIterable<ReportRow[]>, vocabulary: CsvVocabulary): AsyncGenerator<string> {
  yield BOM + stringify([[...CSV_COLUMNS, ...vocabularyColumns(vocabulary)]], { record_delimiter: 'windows' });
  for await (const page of pages)
    yield stringify(
      page.map((row) => csvRecord(row, vocabulary)),
      { record_delimiter: 'windows' },
    );
}

/** UTF-8 with BOM (spreadsheets then read Cyrillic right), CRLF rows (RFC 4180), one page of items per chunk. */
export function csvReport(pages: AsyncIterable<ReportRow[]>, vocabulary: CsvVocabulary = NO_VOCABULARY): Readable {
  return Readable.from(chunks(pages, vocabulary), { objectMode: false });
}
