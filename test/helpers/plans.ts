import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PDFDocument from 'pdfkit';
import sharp from 'sharp';
import type { AppContext } from '../../src/composition/context.js';
import { tileSheet } from '../../src/imaging/plan-sheets.js';

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

/**
 * Plan 1 of the standard workspace: "Ground floor" of project 1, one version, its sheet and tiles in the blob
 * store as an upload leaves them (tiled by the app's own imaging from a made image), no pin. Written directly: the
 * workspace is data, and an upload's thread would cost every test server seconds.
 */
export async function seedWorkspacePlan(ctx: AppContext): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'punchlist-plan-seed-'));
  try {
    const bytes = await sharp({ create: { width: 1200, height: 800, channels: 3, background: '#f4f1ea' } })
      .png()
      .toBuffer();
    const sheet = await tileSheet({ bytes }, dir, { maxSide: 8192, maxPixels: 24_000_000 });
    const prefix = 'plans/workspace/p1/';
    for (const file of sheet.files) await ctx.blobs.put(prefix + file, readFileSync(join(dir, file)), 'application/octet-stream');
    const at = '2026-03-02T08:00:00.000Z';
    const { id } = await ctx.db.kysely
      .insertInto('plans')
      .values({ project_id: 1, name: 'Ground floor', current_version: 1, position: 0, created_by: 1, created_at: at, updated_at: at })
      .returning('id')
      .executeTakeFirstOrThrow();
    await ctx.db.kysely
      .insertInto('plan_versions')
      .values({
        plan_id: id,
        version: 1,
        width: sheet.width,
        height: sheet.height,
        source_kind: 'png',
        source_name: 'Ground floor',
        source_page: null,
        tile_size: sheet.tileSize,
        tile_overlap: sheet.overlap,
        levels: sheet.levels,
        blob_prefix: prefix,
        created_by: 1,
        created_at: at,
      })
      .execute();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
