import { message } from '../../i18n/i18n.js';
import { CAPTION_HEIGHT, clip, LONG_TEXT, MARGIN, type Printer, printable, STAGE_THUMB, THUMB } from './report-pdf-printer.js';
import type { PrintedPhoto, ReportRow } from './report-rows.js';

type Answer = NonNullable<ReportRow['lastAnswer']>;

function ensureSpace(p: Printer, height: number) {
  if (p.doc.y + height > p.bottom() && p.doc.y > MARGIN + 1) p.doc.addPage();
}

/** An item of the list: its section's and checklist's headings when they change, its lines, answer and photos. */
export function item(p: Printer, row: ReportRow) {
  const title = `${row.number}.  #${row.id}  ${printable(row.text)}`;
  const answer = row.lastAnswer;
  const answerText = answer ? printable(clip(answer.text, LONG_TEXT)) : '';
  const vocabulary = vocabularyLine(p, row);
  ensureSpace(p, Math.min(itemHeight(p, row, title, answerText, vocabulary), p.bottom() - MARGIN));
  headings(p, row);
  p.doc.moveDown(0.4);
  p.fontFor('bold', title).fontSize(10).text(title, MARGIN, p.doc.y, { width: p.width() });
  p.doc.font('body').fontSize(9);
  p.doc.text(
    p.t('report.itemLine', {
      status: p.value('report.status', row.status),
      priority: p.value('report.priority', row.priority),
      deadline: p.calendarDay(row.deadline),
      answers: String(row.answers),
    }),
  );
  const participants = p.t('report.participants', { names: row.participants.length ? printable(row.participants.join('; ')) : '—' });
  p.fontFor('body', participants).text(participants);
  if (row.location) {
    const plan = p.t('report.plan', { name: printable(row.location.plan_name) });
    p.fontFor('body', plan).text(plan);
  }
  if (vocabulary) p.fontFor('body', vocabulary).text(vocabulary, MARGIN, p.doc.y, { width: p.width() });
  if (answer) answerLines(p, answer, answerText);
  const verdictWord = p.value('report.verdict', row.verdict);
  const verdict = printable(
    row.reworkReason
      ? p.t('report.itemVerdictRework', { verdict: verdictWord, reason: clip(row.reworkReason, 200) })
      : p.t('report.itemVerdict', { verdict: verdictWord }),
  );
  p.fontFor('body', verdict).text(verdict, MARGIN, p.doc.y, {
    width: p.width(),
  });
  p.doc.font('body');
  stagePhotos(p, row);
  thumbnails(p, row);
}

/** How tall the item will print (to keep it on one page when it fits one). */
function itemHeight(p: Printer, row: ReportRow, title: string, answerText: string, vocabulary: string | null): number {
  p.fontFor('bold', title).fontSize(10);
  let height = p.doc.heightOfString(title, { width: p.width() }) + 40;
  p.fontFor('body', answerText).fontSize(9);
  if (row.location) height += 12;
  if (vocabulary) height += 12;
  if (row.lastAnswer) height += 14 + p.doc.heightOfString(answerText, { width: p.width() - 12 });
  if (row.thumbnails.length) height += THUMB + 8;
  if (row.stages.defect.length || row.stages.fix.length) height += STAGE_THUMB + CAPTION_HEIGHT + 24;
  if (p.place.section !== row.section) height += 40;
  return height;
}

/** The section's and the checklist's names, where the item is under another one than the item before. */
function headings(p: Printer, row: ReportRow) {
  if (p.place.section !== row.section) {
    p.place.section = row.section;
    p.place.checklist = null;
    const name = printable(row.section);
    p.doc.moveDown(0.5);
    p.fontFor('bold', name).fontSize(14).text(name, MARGIN, p.doc.y, { width: p.width() });
  }
  if (p.place.checklist !== row.checklist) {
    p.place.checklist = row.checklist;
    const name = printable(row.checklist);
    p.doc.moveDown(0.3);
    p.fontFor('bold', name).fontSize(12).fillColor('#333333').text(name, MARGIN, p.doc.y, { width: p.width() });
    p.doc.fillColor('#000000');
  }
}

