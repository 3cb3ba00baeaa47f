import type { TiledSheet } from '../../imaging/plan-sheets.js';
import type { FieldReason } from '../../shared/errors.js';

/** What a plan's rendering process is asked (plan-renderer.ts → plan-render-process.ts, as its first message). */
export type RenderTask =
  /** What the file is: a PDF (its pages, each opened) or an image; refused (422) when it is not a plan. */
  | { kind: 'inspect'; path: string; maxPages: number }
  /** Tiles of each page asked for (1-based) into `outDir/p<page>/`. */
  | { kind: 'render'; path: string; source: PlanSource; pages: number[]; outDir: string };

/** What a plan is made from. */
export type PlanSource = 'pdf' | 'png' | 'jpeg' | 'webp';

export interface Inspection {
  source: PlanSource;
  pages: number;
}

/** The process's messages: a page done (render), then the result, or an error (a 422 keeps its status, field and reason). */
export type RenderMessage =
  | { type: 'progress'; page: number; sheet: TiledSheet }
  | { type: 'result'; value: Inspection | TiledSheet[] }
  | { type: 'error'; error: { message: string; status?: number; code?: string; field?: string; reason?: FieldReason } };
