import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { PassThrough } from 'node:stream';
import PDFDocument from 'pdfkit';
import { fallbackFont } from './fallback-font.js';
import type { ReportHeading } from './report-rows.js';
import { zonedTime } from '../../domain/time-zones.js';
import { formatDay, isMessageKey, translator } from '../../i18n/i18n.js';

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

export const MARGIN = 50;
export const THUMB = 72;
/** The defect and fix photos side by side (docs/design.md §22): larger than the other thumbnails, a caption under each. */
export const STAGE_THUMB = 110;
export const CAPTION_HEIGHT = 30;
/** A pin on a plan's page: a numbered circle, this radius (pt). */
export const PIN_RADIUS = 7;
/** Bytes of finished PDF the document may hold while the reader is slower than the writer. */
export const BUFFERED_LIMIT = 1024 * 1024;
export const LONG_TEXT = 600;
/**
 * Longest stretch of writing between two yields to the event loop (ms). Per item would be fair but slow
 * under load (each turn of a busy loop serves every waiting request first); this bounds how long a report
 * holds up the cheap requests while letting it progress.
 */
export const SLICE_MS = 10;

export const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

type ValuePrefix = 'report.status' | 'report.priority' | 'report.answer' | 'report.verdict';

/** A report being written: the document, where it goes, and the words and dates of the reader's language and zone. */
export interface Printer {
  doc: PDFKit.PDFDocument;
  out: PassThrough;
  heading: ReportHeading;
  t: ReturnType<typeof translator>;
  /** A machine value (status, priority, verdict) in words: its message under `prefix`, else as it is. */
  value: (prefix: ValuePrefix, code: string | null) => string;
  /** The style's DejaVu font when it shows all of `text`, else the fallback (which has no bold). */
  fontFor: (style: 'body' | 'bold', text: string) => PDFKit.PDFDocument;
  width: () => number;
  bottom: () => number;
  dateTime: (at: Date | string) => string;
  day: (at: string) => string;
  calendarDay: (date: string | null) => string;
  projectName: string;
  madeBy: string;
  /** The section and checklist the last item was printed under: a new one prints its heading. */
  place: { section: string | null; checklist: string | null };
}

/** The document of a report, its fonts registered, piped into `out`. */
export function reportDocument(heading: ReportHeading, t: ReturnType<typeof translator>): PDFKit.PDFDocument {
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    autoFirstPage: false,
    info: {
      Title: t('report.title', { project: heading.project.name }),
      Author: heading.madeBy,
      Creator: 'Punchlist',
      CreationDate: heading.madeAt,
    },
  });
  doc.registerFont('body', FONTS.body);
  doc.registerFont('bold', FONTS.bold);
  doc.registerFont('fallback', fallbackFont());
  return doc;
}

export function createPrinter(heading: ReportHeading, out: PassThrough): Printer {
  const { language } = heading;
  const t = translator(language);
  const doc = reportDocument(heading, t);
  doc.pipe(out);
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
  return {
    doc,
    out,
    heading,
    t,
    value: (prefix, code) => {
      if (code === null) return '—';
      const key = `${prefix}.${code}`;
      return isMessageKey(key) ? t(key) : code;
    },
    fontFor: (style, text) => doc.font(dejaVuShows(text) ? style : 'fallback'),
    width: () => doc.page.width - 2 * MARGIN,
    bottom: () => doc.page.height - MARGIN,
    dateTime,
    day: (at) => {
      const local = zonedTime(at, heading.timeZone).slice(0, 10);
      return language === 'en' ? local : formatDay(language, local);
    },
    /** A calendar day (a deadline) as the language writes it; English as v1 does. */
    calendarDay: (date) => (date === null ? '—' : language === 'en' ? date : formatDay(language, date)),
    projectName: printable(heading.project.name),
    madeBy: printable(heading.madeBy),
    place: { section: null, checklist: null },
  };
}
