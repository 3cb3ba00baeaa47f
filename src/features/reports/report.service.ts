import type { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Clock } from '../../shared/clock.js';
import { type Language, storedLanguage } from '../../i18n/i18n.js';
import type { Actor } from '../../domain/policy.js';
import { concurrencyLimit } from '../../shared/concurrency-limit.js';
import type { ImageConverter } from '../../imaging/images.js';
import { sheetForPrint } from '../../imaging/plan-sheets.js';
import type { BlobStore } from '../../storage/blob-store.js';
import type { PlansService } from '../plans/plans.service.js';
import { describeFilter, type ItemFilter, type ItemRow, type WorklistsService } from '../worklists/worklists.service.js';
import { csvReport } from './report-csv.js';
import { pdfReport } from './report-pdf.js';
import type { ReportRepository } from './report.repository.js';
import type { PrintedPhoto, PrintedSheet, ReportHeading, ReportPlan, ReportRow } from './report-rows.js';
import { beforeAndAfter } from '../items/index.js';

export const REPORT_FORMATS = ['csv', 'pdf'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

const REPORT_CONTENT_TYPES: Record<ReportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  pdf: 'application/pdf',
};

/** The operator's view (`punchlist report` without --user): every part of the project, as an administrator sees it. */
export const WHOLE_PROJECT: Actor = { id: 0, role: 'admin' };

/** Items read, detailed and written per step: the report never holds more of them at once (a page ahead included). */
const REPORT_PAGE_SIZE = 100;
/** Photos printed per item (the rest are counted). */
const PHOTOS_PER_ITEM = 6;
const THUMBNAIL_PIXELS = 240;
/** Defect photos and fix photos printed side by side per item (each side; the rest are counted). */
const STAGE_PHOTOS_PER_SIDE = 2;
/**
 * Photos read and turned into thumbnails at once (the image converter decodes two at a time). A page asked
 * for all of its photos at once: 20–40 originals (1–2 MB each) waited in memory for their turn to decode,
 * 60–70 MB of buffers in the worker, which glibc's arenas then kept (docs/performance.md, "Reports and reads
 * in one thread").
 */
const PHOTOS_AT_ONCE = 2;

export interface ReportFile {
  filename: string;
  contentType: string;
  /** Produced as it is read, page after page of items (backpressure: nothing runs ahead of the reader by more than a page). */
  stream: Readable;
  items: number;
}

export interface ReportOptions {
  format: ReportFormat;
  filter: ItemFilter;
  /** Who the cover and the footers name. */
  madeBy: string;
  /** The reader's time zone (the web session's); absent: the actor's Profile setting, else UTC. */
  timeZone?: string | null;
  /**
   * The language of the PDF's words (the web session's, the CLI's `--language`); absent: the actor's Profile
   * setting, else English (v1: a token's user who chose none gets the English report as before).
   */
  language?: Language;
  /** Called after each page of items is written: how many are done, of how many. */
  onProgress?: (done: number, total: number) => void;
}

/**
 * A project's punch list as CSV or PDF: the items of the project page (its filter) that the actor can
 * see, through the same work-list and access checks as the page. The access check runs before this
 * returns, so a project the actor cannot see is a 404 before the first byte; the rest streams.
 */
