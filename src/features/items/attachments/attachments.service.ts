import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { Clock } from '../../../shared/clock.js';
import type { Actor } from '../../../domain/policy.js';
import { MAX_CAPTION_LENGTH, PHOTO_STAGES, type EventType, type PhotoStage } from '../../../domain/values.js';
import { invalidData, notFound, type FieldError } from '../../../shared/errors.js';
import { fieldError, invalidField } from '../../../i18n/reasons.js';
import type { MessageKey } from '../../../i18n/i18n.js';
import { type ConvertedImage, type ImageConverter, type ImageProblem, ImageRejected } from '../../../imaging/images.js';
import type { BlobStore } from '../../../storage/index.js';
import { attachmentView, type AttachmentView } from '../item-views.js';
import type { ItemWriter } from '../item-writer.js';
import type { AuditEntryBuilder } from '../../write-path/write-path.js';
import type { WriteRepositories } from '../write-repositories.js';
import type { ItemsService } from '../items.service.js';
import type { AnswersRepository } from '../answers/answers.repository.js';
import type { AttachmentsRepository } from './attachments.repository.js';
import type { IncomingImage } from '../../../http/multipart.js';

export type { IncomingImage };

export interface ImageOwner {
  itemId: number;
  /** null: images of the item itself. */
  answerId: number | null;
  actorId: number;
}

/**
 * What a photo says besides its pixels (docs/design.md §22). `stage` undefined: by when and where it is added
 * (`defectOrFix`); null: none. `annotates`: the photo a marked-up picture was drawn on.
 */
export interface PhotoDetails {
  stage?: PhotoStage | null;
  caption?: string | null;
  annotates?: number;
  /** A markup's key from the markup view: the same key again stores nothing more. */
  markupKey?: string;
}

/**
 * A photo form's "Stage" and "Caption" (web and v1 alike): stage `defect`, `fix`, `none`, or empty/absent for the
 * default; caption plain text, trimmed, at most 200 characters (empty: none). A bad value → 422 naming its field.
 */
export function photoDetailsOf(fields: { stage?: string | null; caption?: string | null }): PhotoDetails {
  const details: PhotoDetails = {};
  const stage = fields.stage?.trim() ?? '';
  if (stage === 'none') details.stage = null;
  else if ((PHOTO_STAGES as readonly string[]).includes(stage)) details.stage = stage as PhotoStage;
  else if (stage !== '') throw invalidField('stage', 'reason.chooseOneOfOrNone', { values: PHOTO_STAGES.join(', ') });
  if (fields.caption != null) details.caption = captionOf(fields.caption);
  return details;
}

/** Plain text, trimmed, line breaks and control characters as spaces; empty: none; over 200 characters → 422. */
export function captionOf(value: string): string | null {
  const caption = value.replace(UNDISPLAYABLE, ' ').replace(/\s+/g, ' ').trim();
  if (Array.from(caption).length > MAX_CAPTION_LENGTH) {
    throw invalidField('caption', 'reason.atMost', { max: MAX_CAPTION_LENGTH });
  }
  return caption === '' ? null : caption;
}

/** A markup's key, as an idempotency key: 1–255 printable ASCII characters. */
const MARKUP_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The stage a photo gets when none is chosen (docs/design.md §22): `fix` with an answer or while the item is in
 * progress or done, `defect` while it is pending (raised with it, or added before work started), none otherwise.
 */
function defectOrFix(answerId: number | null, itemStatus: string | undefined): PhotoStage | null {
  if (answerId !== null || itemStatus === 'in_progress' || itemStatus === 'done') return 'fix';
  return itemStatus === 'pending' ? 'defect' : null;
}

/** Checked and converted images, ready to be stored by an item write (see `staged` below). */
export interface PreparedImages {
  put(prefix: string): Promise<void>;
  insert(repos: WriteRepositories, owner: ImageOwner, now: string): Promise<AttachmentView[]>;
  discard(): Promise<void>;
}

const PROBLEM_REASONS: Record<ImageProblem | 'oversized', MessageKey> = {
  not_an_image: 'reason.photo.notAnImage',
  unsupported_format: 'reason.photo.unsupported',
  too_small: 'reason.photo.tooSmall',
  too_many_pixels: 'reason.photo.tooManyPixels',
  corrupt: 'reason.photo.corrupt',
  oversized: 'reason.photo.oversized',
};

/**
 * What a display name may not contain: control characters (C0, DEL and C1, which holds U+0085, a line
 * break to some readers), line and paragraph separators, lone surrogates (not encodable as UTF-8), and the
 * bidirectional controls that make `photo<U+202E>gpj.exe` read as `photoexe.jpg`.
 */
