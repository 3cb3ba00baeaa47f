import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { PassThrough, type Readable } from 'node:stream';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import PDFDocument from 'pdfkit';
import { fallbackFont } from './fallback-font.js';
import type { PrintedPhoto, ReportHeading, ReportPlan, ReportRow } from './report-rows.js';
import { zonedTime } from '../../domain/time-zones.js';
import { formatDay, isMessageKey, message, translator } from '../../i18n/i18n.js';

// The fonts come from npm packages, never from a path of the machine: DejaVu (Latin, Greek, Cyrillic, many
// symbols) for the text, and a fallback (fallback-font.ts) for a text that DejaVu cannot show: Chinese, Japanese,
// Korean, emoji (docs/decisions.md, "Report fonts").
const require = createRequire(import.meta.url);
const FONT_DIR = join(dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
const FONTS = { body: join(FONT_DIR, 'DejaVuSans.ttf'), bold: join(FONT_DIR, 'DejaVuSans-Bold.ttf') };
/** PDFKit's own font reader (fontkit), for which characters DejaVu has; it ships no types. */
const fontkit = require('fontkit') as { openSync(path: string): { hasGlyphForCodePoint(codePoint: number): boolean } };
let dejaVu: ReturnType<typeof fontkit.openSync> | undefined;

/** Whether DejaVu (regular and bold cover the same characters here) can show every character of `text`. */
function dejaVuShows(text: string): boolean {
  if (/^[\x20-\x7e]*$/.test(text)) return true;
  dejaVu ??= fontkit.openSync(FONTS.body);
  for (const char of text) {
    const code = char.codePointAt(0)!;
    // Line breaks, variation selectors and joiners are not drawn on their own.
    if (code < 0x20 || code === 0x200d || (code >= 0xfe00 && code <= 0xfe0f)) continue;
    if (!dejaVu.hasGlyphForCodePoint(code)) return false;
  }
  return true;
}

/** Combining marks kept on one character: enough for any script's accents, not for a pile over the lines around. */
const MAX_MARKS = 3;

/**
 * A user's text as the report prints it: composed (NFC), and a pile of combining marks on one character ("Zalgo"
 * text) cut to MAX_MARKS, so that it stays on its own line instead of covering the lines above and below.
 */
export function printable(text: string): string {
  return text.normalize('NFC').replace(new RegExp(`(\\p{M}{${MAX_MARKS}})\\p{M}+`, 'gu'), '$1');
}

const MARGIN = 50;
const THUMB = 72;
/** The defect and fix photos side by side (docs/design.md §22): larger than the other thumbnails, a caption under each. */
const STAGE_THUMB = 110;
const CAPTION_HEIGHT = 30;
/** A pin on a plan's page: a numbered circle, this radius (pt). */
const PIN_RADIUS = 7;
/** Bytes of finished PDF the document may hold while the reader is slower than the writer. */
const BUFFERED_LIMIT = 1024 * 1024;
const LONG_TEXT = 600;
/**
 * Longest stretch of writing between two yields to the event loop (ms). Per item would be fair but slow
 * under load (each turn of a busy loop serves every waiting request first); this bounds how long a report
 * holds up the cheap requests while letting it progress.
 */
const SLICE_MS = 10;

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * The punch list as an A4 PDF: a cover (the project, its progress and counters, who made the report and
 * when), one page per plan with items of the report on it (the sheet fitted to the page, each item a circle
 * numbered as in the list: docs/design.md §19), then the numbered items by section and checklist with their status, planning, participants, last answer
 * and its review, verdict and photo thumbnails. Every page has a footer with its number, the date and who
 * made it ("Page N": the total is unknown while streaming). Written item by item, yielding to the event
 * loop between items and waiting while the reader is behind, so nothing but the fonts and one page of
 * items is held in memory.
 */
export function pdfReport(heading: ReportHeading, pages: AsyncIterable<ReportRow[]>): Readable {
  const { project, language } = heading;
  const t = translator(language);
  /** A machine value (status, priority, verdict) in words: its message under `prefix`, else as it is. */
  const value = (prefix: 'report.status' | 'report.priority' | 'report.answer' | 'report.verdict', code: string | null) => {
    if (code === null) return '—';
    const key = `${prefix}.${code}`;
    return isMessageKey(key) ? t(key) : code;
  };
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    autoFirstPage: false,
    info: {
      Title: t('report.title', { project: project.name }),
      Author: heading.madeBy,
      Creator: 'Punchlist',
      CreationDate: heading.madeAt,
    },
  });
  doc.registerFont('body', FONTS.body);
  doc.registerFont('bold', FONTS.bold);
  doc.registerFont('fallback', fallbackFont());
  /** The style's DejaVu font when it shows all of `text`, else the fallback (which has no bold). */
  const fontFor = (style: 'body' | 'bold', text: string) => doc.font(dejaVuShows(text) ? style : 'fallback');
  const out = new PassThrough({ highWaterMark: 256 * 1024 });
  doc.pipe(out);
  const width = () => doc.page.width - 2 * MARGIN;
  const bottom = () => doc.page.height - MARGIN;
  const projectName = printable(project.name);
  const madeBy = printable(heading.madeBy);
  /**
   * Times in the reader's time zone (the Profile's setting; UTC when none): in English as the web shows them
   * (2026-03-18 10:00 GMT+9), in another language as it writes them (18 мар. 2026 г., 10:00 GMT+9).
   */
  const dateTime = (at: Date | string) => {
    const iso = typeof at === 'string' ? at : at.toISOString();
    const zoned = zonedTime(iso, heading.timeZone);
    if (language === 'en') return zoned;
    const [date = '', time = '', zone = ''] = zoned.split(' ');
    return `${formatDay(language, date)}, ${time} ${zone}`;
  };
  const day = (at: string) => {
    const local = zonedTime(at, heading.timeZone).slice(0, 10);
    return language === 'en' ? local : formatDay(language, local);
  };
  /** A calendar day (a deadline) as the language writes it; English as v1 does. */
  const calendarDay = (date: string | null) => (date === null ? '—' : language === 'en' ? date : formatDay(language, date));
  const made = t('report.made', { at: dateTime(heading.madeAt), name: madeBy });

  let pageNumber = 0;
  doc.on('pageAdded', () => {
    pageNumber++;
    const keep = doc.page.margins.bottom;
    // Written inside the bottom margin: lifted for the footer, or PDFKit would start another page.
    doc.page.margins.bottom = 0;
    const footer = t('report.page', { page: String(pageNumber), project: clip(projectName, 60), made });
    fontFor('body', footer)
      .fontSize(8)
      .fillColor('#555555')
      .text(footer, MARGIN, doc.page.height - MARGIN + 18, {
        width: width(),
        align: 'center',
        lineBreak: false,
      });
    doc.page.margins.bottom = keep;
    doc.fillColor('#000000');
    doc.x = MARGIN;
    doc.y = MARGIN;
  });

  function cover() {
    doc.addPage();
    doc.font('body').fontSize(11).fillColor('#555555').text(t('report.punchList')).fillColor('#000000').moveDown(0.5);
    fontFor('bold', projectName).fontSize(22).text(projectName).moveDown(0.5);
    const description = printable(clip(project.description, 2000));
    if (description) fontFor('body', description).fontSize(11).text(description).moveDown();
    const { progress, counters } = project;
    doc.font('body').fontSize(11);
    doc.text(t('report.deadline', { deadline: calendarDay(project.deadline) }));
    doc.text(t('report.projectVerdict', { verdict: value('report.verdict', project.verdict), archived: project.archived ? 'yes' : 'no' }));
    doc.text(t('report.progress', { percent: String(progress.percent), done: String(progress.done), total: progress.total }));
    const y = doc.y + 4;
    doc.rect(MARGIN, y, width(), 10).stroke('#888888');
    if (progress.percent > 0) doc.rect(MARGIN, y, (width() * progress.percent) / 100, 10).fill('#3a7d44');
    doc.fillColor('#000000');
    doc.x = MARGIN;
    doc.y = y + 20;
    const counts = (values: Record<string, number>) => Object.fromEntries(Object.entries(values).map(([k, v]) => [k, String(v)]));
    doc.text(t('report.counters', counts({ sections: counters.sections, checklists: counters.checklists, items: counters.items })));
    const { pending, in_progress, done, blocked } = counters;
    doc.text(t('report.statusCounters', counts({ pending, in_progress, done, blocked })));
    doc.moveDown();
    const filter = heading.filter.join(', ');
    const inReport = filter
      ? t('report.itemsInReportFiltered', { count: String(heading.items), filter })
      : t('report.itemsInReport', { count: String(heading.items) });
    fontFor('body', inReport).text(inReport);
    doc.font('body');
    doc.moveDown();
    const madeLine = t('report.madeCover', { at: dateTime(heading.madeAt), name: madeBy });
    fontFor('body', madeLine).text(madeLine);
  }

  /** A plan's page: its name, the sheet fitted below (a landscape page for a landscape sheet), the pins over it. */
  async function planPage(plan: ReportPlan) {
    const sheet = await plan.sheet();
    doc.addPage({ layout: sheet && sheet.width > sheet.height ? 'landscape' : 'portrait' });
    const title = t('report.plan', { name: printable(plan.name) });
    fontFor('bold', title).fontSize(14).text(title, MARGIN, MARGIN, { width: width() });
    const count = plan.pins.length;
    doc.font('body').fontSize(9).fillColor('#555555').text(t('report.planLead', { count }), {
      width: width(),
    });
    doc.fillColor('#000000');
    const top = doc.y + 8;
    if (!sheet) {
      doc.font('body').fontSize(11).text(t('report.unreadableSheet'), MARGIN, top, { width: width() });
      return;
    }
    const scale = Math.min(width() / sheet.width, (bottom() - top) / sheet.height);
    const w = sheet.width * scale;
    const h = sheet.height * scale;
    const left = MARGIN + (width() - w) / 2;
    doc.image(sheet.data, left, top, { width: w, height: h });
    doc.rect(left, top, w, h).lineWidth(0.5).stroke('#888888');
    // Numbers near the sheet's foot are written inside the bottom margin: lifted, or PDFKit would start another page.
    const keep = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc.font('bold').fontSize(7);
    for (const pin of plan.pins) {
      const cx = left + pin.x * w;
      const cy = top + pin.y * h;
      doc.circle(cx, cy, PIN_RADIUS).lineWidth(1).fillAndStroke('#c62828', '#ffffff');
      doc.fillColor('#ffffff').text(String(pin.number), cx - PIN_RADIUS * 2, cy - 3.5, {
        width: PIN_RADIUS * 4,
        align: 'center',
        lineBreak: false,
      });
    }
    doc.page.margins.bottom = keep;
    doc.fillColor('#000000').lineWidth(1);
  }

  let section: string | null = null;
  let checklist: string | null = null;

  function ensureSpace(height: number) {
    if (doc.y + height > bottom() && doc.y > MARGIN + 1) doc.addPage();
  }

  /**
   * The item's category and custom field values (docs/design.md §21), on one line: "Category: Electrical ·
   * Severity: high · Cost estimate: 1250"; null when it has neither.
   */
  function vocabularyLine(row: ReportRow): string | null {
    const parts = Object.entries(row.fields ?? {}).map(([name, value]) => `${name}: ${value}`);
    if (row.category) parts.unshift(message(heading.language ?? 'en', 'vocab.report.category', { category: row.category }));
    return parts.length ? printable(clip(parts.join(' · '), LONG_TEXT)) : null;
  }

  function item(row: ReportRow) {
    const title = `${row.number}.  #${row.id}  ${printable(row.text)}`;
    const answer = row.lastAnswer;
    const answerText = answer ? printable(clip(answer.text, LONG_TEXT)) : '';
    fontFor('bold', title).fontSize(10);
    let height = doc.heightOfString(title, { width: width() }) + 40;
    fontFor('body', answerText).fontSize(9);
    const vocabulary = vocabularyLine(row);
    if (row.location) height += 12;
    if (vocabulary) height += 12;
    if (answer) height += 14 + doc.heightOfString(answerText, { width: width() - 12 });
    if (row.thumbnails.length) height += THUMB + 8;
    if (row.stages.defect.length || row.stages.fix.length) height += STAGE_THUMB + CAPTION_HEIGHT + 24;
    if (section !== row.section) height += 40;
    ensureSpace(Math.min(height, bottom() - MARGIN));

    if (section !== row.section) {
      section = row.section;
      checklist = null;
      const name = printable(row.section);
      doc.moveDown(0.5);
      fontFor('bold', name).fontSize(14).text(name, MARGIN, doc.y, { width: width() });
    }
    if (checklist !== row.checklist) {
      checklist = row.checklist;
      const name = printable(row.checklist);
      doc.moveDown(0.3);
      fontFor('bold', name).fontSize(12).fillColor('#333333').text(name, MARGIN, doc.y, { width: width() });
      doc.fillColor('#000000');
    }
    doc.moveDown(0.4);
    fontFor('bold', title).fontSize(10).text(title, MARGIN, doc.y, { width: width() });
    doc.font('body').fontSize(9);
    doc.text(
      t('report.itemLine', {
        status: value('report.status', row.status),
        priority: value('report.priority', row.priority),
        deadline: calendarDay(row.deadline),
        answers: String(row.answers),
      }),
    );
    const participants = t('report.participants', { names: row.participants.length ? printable(row.participants.join('; ')) : '—' });
    fontFor('body', participants).text(participants);
    if (row.location) {
      const plan = t('report.plan', { name: printable(row.location.plan_name) });
      fontFor('body', plan).text(plan);
    }
    if (vocabulary) fontFor('body', vocabulary).text(vocabulary, MARGIN, doc.y, { width: width() });
    if (answer) {
      const review = answer.review
        ? t('report.reviewed', {
            status: value('report.answer', answer.review.status),
            name: answer.review.by ?? t('report.someone'),
            day: day(answer.review.at),
          })
        : t('report.notReviewed');
      const answered = printable(
        t('report.lastAnswer', {
          author: answer.author,
          day: day(answer.created_at),
          status: value('report.answer', answer.status),
          review,
        }),
      );
      fontFor('body', answered).text(answered);
      fontFor('body', answerText)
        .fillColor('#333333')
        .text(answerText, MARGIN + 12, doc.y, { width: width() - 12 });
      doc.fillColor('#000000');
      doc.x = MARGIN;
    }
    const verdictWord = value('report.verdict', row.verdict);
    const verdict = printable(
      row.reworkReason
        ? t('report.itemVerdictRework', { verdict: verdictWord, reason: clip(row.reworkReason, 200) })
        : t('report.itemVerdict', { verdict: verdictWord }),
    );
    fontFor('body', verdict).text(verdict, MARGIN, doc.y, {
      width: width(),
    });
    doc.font('body');
    stagePhotos(row);
    if (row.thumbnails.length) {
      if (doc.y + THUMB + 8 > bottom()) doc.addPage();
      const top = doc.y + 4;
      row.thumbnails.forEach((jpeg, i) => doc.image(jpeg, MARGIN + i * (THUMB + 6), top, { fit: [THUMB, THUMB] }));
      doc.x = MARGIN;
      doc.y = top + THUMB + 4;
      if (row.photoCount > row.thumbnails.length) doc.text(t('report.morePhotos', { count: row.photoCount - row.thumbnails.length }));
    }
  }

  /**
   * "Defect" on the left, "Fix" on the right (docs/design.md §22): each side its photos (the marked-up picture of a
   * photo in its place) with their captions under them.
   */
  function stagePhotos(row: ReportRow) {
    const { defect, fix } = row.stages;
    if (!defect.length && !fix.length) return;
    if (doc.y + STAGE_THUMB + CAPTION_HEIGHT + 24 > bottom()) doc.addPage();
    const half = (width() - 12) / 2;
    const top = doc.y + 4;
    const side = (title: string, photos: PrintedPhoto[], left: number) => {
      doc.font('bold').fontSize(9).text(title, left, top, { width: half, lineBreak: false });
      if (!photos.length)
        doc
          .font('body')
          .fillColor('#555555')
          .text(t('report.noneYet'), left, top + 14, { width: half })
          .fillColor('#000000');
      const each = Math.min(STAGE_THUMB, (half - 6 * (photos.length - 1)) / Math.max(1, photos.length));
      photos.forEach((photo, i) => {
        const x = left + i * (each + 6);
        doc.image(photo.jpeg, x, top + 14, { fit: [each, STAGE_THUMB] });
        const caption = printable(clip(`${photo.markedUp ? `${t('report.markedUp')} ` : ''}${photo.caption ?? ''}`.trim(), 90));
        if (caption)
          fontFor('body', caption)
            .fontSize(7.5)
            .text(caption, x, top + 16 + STAGE_THUMB, { width: each, height: CAPTION_HEIGHT, ellipsis: true });
      });
    };
    side(t('report.defect'), defect, MARGIN);
    side(t('report.fix'), fix, MARGIN + half + 12);
    doc.font('body').fontSize(9);
    doc.x = MARGIN;
    doc.y = top + 14 + STAGE_THUMB + CAPTION_HEIGHT + 4;
  }

  /** Waits while the document holds more than BUFFERED_LIMIT bytes the reader has not taken. */
  async function readerCaughtUp() {
    while (doc.readableLength > BUFFERED_LIMIT && !out.destroyed) {
      // 'drain' resumes the document; the timer covers a drain that happened just before we listened.
      let wake = () => {};
      const drained = new Promise<void>((resolve) => {
        wake = resolve;
        out.once('drain', wake);
        out.once('close', wake);
      });
      await Promise.race([drained, sleep(25)]);
      out.off('drain', wake).off('close', wake);
    }
  }

  async function render() {
    cover();
    if (heading.items === 0) doc.moveDown().text(t('report.noItems'));
    for (const plan of heading.plans) {
      if (out.destroyed) return;
      await planPage(plan);
      await readerCaughtUp();
    }
    let first = true;
    let sliceStart = performance.now();
    for await (const page of pages) {
      for (const row of page) {
        if (out.destroyed) return;
        if (first) doc.addPage();
        first = false;
        item(row);
        await readerCaughtUp();
        if (performance.now() - sliceStart >= SLICE_MS) {
          await nextTurn();
          sliceStart = performance.now();
        }
      }
    }
    doc.end();
  }

  render().catch((err: unknown) => out.destroy(err instanceof Error ? err : new Error(String(err))));
  return out;
}
