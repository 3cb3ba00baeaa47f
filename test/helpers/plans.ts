import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PDFDocument from 'pdfkit';

/** Plans made in the test (PDFKit, already a dependency): no binary fixtures in the repository. */
export interface PdfOptions {
  pages?: number;
  /** A PDFKit page size (`A6`, `A1`…); small by default, so that the test renders fast. */
  size?: string;
  /** Encrypted with this user password: a reader needs it to open the file. */
  userPassword?: string;
  /** Lines drawn per page (a heavy page takes long to render). */
  lines?: number;
}

export function makePdf(options: PdfOptions = {}): Promise<Buffer> {
  const { pages = 1, size = 'A6', lines = 20 } = options;
  const doc = new PDFDocument({ size, autoFirstPage: false, ...(options.userPassword ? { userPassword: options.userPassword } : {}) });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve) => doc.on('end', () => resolve(Buffer.concat(chunks))));
  for (let page = 1; page <= pages; page++) {
    doc.addPage();
    const { width, height } = doc.page;
    for (let i = 0; i < lines; i++) {
      doc
        .moveTo((i * width) / lines, 0)
        .lineTo(width - (i * width) / lines, height)
        .lineWidth(0.3)
        .stroke();
    }
    doc.fontSize(14).text(`Floor ${page}`, 20, 20);
  }
  doc.end();
  return done;
}

/** Writes bytes to a new temp file named `name` (as an upload's temp file would be); returns its path. */
export function tempFile(bytes: Buffer | string, name: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'punchlist-plan-test-')), name);
  writeFileSync(path, bytes);
  return path;
}
