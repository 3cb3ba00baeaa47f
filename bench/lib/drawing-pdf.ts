/** The benchmarks' drawing: a PDF of A1 sheets with a plan's dense line work and text (bench/plans.ts, bench/plans-render.ts). */
import PDFDocument from 'pdfkit';
import { random } from './random.js';

/** An A1 drawing per page: a grid, walls (double lines), doors (arcs), hatching, dimension lines and labels. */
export function drawingPdf(pages: number): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'A1', layout: 'landscape', autoFirstPage: false, compress: true });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((r) => doc.on('end', () => r(Buffer.concat(chunks))));
  for (let page = 1; page <= pages; page++) {
    const rand = random(page);
    doc.addPage();
    const { width, height } = doc.page;
    // Grid every 24 pt, thin.
    doc.lineWidth(0.2).strokeColor('#999999');
    for (let x = 40; x < width - 40; x += 24) doc.moveTo(x, 40).lineTo(x, height - 40);
    for (let y = 40; y < height - 40; y += 24) doc.moveTo(40, y).lineTo(width - 40, y);
    doc.stroke();
    // Rooms: walls as double lines, a door arc, hatching in some, a label and a dimension line each.
    doc.strokeColor('#000000');
    for (let r = 0; r < 120; r++) {
      const x = 60 + rand() * (width - 320);
      const y = 60 + rand() * (height - 260);
      const w = 80 + rand() * 200;
      const h = 60 + rand() * 160;
      doc.lineWidth(1.2).rect(x, y, w, h).stroke();
      doc
        .lineWidth(0.4)
        .rect(x + 4, y + 4, w - 8, h - 8)
        .stroke();
      doc
        .lineWidth(0.3)
        .moveTo(x + 30, y + h)
        .quadraticCurveTo(x + 30, y + h - 20, x + 10, y + h - 20)
        .lineTo(x + 10, y + h)
        .stroke();
      if (r % 3 === 0) {
        doc.lineWidth(0.15);
        for (let k = 6; k < w + h; k += 6)
          doc.moveTo(x + Math.min(k, w), y + Math.max(0, k - w)).lineTo(x + Math.max(0, k - h), y + Math.min(k, h));
        doc.stroke();
      }
      doc
        .lineWidth(0.25)
        .moveTo(x, y - 8)
        .lineTo(x + w, y - 8)
        .stroke();
      doc
        .fontSize(7)
        .fillColor('#000000')
        .text(`${(w * 10).toFixed(0)}`, x + w / 2 - 10, y - 16, { lineBreak: false });
      doc.fontSize(9).text(`Room ${page}.${r + 1}`, x + 8, y + 8, { lineBreak: false });
      doc.fontSize(6).text(`Finish: plaster, paint RAL 9010 · floor F${r % 7}`, x + 8, y + 20, { lineBreak: false });
    }
    // Title block.
    doc
      .lineWidth(1)
      .rect(width - 420, height - 160, 380, 120)
      .stroke();
    doc.fontSize(16).text(`Level ${page}: general arrangement`, width - 410, height - 150, { lineBreak: false });
    doc
      .fontSize(9)
      .text(`Drawing A-${String(page).padStart(3, '0')} · scale 1:100 · revision C`, width - 410, height - 120, { lineBreak: false });
  }
  doc.end();
  return done;
}
