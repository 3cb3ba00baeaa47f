import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { pdfText } from '../../../test/reports/pdf-text.js';
import { pdfReport, printable } from './report-pdf.js';
import type { ReportHeading, ReportRow } from './report-rows.js';

/**
 * The PDF report with text DejaVu cannot show (issue 46): Chinese, Japanese, Korean and emoji come out in the
 * fallback font, readable back with poppler's pdftotext; a pile of combining marks is cut to its own line.
 */
const ZALGO = `Z${'\u0301\u0316\u0352\u0363\u036b\u0489'.repeat(8)}algo`;

const heading: ReportHeading = {
  project: {
    id: 1,
    name: '新築工事 現場検査 🏗️',
    description: 'Ground floor, 한국어 메모',
    deadline: null,
    verdict: null,
    archived: false,
    progress: { done: 0, total: 2, percent: 0 },
    counters: { sections: 1, checklists: 1, items: 2, pending: 2, in_progress: 0, done: 0, blocked: 0 },
    created_at: '2026-11-01T00:00:00Z',
    updated_at: '2026-11-01T00:00:00Z',
  },
  filter: [],
  language: 'en',
  items: 2,
  madeBy: '王小明',
  madeAt: new Date('2026-11-28T09:00:00Z'),
  timeZone: null,
  plans: [],
};

const row = (id: number, text: string, more: Partial<ReportRow> = {}): ReportRow => ({
  number: id,
  id,
  section: '一階',
  checklist: 'Électricité',
  text,
  status: 'pending',
  priority: 'high',
  deadline: null,
  participants: ['田中 花子', 'Ann'],
  answers: 0,
  lastAnswer: null,
  verdict: null,
  reworkReason: null,
  url: `http://x.test/items/${id}`,
  photoCount: 0,
  thumbnails: [],
  stages: { defect: [], fix: [] },
  location: null,
  company: null,
  ballInCourt: 'company',
  ...more,
});

async function render(rows: ReportRow[]): Promise<Buffer> {
  const chunks: Buffer[] = [];
  async function* pages() {
    yield rows;
  }
  for await (const chunk of pdfReport(heading, pages())) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function fontsOf(pdf: Buffer): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'punchlist-pdf-fonts-'));
  try {
    writeFileSync(join(dir, 'r.pdf'), pdf);
    return (await promisify(execFile)('pdffonts', [join(dir, 'r.pdf')])).stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('PDF report: text beyond Latin and Cyrillic', () => {
  it('prints Chinese, Japanese, Korean and emoji in the fallback font, read back by pdftotext', async () => {
    const pdf = await render([
      row(1, '配電盤の点検 ✅ 🔧', {
        lastAnswer: { text: '완료했습니다 👍', status: 'pending', author: '김민준', created_at: '2026-11-20T10:00:00Z', review: null },
      }),
      row(2, 'Plain Latin, Кириллица'),
    ]);
    const text = (await pdfText(pdf)).normalize('NFC');
    for (const expected of [
      '新築工事 現場検査',
      '王小明',
      '한국어 메모',
      '一階',
      '配電盤の点検 ✅ 🔧',
      '田中 花子',
      '김민준',
      '완료했습니다 👍',
    ]) {
      expect(text, expected).toContain(expected);
    }
    // DejaVu still prints what it can show.
    expect(text).toContain('Plain Latin, Кириллица');
    expect(text).toContain('Électricité');
    const fonts = await fontsOf(pdf);
    expect(fonts).toMatch(/DejaVuSans\b/);
    expect(fonts).toMatch(/UnifontEx/i);
  });

  it('cuts a pile of combining marks to three on its character, in the PDF and before it', async () => {
    const marks = (text: string) => Math.max(0, ...[...text.matchAll(/\p{M}+/gu)].map((m) => [...m[0]].length));
    expect(marks(ZALGO)).toBe(48);
    expect(marks(printable(ZALGO))).toBe(3);
    expect(printable(ZALGO)).toMatch(/^Ź\p{M}{3}algo$/u);
    // Accents of real scripts are kept: composed where Unicode has the letter, up to three marks otherwise.
    expect(printable('Vie\u0302\u0323t Nam')).toBe('Việt Nam');
    expect(printable('שָׁלוֹם')).toBe('שָׁלוֹם'.normalize('NFC'));
    const text = await pdfText(await render([row(1, ZALGO)]));
    const line = text.split('\n').find((l) => l.includes('algo'))!;
    expect(line).toBeDefined();
    expect(marks(line)).toBeLessThanOrEqual(3);
    expect(line).toContain('algo');
  });
});
