// The demo's floor plan (docs/design.md §19): the fit-out project's floor 3, drawn for the demo with pdfkit, as
// an A3 sheet in two revisions. The PDFs are committed beside the demo (src/demo/plans/); this script is their
// source. Revision B adds a partition and a door in the open space and its revision cloud, so that the demo
// shows a plan's second version keeping every pin where it was.
//
//   node scripts/make-demo-plan.mjs      (writes src/demo/plans/floor-3-rev-a.pdf and floor-3-rev-b.pdf)
import { createWriteStream } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import PDFDocument from 'pdfkit';

const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'demo', 'plans');
// A3 landscape in points; the drawing at 1:100 (1 m = 10 mm = 28.35 pt).
const W = 1190.55;
const H = 841.89;
const M = 28.35;
const X0 = 90;
const Y0 = 90;
const at = (x, y) => [X0 + x * M, Y0 + y * M];

function wall(doc, points, width = 5) {
  doc.save().lineWidth(width).lineJoin('miter').strokeColor('#111');
  const [first, ...rest] = points;
  doc.moveTo(...at(...first));
  for (const p of rest) doc.lineTo(...at(...p));
  doc.stroke().restore();
}

/** A door: the opening cleared in the wall, the leaf and its swing. */
function door(doc, [x, y], width, direction) {
  const [px, py] = at(x, y);
  const r = width * M;
  doc.save().lineWidth(7).strokeColor('#fff');
  if (direction === 'h')
    doc
      .moveTo(px, py)
      .lineTo(px + r, py)
      .stroke();
  else
    doc
      .moveTo(px, py)
      .lineTo(px, py + r)
      .stroke();
  doc.restore().save().lineWidth(1).strokeColor('#333');
  if (direction === 'h') {
    doc
      .moveTo(px, py)
      .lineTo(px, py - r)
      .stroke();
    doc
      .path(`M ${px} ${py - r} A ${r} ${r} 0 0 1 ${px + r} ${py}`)
      .dash(3, { space: 2 })
      .stroke();
  } else {
    doc
      .moveTo(px, py)
      .lineTo(px + r, py)
      .stroke();
    doc
      .path(`M ${px + r} ${py} A ${r} ${r} 0 0 1 ${px} ${py + r}`)
      .dash(3, { space: 2 })
      .stroke();
  }
  doc.restore();
}

function label(doc, text, [x, y], size = 14) {
  const [px, py] = at(x, y);
  doc
    .fontSize(size)
    .fillColor('#222')
    .text(text, px - 100, py - size / 2, { width: 200, align: 'center' });
}

function grid(doc) {
  const columns = ['A', 'B', 'C', 'D', 'E', 'F'];
  doc.save().lineWidth(0.5).strokeColor('#7a8aa0').dash(8, { space: 4 });
  columns.forEach((c, i) => {
    const [x] = at(i * 7, 0);
    doc
      .moveTo(x, Y0 - 40)
      .lineTo(x, Y0 + 23 * M)
      .stroke();
  });
  [1, 2, 3, 4].forEach((n, i) => {
    const [, y] = at(0, i * 7);
    doc
      .moveTo(X0 - 40, y)
      .lineTo(X0 + 35 * M + 20, y)
      .stroke();
  });
  doc.undash().fontSize(12).fillColor('#34495e');
  columns.forEach((c, i) => {
    const [x] = at(i * 7, 0);
    doc.circle(x, Y0 - 52, 11).stroke();
    doc.text(c, x - 11, Y0 - 58, { width: 22, align: 'center' });
  });
  [1, 2, 3, 4].forEach((n, i) => {
    const [, y] = at(0, i * 7);
    doc.circle(X0 - 52, y, 11).stroke();
    doc.text(String(n), X0 - 63, y - 6, { width: 22, align: 'center' });
  });
  doc.restore();
}