/** The last answer: who, when, its status and review, then its text. */
function answerLines(p: Printer, answer: Answer, answerText: string) {
  const review = answer.review
    ? p.t('report.reviewed', {
        status: p.value('report.answer', answer.review.status),
        name: answer.review.by ?? p.t('report.someone'),
        day: p.day(answer.review.at),
      })
    : p.t('report.notReviewed');
  const answered = printable(
    p.t('report.lastAnswer', {
      author: answer.author,
      day: p.day(answer.created_at),
      status: p.value('report.answer', answer.status),
      review,
    }),
  );
  p.fontFor('body', answered).text(answered);
  p.fontFor('body', answerText)
    .fillColor('#333333')
    .text(answerText, MARGIN + 12, p.doc.y, { width: p.width() - 12 });
  p.doc.fillColor('#000000');
  p.doc.x = MARGIN;
}

/** The item's other photos in a row, and how many more it has. */
function thumbnails(p: Printer, row: ReportRow) {
  if (!row.thumbnails.length) return;
  if (p.doc.y + THUMB + 8 > p.bottom()) p.doc.addPage();
  const top = p.doc.y + 4;
  row.thumbnails.forEach((jpeg, i) => p.doc.image(jpeg, MARGIN + i * (THUMB + 6), top, { fit: [THUMB, THUMB] }));
  p.doc.x = MARGIN;
  p.doc.y = top + THUMB + 4;
  if (row.photoCount > row.thumbnails.length) p.doc.text(p.t('report.morePhotos', { count: row.photoCount - row.thumbnails.length }));
}

/**
 * The item's category and custom field values (docs/design.md §21), on one line: "Category: Electrical ·
 * Severity: high · Cost estimate: 1250"; null when it has neither.
 */
function vocabularyLine(p: Printer, row: ReportRow): string | null {
  const parts = Object.entries(row.fields ?? {}).map(([name, value]) => `${name}: ${value}`);
  if (row.category) parts.unshift(message(p.heading.language ?? 'en', 'vocab.report.category', { category: row.category }));
  return parts.length ? printable(clip(parts.join(' · '), LONG_TEXT)) : null;
}

/**
 * "Defect" on the left, "Fix" on the right (docs/design.md §22): each side its photos (the marked-up picture of a
 * photo in its place) with their captions under them.
 */
function stagePhotos(p: Printer, row: ReportRow) {
  const { defect, fix } = row.stages;
  if (!defect.length && !fix.length) return;
  if (p.doc.y + STAGE_THUMB + CAPTION_HEIGHT + 24 > p.bottom()) p.doc.addPage();
  const half = (p.width() - 12) / 2;
  const top = p.doc.y + 4;
  const side = (title: string, photos: PrintedPhoto[], left: number) => {
    p.doc.font('bold').fontSize(9).text(title, left, top, { width: half, lineBreak: false });
    if (!photos.length)
      p.doc
        .font('body')
        .fillColor('#555555')
        .text(p.t('report.noneYet'), left, top + 14, { width: half })
        .fillColor('#000000');
    const each = Math.min(STAGE_THUMB, (half - 6 * (photos.length - 1)) / Math.max(1, photos.length));
    photos.forEach((photo, i) => {
      const x = left + i * (each + 6);
      p.doc.image(photo.jpeg, x, top + 14, { fit: [each, STAGE_THUMB] });
      const caption = printable(clip(`${photo.markedUp ? `${p.t('report.markedUp')} ` : ''}${photo.caption ?? ''}`.trim(), 90));
      if (caption)
        p.fontFor('body', caption)
          .fontSize(7.5)
          .text(caption, x, top + 16 + STAGE_THUMB, { width: each, height: CAPTION_HEIGHT, ellipsis: true });
    });
  };
  side(p.t('report.defect'), defect, MARGIN);
  side(p.t('report.fix'), fix, MARGIN + half + 12);
  p.doc.font('body').fontSize(9);
  p.doc.x = MARGIN;
  p.doc.y = top + 14 + STAGE_THUMB + CAPTION_HEIGHT + 4;
}
