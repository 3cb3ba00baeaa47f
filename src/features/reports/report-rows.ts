import type { BallInCourt } from '../../domain/ball-in-court.js';
import type { Language } from '../../i18n/i18n.js';
import type { ProjectCard } from '../projects/projects.service.js';

/** What a report holds, as report.service.ts reads it and report-csv.ts and report-pdf.ts write it. */

export interface ReportAnswer {
  text: string;
  status: string;
  author: string;
  created_at: string;
  /** The last review of that answer, if any. */
  review: { status: string; by: string | null; at: string } | null;
}

/** One item as the report shows it; values as v1 writes them (statuses, dates), null for none. */
export interface ReportRow {
  /** Its number in the report's list (1, 2, …): the PDF's entry and its pin on the plan's page carry it. */
  number: number;
  id: number;
  section: string;
  checklist: string;
  text: string;
  status: string;
  priority: string;
  deadline: string | null;
  participants: string[];
  answers: number;
  lastAnswer: ReportAnswer | null;
  verdict: string | null;
  reworkReason: string | null;
  url: string;
  photoCount: number;
  /** JPEG thumbnails of the first photos of no stage (PDF only; empty for CSV). */
  thumbnails: Buffer[];
  /** The defect and fix photos side by side, with their captions (docs/design.md §22; PDF only; empty for CSV). */
  stages: { defect: PrintedPhoto[]; fix: PrintedPhoto[] };
  /** Its place on a plan (docs/design.md §19): fractions of the sheet from its top left; null when on none. */
  location: { plan_id: number; plan_name: string; x: number; y: number } | null;
  /** Its category's name and custom field values by field name (docs/design.md §21). */
  category?: string | null;
  fields?: Record<string, string>;
  /** docs/design.md §20: the company that holds it (null: none) and whose move it is. */
  company: { id: number; name: string } | null;
  ballInCourt: BallInCourt;
}

/** A photo ready to print: a JPEG thumbnail and its caption. */
export interface PrintedPhoto {
  jpeg: Buffer;
  caption: string | null;
  markedUp: boolean;
}

/** A sheet ready to print: JPEG, with its size in pixels. */
export interface PrintedSheet {
  data: Buffer;
  width: number;
  height: number;
}

/** A plan with at least one item of the report on it: its page in the PDF, after the cover. */
export interface ReportPlan {
  name: string;
  /** The items of the report on it, by their number in the list. */
  pins: { number: number; x: number; y: number }[];
  /** Its current sheet, read when its page is written; null when it cannot be read (the page says so). */
  sheet: () => Promise<PrintedSheet | null>;
}

/** What the cover says, and who and what the report is for. */
export interface ReportHeading {
  project: ProjectCard;
  /** The filter in words (empty when the whole visible project is listed). */
  filter: string[];
  items: number;
  madeBy: string;
  madeAt: Date;
  /** The reader's time zone (IANA name); null: UTC. The report's times are written in it. */
  timeZone: string | null;
  /** The language of the PDF's words (docs/decisions.md, "Languages"); the CSV's headers and values never change. */
  language: Language;
  /** The plans with items of the report on them, in the project's order (PDF only; empty for CSV). */
  plans: ReportPlan[];
}
