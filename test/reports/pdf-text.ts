import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';

/** The text of a PDF as poppler's pdftotext reads it (the way a person copying from the print would). */
export async function pdfText(bytes: Uint8Array): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'punchlist-pdf-'));
  try {
    const file = join(dir, 'report.pdf');
    writeFileSync(file, bytes);
    const { stdout } = await promisify(execFile)('pdftotext', ['-enc', 'UTF-8', file, '-']).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT')
        throw new Error('pdftotext is missing: the report tests need it. Install it with "apt-get install -y poppler-utils".');
      throw err;
    });
    return stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A CSV report parsed back: its header and its rows as objects (the BOM checked and removed). */
export function parseCsvReport(text: string): { header: string[]; rows: Record<string, string>[] } {
  if (!text.startsWith('\uFEFF')) throw new Error('The CSV does not start with a BOM');
  const records = parse(text.slice(1), { relax_column_count: false }) as string[][];
  const [header = [], ...rest] = records;
  return { header, rows: rest.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? '']))) };
}

/** The images of a PDF as poppler's `pdfimages -list` lists them: the page each is on and its size in pixels. */
export async function pdfImages(bytes: Uint8Array): Promise<{ page: number; width: number; height: number }[]> {
  const dir = mkdtempSync(join(tmpdir(), 'punchlist-pdf-'));
  try {
    const file = join(dir, 'report.pdf');
    writeFileSync(file, bytes);
    const { stdout } = await promisify(execFile)('pdfimages', ['-list', file]);
    // Two heading lines ("page num type width height …" and a rule), then one line per image.
    return stdout
      .split('\n')
      .slice(2)
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const [page, , , width, height] = line.trim().split(/\s+/);
        return { page: Number(page), width: Number(width), height: Number(height) };
      });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