function sheet(revision) {
  const doc = new PDFDocument({ size: 'A3', layout: 'landscape', margin: 0, info: { Title: `Floor 3 — rev. ${revision}` } });
  doc.pipe(createWriteStream(join(out, `floor-3-rev-${revision.toLowerCase()}.pdf`)));
  grid(doc);
  // The outline of the floor, 35 m × 21 m, and its core.
  wall(
    doc,
    [
      [0, 0],
      [35, 0],
      [35, 21],
      [0, 21],
      [0, 0],
    ],
    8,
  );
  wall(doc, [
    [21, 0],
    [21, 21],
  ]);
  wall(doc, [
    [21, 10.5],
    [35, 10.5],
  ]);
  wall(doc, [
    [28, 0],
    [28, 10.5],
  ]);
  wall(doc, [
    [28, 14],
    [35, 14],
  ]);
  wall(doc, [
    [14, 14],
    [21, 14],
  ]);
  wall(doc, [
    [14, 14],
    [14, 21],
  ]);
  door(doc, [21, 4], 1, 'v');
  door(doc, [21, 15], 1, 'v');
  door(doc, [24, 10.5], 1, 'h');
  door(doc, [30, 10.5], 1, 'h');
  door(doc, [30, 14], 1, 'h');
  door(doc, [16, 14], 1, 'h');
  // Windows along the façade: thin double lines.
  doc.save().lineWidth(1).strokeColor('#1f5fbf');
  for (let x = 1.5; x < 34; x += 3.5) {
    const [a, y] = at(x, 0);
    const [b] = at(x + 2, 0);
    doc
      .moveTo(a, y - 2)
      .lineTo(b, y - 2)
      .moveTo(a, y + 2)
      .lineTo(b, y + 2)
      .stroke();
  }
  doc.restore();
  label(doc, 'OPEN SPACE  3.01', [10.5, 7], 18);
  label(doc, '240 m²', [10.5, 8.2], 11);
  label(doc, 'MEETING ROOM  3.02', [24.5, 5], 13);
  label(doc, 'MEETING ROOM  3.03', [31.5, 5], 13);
  label(doc, 'KITCHEN  3.04', [28, 12.2], 12);
  label(doc, 'CORE / WC', [31.5, 17.5], 12);
  label(doc, 'RECEPTION  3.05', [17.5, 17.5], 12);
  label(doc, 'STORE', [24.5, 17.5], 12);
  // Desks in the open space.
  doc.save().lineWidth(0.8).strokeColor('#888');
  for (let row = 0; row < 3; row++) {
    for (let col = 0; col < 3; col++) {
      const [x, y] = at(2 + col * 4.5, 11 + row * 3);
      doc.rect(x, y, 3.2 * M, 1.4 * M).stroke();
    }
  }
  doc.restore();
  if (revision === 'B') {
    // Revision B: a focus room partitioned off the open space, with its door and a revision cloud.
    wall(
      doc,
      [
        [14, 0],
        [14, 5],
      ],
      4,
    );
    wall(
      doc,
      [
        [14, 5],
        [21, 5],
      ],
      4,
    );
    door(doc, [16, 5], 0.9, 'h');
    label(doc, 'FOCUS ROOM  3.06', [17.5, 2.5], 12);
    const [cx, cy] = at(17.5, 2.5);
    doc.save().lineWidth(1.5).strokeColor('#b3261e');
    for (let a = 0; a < 360; a += 20) {
      const r1 = (a * Math.PI) / 180;
      const x = cx + Math.cos(r1) * 150;
      const y = cy + Math.sin(r1) * 90;
      doc.circle(x, y, 14).stroke();
    }
    doc.restore();
  }
  // Title block.
  const tx = W - 330;
  const ty = H - 120;
  doc.save().lineWidth(1).strokeColor('#111').rect(tx, ty, 300, 90).stroke();
  doc
    .fontSize(16)
    .fillColor('#111')
    .text('Office fit-out — Floor 3', tx + 12, ty + 10);
  doc.fontSize(10).text(`General arrangement · 1:100 · A3 · Revision ${revision}`, tx + 12, ty + 34);
  doc.text('Drawn for the Punchlist demo', tx + 12, ty + 52);
  doc.text(revision === 'A' ? 'Rev. A: issued for construction' : 'Rev. B: focus room 3.06 added', tx + 12, ty + 68);
  doc.restore();
  doc.end();
}

sheet('A');
sheet('B');