const UNDISPLAYABLE = /[\p{Cc}\p{Zl}\p{Zp}\p{Cs}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

export const MAX_DISPLAY_NAME = 255;

/**
 * The name as sent, for display only: never a path (the part after the last `/` or `\`, never `.` or
 * `..`), none of the characters above, at most 255 code points. The storage key never derives from it.
 */
export function displayName(name: string): string {
  const base = (name.split(/[\\/]/).pop() ?? '').replace(UNDISPLAYABLE, '').trim();
  const clean = Array.from(base).slice(0, MAX_DISPLAY_NAME).join('').trim();
  return clean === '' || /^\.+$/.test(clean) ? 'image' : clean;
}

/** What the photo commands need: the rows, the bytes, the image converter, and the item they belong to. */
export interface AttachmentsDeps {
  repo: AttachmentsRepository;
  answers: AnswersRepository;
  blobs: BlobStore;
  images: ImageConverter;
  items: ItemsService;
  writer: ItemWriter;
  clock: Clock;
  urls: { baseUrl: string };
}

/** The photo commands and reads of an item and its answers, each a named function below given these deps. */
export function createAttachmentsService(deps: AttachmentsDeps) {
  return {
    prepare: prepare.bind(null, deps),
    attachToItem: attachToItem.bind(null, deps),
    photoOfItem: photoOfItem.bind(null, deps),
    attachToAnswer: attachToAnswer.bind(null, deps),
    markUp: markUp.bind(null, deps),
    describePhoto: describePhoto.bind(null, deps),
    openDownload: openDownload.bind(null, deps),
  };
}

/** Every file is checked and converted before anything is stored: one bad file refuses them all. */
async function convertAll({ images }: AttachmentsDeps, files: IncomingImage[]): Promise<ConvertedImage[]> {
  const problems: FieldError[] = [];
  files.forEach((f, i) => {
    if (f.oversized) problems.push(fieldError(`attachments[${i}]`, PROBLEM_REASONS.oversized));
  });
  if (problems.length) throw invalidData(problems);
  const out: ConvertedImage[] = [];
  // One file in memory at a time keeps a 10 × 20 MiB request bounded.
  for (const [i, file] of files.entries()) {
    try {
      out.push(await images.toWebp(await readFile(file.path)));
    } catch (err) {
      if (!(err instanceof ImageRejected)) throw err;
      throw invalidData([fieldError(`attachments[${i}]`, PROBLEM_REASONS[err.problem])]);
    }
  }
  return out;
}

/**
 * Converted images on their way into storage: `put` writes the blobs, `insert` adds their rows inside the
 * caller's item write (putting the blobs first if that has not happened), `discard` removes the blobs again
 * when the write fails, so nothing is left half-done.
 */
function staged(
  { blobs, urls }: AttachmentsDeps,
  files: IncomingImage[],
  converted: ConvertedImage[],
  details: PhotoDetails,
): PreparedImages {
  let keys: string[] = [];
  const put = async (prefix: string) => {
    keys = converted.map(() => `${prefix}/${randomUUID()}.webp`);
    await Promise.all(converted.map((image, i) => blobs.put(keys[i]!, image.data, 'image/webp')));
  };
  return {
    put,
    async insert(repos, owner, now) {
      if (keys.length === 0) await put(owner.answerId === null ? `items/${owner.itemId}` : `answers/${owner.answerId}`);
      const stage =
        details.stage !== undefined
          ? details.stage
          : defectOrFix(owner.answerId, owner.answerId === null ? (await repos.items.currentStatus(owner.itemId))?.status : undefined);
      const rows = await repos.attachments.insertMany(
        converted.map((image, i) => ({
          item_id: owner.itemId,
          answer_id: owner.answerId,
          original_name: displayName(files[i]!.originalName),
          mime_type: 'image/webp',
          path: keys[i]!,
          size: image.size,
          width: image.width,
          height: image.height,
          uploaded_by: owner.actorId,
          created_at: now,
          annotates: details.annotates ?? null,
          stage,
          caption: details.caption ?? null,
          markup_key: details.markupKey ?? null,
        })),
      );
      // Multi-row RETURNING order is not guaranteed: answer in upload order.
      return keys.map((key) =>
        attachmentView(
          urls.baseUrl,
          rows.find((row) => row.path === key)!,
        ),
      );
    },
    async discard() {
      await Promise.allSettled(keys.map((key) => blobs.delete(key)));
    },
  };
}

/**
 * Blobs first (outside the transaction, which stays short), then rows, touching the item; `finish` does
 * what else the write holds and names its event.
 */
async function store(
  { writer, clock }: AttachmentsDeps,
  actor: Actor,
  owner: ImageOwner,
  images: PreparedImages,
  buildAudit: AuditEntryBuilder | undefined,
  finish: (repos: WriteRepositories, now: string, views: AttachmentView[]) => Promise<[EventType, unknown]>,
): Promise<AttachmentView[]> {
  try {
    await images.put(owner.answerId === null ? `items/${owner.itemId}` : `answers/${owner.answerId}`);
    return await writer.write({ itemId: owner.itemId, actor, audit: buildAudit }, async (repos, emit) => {
      const now = clock.now().toISOString();
      const views = await images.insert(repos, owner, now);
      await repos.items.touch(owner.itemId, now);
      emit(...(await finish(repos, now, views)));
      return views;
    });
  } catch (err) {
    await images.discard();
    throw err;
  }
}

/** Checks and converts every file first: one bad file refuses them all (422) and nothing is stored. */
async function prepare(deps: AttachmentsDeps, files: IncomingImage[], details: PhotoDetails = {}): Promise<PreparedImages> {
  return staged(deps, files, await convertAll(deps, files), details);
}

/** A photo the actor can see (its item's or its answer's), or 404 as for a missing id. */
async function visiblePhoto({ repo, items }: AttachmentsDeps, actor: Actor, attachmentId: number) {
  const photo = await repo.findPhoto(attachmentId);
  if (!photo) throw notFound('The photo');
  try {
    await items.access(actor, photo.item_id);
  } catch {
    throw notFound('The photo');
  }
  return photo;
}

async function attachToItem(
  deps: AttachmentsDeps,
  actor: Actor,
  itemId: number,
  files: IncomingImage[],
  buildAudit?: AuditEntryBuilder,
  details: PhotoDetails = {},
) {
  await deps.items.authorize(actor, itemId, 'item.materials');
  const attachments = await store(
    deps,
    actor,
    { itemId, answerId: null, actorId: actor.id },
    await prepare(deps, files, details),
    buildAudit,
    async (_repos, _now, views) => ['item.attachments_added', { attachments: views }],
  );
  return { attachments };
}

/** The photo, when it is one of this item's or its answers' and the actor sees it; 404 otherwise. */
async function photoOfItem(deps: AttachmentsDeps, actor: Actor, attachmentId: number, itemId: number) {
  const photo = await visiblePhoto(deps, actor, attachmentId);
  if (photo.item_id !== itemId) throw notFound('The photo');
  return photo;
}

/** Adds images to an answer; an approved or rejected answer goes back to `pending` for re-review. */
async function attachToAnswer(
  deps: AttachmentsDeps,
  actor: Actor,
  answerId: number,
  files: IncomingImage[],
  buildAudit?: AuditEntryBuilder,
  details: PhotoDetails = {},
) {
  const { answers, items } = deps;
  const answer = await answers.findOwner(answerId);
  if (!answer) throw notFound('The answer');
  try {
    await items.access(actor, answer.item_id);
  } catch {
    throw notFound('The answer');
  }
  await items.authorize(actor, answer.item_id, 'answer.images', { answerAuthorId: answer.author_id });
  const images = await prepare(deps, files, details);
  let statusReset = false;
  let answerStatus = 'pending';
  const owner = { itemId: answer.item_id, answerId, actorId: actor.id };
  const attachments = await store(deps, actor, owner, images, buildAudit, async (repos, now, views) => {
    // Read inside the transaction: a review landing meanwhile must not be lost or double-reset.
    const current = await repos.answers.state(answerId);
    answerStatus = current.status;
    if (current.status === 'approved' || current.status === 'rejected') {
      statusReset = true;
      answerStatus = 'pending';
      await repos.answers.changeStatus({
        answer_id: answerId,
        from_status: current.status,
        to_status: 'pending',
        reason: 'attachments_added',
        user_id: actor.id,
        at: now,
      });
    }
    return [
      'answer.attachments_added',
      { answer_id: answerId, attachments: views, status_reset: statusReset, answer_status: answerStatus },
    ];
  });
  return { attachments, status_reset: statusReset, answer_status: answerStatus };
}

/**
 * "Save markup" (docs/design.md §22): the picture drawn in the browser on a photo, checked like any upload
 * (§6), stored as a new photo beside it with `annotates` = the photo as taken (a markup of a markup points
 * at the same original), keeping its stage and caption unless others are given. It is added to the photo's
 * item or answer exactly as an upload would be, under the same right (403 for a user who sees the photo
 * but may not add one there).
 */
async function markUp(
  deps: AttachmentsDeps,
  actor: Actor,
  attachmentId: number,
  file: IncomingImage,
  details: PhotoDetails,
  buildAudit?: AuditEntryBuilder,
) {
  const photo = await visiblePhoto(deps, actor, attachmentId);
  const original = photo.annotates ?? photo.id;
  if (details.markupKey !== undefined) {
    if (!MARKUP_KEY.test(details.markupKey)) throw invalidField('markup_key', 'reason.markupKey');
    const saved = await deps.repo.findMarkup(actor.id, details.markupKey);
    if (saved && saved.annotates !== original) throw invalidField('markup_key', 'reason.markupKeyUsed');
    // Saved already (a double tap, the outbox resending): that one, nothing more stored.
    if (saved) return { itemId: saved.item_id, attachment: attachmentView(deps.urls.baseUrl, saved), replayed: true };
  }
  const own: PhotoDetails = {
    markupKey: details.markupKey,
    annotates: original,
    stage: details.stage !== undefined ? details.stage : ((photo.stage as PhotoStage | null) ?? null),
    caption: details.caption !== undefined ? details.caption : photo.caption,
  };
  const { attachments } =
    photo.answer_id === null
      ? await attachToItem(deps, actor, photo.item_id, [file], buildAudit, own)
      : await attachToAnswer(deps, actor, photo.answer_id, [file], buildAudit, own);
  return { itemId: photo.item_id, attachment: attachments[0]!, replayed: false };
}

/**
 * A photo's stage and caption, changed by its uploader or a manager (`photo.describe`); the same values again
 * change nothing (no event). Event `attachment.updated`: the photo and `changes: {field: {from, to}}`.
 */
async function describePhoto(
  deps: AttachmentsDeps,
  actor: Actor,
  attachmentId: number,
  input: { stage: PhotoStage | null; caption: string | null },
  buildAudit?: AuditEntryBuilder,
) {
  const { writer, clock, urls } = deps;
  const photo = await visiblePhoto(deps, actor, attachmentId);
  return writer.write(
    {
      itemId: photo.item_id,
      actor,
      audit: buildAudit,
      action: 'photo.describe',
      extra: { photoUploaderId: photo.uploaded_by },
    },
    async (repos, emit) => {
      const before = await repos.attachments.photo(attachmentId);
      const changes: Record<string, { from: string | null; to: string | null }> = {};
      if (before.stage !== input.stage) changes.stage = { from: before.stage, to: input.stage };
      if (before.caption !== input.caption) changes.caption = { from: before.caption, to: input.caption };
      if (Object.keys(changes).length === 0) return { attachment: attachmentView(urls.baseUrl, before), changed: false };
      await repos.attachments.describe(attachmentId, input);
      const now = clock.now().toISOString();
      await repos.items.touch(photo.item_id, now);
      const attachment = attachmentView(urls.baseUrl, { ...before, ...input });
      emit('attachment.updated', { attachment, changes });
      return { attachment, changed: true };
    },
  );
}

/**
 * An attachment's bytes for whoever may see its item; 404 otherwise (same as a missing id). `ifNoneMatch`: the
 * request's header; when it names the attachment's tag, the answer is "not modified" (no bytes read), and only
 * after the access check, so a 304 never tells who may not see it that the attachment exists.
 */
async function openDownload(
  { repo, items, blobs }: AttachmentsDeps,
  actor: Actor,
  owner: 'item' | 'answer',
  attachmentId: number,
  ifNoneMatch?: string,
): Promise<{ etag: string; notModified: true } | { etag: string; notModified: false; stream: Readable; size: number }> {
  const row = await repo.findForDownload(attachmentId);
  if (!row || (owner === 'item') !== (row.answer_id === null)) throw notFound('The attachment');
  try {
    await items.access(actor, row.item_id);
  } catch {
    throw notFound('The attachment');
  }
  const etag = `"${row.path.split('/').pop()?.replace('.webp', '')}"`;
  if (ifNoneMatch !== undefined && matchesEtag(ifNoneMatch, etag)) return { etag, notModified: true };
  const blob = await blobs.get(row.path);
  if (!blob) throw notFound('The attachment');
  return { etag, notModified: false, stream: blob.stream, size: blob.size };
}

/** If-None-Match (RFC 9110 §13.1.2): `*` or a list of tags, compared weakly. */
function matchesEtag(header: string, etag: string): boolean {
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}

export type AttachmentsService = ReturnType<typeof createAttachmentsService>;
