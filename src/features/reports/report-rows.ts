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
  /** JPEG thumbnails of the first photos (PDF only; empty for CSV). */
  thumbnails: Buffer[];
}

/** What the cover says, and who and what the report is for. */
export interface ReportHeading {
  project: ProjectCard;
  /** The filter in words (empty when the whole visible project is listed). */
  filter: string[];
  items: number;
  madeBy: string;
  madeAt: Date;
}