export function createReportsService(deps: {
  worklists: WorklistsService;
  repo: ReportRepository;
  /** The plans' sheets (the PDF's plan pages), read as the report's reader. */
  plans: Pick<PlansService, 'openSheet'>;
  blobs: BlobStore;
  images: ImageConverter;
  clock: Clock;
  urls: { baseUrl: string };
}) {
  const { worklists, repo, plans, blobs, images, clock, urls } = deps;
  const inPhotoSlot = concurrencyLimit(PHOTOS_AT_ONCE);

  async function read(key: string): Promise<Buffer | null> {
    const blob = await blobs.get(key);
    if (!blob) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of blob.stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  /**
   * The JPEG thumbnail of a stored photo, made once and kept beside it under `thumbnails/` (the bytes under
   * an attachment's key never change): decoding the photos is most of a PDF's work, and a punch list is
   * printed again and again.
   */
  async function thumbnailOf(path: string): Promise<Buffer | null> {
    const key = `thumbnails/${path.replace(/\.webp$/, '')}-${THUMBNAIL_PIXELS}.jpg`;
    try {
      const kept = await read(key);
      if (kept) return kept;
      return await inPhotoSlot(async () => {
        const photo = await read(path);
        if (!photo) return null;
        const thumbnail = await images.thumbnail(photo, THUMBNAIL_PIXELS);
        await blobs.put(key, thumbnail, 'image/jpeg');
        return thumbnail;
      });
    } catch {
      // A photo that cannot be read is left out of the print, not a reason to fail the whole report.
      return null;
    }
  }

  /** A plan's current sheet as JPEG; null when it cannot be read (the page says so rather than failing the report). */
  async function sheetOf(actor: Actor, planId: number): Promise<PrintedSheet | null> {
    try {
      const sheet = await plans.openSheet(actor, planId);
      const chunks: Buffer[] = [];
      for await (const chunk of sheet.stream) chunks.push(chunk as Buffer);
      return await sheetForPrint(Buffer.concat(chunks));
    } catch {
      return null;
    }
  }

  /**
   * The plans with items of the report on them, in the project's order, each with its pins numbered as the items
   * in the list. Only the report's rows (its filter, the reader's visibility) are pinned.
   */
  async function plansOf(actor: Actor, projectId: number, rows: ItemRow[]): Promise<ReportPlan[]> {
    const pins = new Map<number, ReportPlan['pins']>();
    rows.forEach(({ item }, index) => {
      if (!item.location) return;
      const onPlan = pins.get(item.location.plan_id) ?? [];
      onPlan.push({ number: index + 1, x: item.location.x, y: item.location.y });
      pins.set(item.location.plan_id, onPlan);
    });
    if (pins.size === 0) return [];
    return (await repo.plansOf(projectId))
      .filter((plan) => pins.has(plan.id))
      .map((plan) => ({ name: plan.name, pins: pins.get(plan.id)!, sheet: () => sheetOf(actor, plan.id) }));
  }

  async function detailed(rows: ItemRow[], first: number, withThumbnails: boolean): Promise<ReportRow[]> {
    const d = await repo.details(rows.map((r) => r.item.id));
    const verdicts = new Map(d.items.map((i) => [i.id, i]));
    const group = <T extends { item_id: number }>(list: T[]) => {
      const by = new Map<number, T[]>();
      for (const entry of list) {
        const entries = by.get(entry.item_id);
        if (entries) entries.push(entry);
        else by.set(entry.item_id, [entry]);
      }
      return by;
    };
    const participants = group(d.participants);
    const answers = group(d.answers);
    const photos = group(d.photos);
    const reviews = new Map(d.reviews.map((r) => [r.answer_id, r]));
    return Promise.all(
      rows.map(async ({ section, checklist, item }, index) => {
        const itemAnswers = answers.get(item.id) ?? [];
        const last = itemAnswers.at(-1);
        const review = last ? reviews.get(last.id) : undefined;
        const itemPhotos = photos.get(item.id) ?? [];
        const { defect, fix } = beforeAndAfter(itemPhotos);
        const staged = new Set([...defect, ...fix].flatMap((p) => [p.id, p.annotates ?? p.id]));
        const others = itemPhotos.filter((p) => !staged.has(p.id) && !staged.has(p.annotates ?? p.id));
        const printed = async (list: typeof itemPhotos) =>
          withThumbnails
            ? (
                await Promise.all(
                  list.slice(0, STAGE_PHOTOS_PER_SIDE).map(async (p) => {
                    const jpeg = await thumbnailOf(p.path);
                    return jpeg && { jpeg, caption: p.caption, markedUp: p.annotates !== null };
                  }),
                )
              ).filter((p): p is PrintedPhoto => p !== null)
            : [];
        const stages = { defect: await printed(defect), fix: await printed(fix) };
        const thumbnails = withThumbnails ? await Promise.all(others.slice(0, PHOTOS_PER_ITEM).map((p) => thumbnailOf(p.path))) : [];
        return {
          number: first + index + 1,
          id: item.id,
          section: section.name,
          checklist: checklist.name,
          text: item.text,
          status: item.status,
          priority: item.priority,
          deadline: item.deadline,
          participants: (participants.get(item.id) ?? []).map((p) => p.name),
          answers: itemAnswers.length,
          lastAnswer: last
            ? {
                text: last.text,
                status: last.status,
                author: last.author_name,
                created_at: last.created_at,
                review: review ? { status: review.to_status, by: review.reviewer_name, at: review.at } : null,
              }
            : null,
          verdict: verdicts.get(item.id)?.verdict ?? null,
          reworkReason: verdicts.get(item.id)?.rework_reason ?? null,
          url: `${urls.baseUrl}/items/${item.id}`,
          photoCount: itemPhotos.length,
          thumbnails: thumbnails.filter((t): t is Buffer => t !== null),
          stages,
          location: item.location,
          category: item.category,
          fields: item.fields,
          company: item.responsible_company,
          ballInCourt: item.ball_in_court,
        };
      }),
    );
  }

  /** The rows page after page; the next page is read (and its thumbnails made) while the current one is written. */
  async function* pagesOf(rows: ItemRow[], format: ReportFormat, onProgress?: ReportOptions['onProgress']): AsyncGenerator<ReportRow[]> {
    const load = (start: number) => detailed(rows.slice(start, start + REPORT_PAGE_SIZE), start, format === 'pdf');
    let next = rows.length > 0 ? load(0) : null;
    for (let start = 0; next; start += REPORT_PAGE_SIZE) {
      const current = await next;
      const following = start + REPORT_PAGE_SIZE;
      next = following < rows.length ? load(following) : null;
      // Errors of the page read ahead surface when it is awaited; until then they must not count as unhandled.
      next?.catch(() => undefined);
      yield current;
      onProgress?.(Math.min(following, rows.length), rows.length);
      // The reads are synchronous on SQLite: without this turn, a CSV would run to its end in one go.
      await nextTurn();
    }
  }

  /** The name of the company a filter names, as its items carry it (a company pack's cover). */
  const companyName = (rows: readonly { item: { responsible_company: { id: number; name: string } | null } }[], id?: number | null) =>
    id == null ? undefined : rows.find((r) => r.item.responsible_company?.id === id)?.item.responsible_company?.name;

  return {
    async openReport(actor: Actor, projectId: number, options: ReportOptions): Promise<ReportFile> {
      const { tree, rows } = await worklists.filteredItems(actor, projectId, options.filter);
      const madeAt = clock.now();
      const language = options.language ?? (actor.id > 0 ? storedLanguage(await repo.languageOf(actor.id)) : 'en');
      const heading: ReportHeading = {
        project: tree.project,
        filter: describeFilter(options.filter, language, { company: companyName(rows, options.filter.company) }),
        items: rows.length,
        madeBy: options.madeBy,
        madeAt,
        timeZone: options.timeZone !== undefined ? options.timeZone : actor.id > 0 ? await repo.timeZoneOf(actor.id) : null,
        plans: options.format === 'pdf' ? await plansOf(actor, projectId, rows) : [],
        language,
      };
      const pages = pagesOf(rows, options.format, options.onProgress);
      const stream = options.format === 'csv' ? csvReport(pages, await repo.vocabularyOf(projectId)) : pdfReport(heading, pages);
      return {
        filename: `punchlist-project-${projectId}-${madeAt.toISOString().slice(0, 10)}.${options.format}`,
        contentType: REPORT_CONTENT_TYPES[options.format],
        stream,
        items: rows.length,
      };
    },
  };
}

export type ReportsService = ReturnType<typeof createReportsService>;
