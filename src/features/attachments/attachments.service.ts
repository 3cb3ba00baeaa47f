import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { Clock } from '../../clock.js';
import type { Actor } from '../../domain/policy.js';
import type { EventType } from '../../domain/values.js';
import { invalidData, notFound, type FieldError } from '../../errors.js';
import { type ConvertedImage, type ImageConverter, ImageRejected } from '../../imaging/images.js';
import type { BlobStore } from '../../storage/index.js';
import { attachmentView, type AttachmentView } from '../items/item-views.js';
import type { AuditEntryBuilder, ItemWriter } from '../items/item-writer.js';
import type { WriteRepositories } from '../items/write-repositories.js';
import type { ItemsService } from '../items/items.service.js';
import type { AnswersRepository } from '../answers/answers.repository.js';
import type { AttachmentsRepository } from './attachments.repository.js';

/** An uploaded file waiting on local disk. */
export interface IncomingImage {
  originalName: string;
  path: string;
  size: number;
  /** Over the byte limit: the upload was cut short. */
  oversized: boolean;
}

export interface ImageOwner {
  itemId: number;
  /** null: images of the item itself. */
  answerId: number | null;
  actorId: number;
}

/** Checked and converted images, ready to be stored by an item write (see `staged` below). */
export interface PreparedImages {
  put(prefix: string): Promise<void>;
  insert(repos: WriteRepositories, owner: ImageOwner, now: string): Promise<AttachmentView[]>;
  discard(): Promise<void>;
}

const PROBLEM_MESSAGES: Record<string, string> = {
  not_an_image: 'is not an image',
  unsupported_format: 'is not a PNG, JPEG, GIF or WebP image',
  too_small: 'is smaller than 16×16 pixels',
  too_many_pixels: 'has more than 50 000 000 pixels',
  corrupt: 'is damaged or truncated',
  oversized: 'is larger than 20 MiB',
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

export function createAttachmentsService(deps: {
  repo: AttachmentsRepository;
  answers: AnswersRepository;
  blobs: BlobStore;
  images: ImageConverter;
  items: ItemsService;
  writer: ItemWriter;
  clock: Clock;
  urls: { baseUrl: string };
}) {
  const { repo, answers, blobs, images, items, writer, clock, urls } = deps;

  /** Every file is checked and converted before anything is stored: one bad file refuses them all. */
  async function convertAll(files: IncomingImage[]): Promise<ConvertedImage[]> {
    const problems: FieldError[] = [];
    files.forEach((f, i) => {
      if (f.oversized) problems.push({ field: `attachments[${i}]`, message: PROBLEM_MESSAGES.oversized! });
    });
    if (problems.length) throw invalidData(problems);
    const out: ConvertedImage[] = [];
    // One file in memory at a time keeps a 10 × 20 MiB request bounded.
    for (const [i, file] of files.entries()) {
      try {
        out.push(await images.toWebp(await readFile(file.path)));
      } catch (err) {
        if (!(err instanceof ImageRejected)) throw err;
        throw invalidData([{ field: `attachments[${i}]`, message: PROBLEM_MESSAGES[err.problem] ?? 'is not a valid image' }]);
      }
    }
    return out;
  }

  /**
   * Converted images on their way into storage: `put` writes the blobs, `insert` adds their rows inside the
   * caller's item write (putting the blobs first if that has not happened), `discard` removes the blobs again
   * when the write fails, so nothing is left half-done.
   */
  function staged(files: IncomingImage[], converted: ConvertedImage[]): PreparedImages {
    let keys: string[] = [];
    const put = async (prefix: string) => {
      keys = converted.map(() => `${prefix}/${randomUUID()}.webp`);
      await Promise.all(converted.map((image, i) => blobs.put(keys[i]!, image.data, 'image/webp')));
    };
    return {
      put,
      async insert(repos, owner, now) {
        if (keys.length === 0) await put(owner.answerId === null ? `items/${owner.itemId}` : `answers/${owner.answerId}`);
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
  async function prepare(files: IncomingImage[]): Promise<PreparedImages> {
    return staged(files, await convertAll(files));
  }

  return {
    prepare,

    async attachToItem(actor: Actor, itemId: number, files: IncomingImage[], buildAudit?: AuditEntryBuilder) {
      await items.authorize(actor, itemId, 'item.materials');
      const attachments = await store(
        actor,
        { itemId, answerId: null, actorId: actor.id },
        await prepare(files),
        buildAudit,
        async (_repos, _now, views) => ['item.attachments_added', { attachments: views }],
      );
      return { attachments };
    },

    /** Adds images to an answer; an approved or rejected answer goes back to `pending` for re-review. */
    async attachToAnswer(actor: Actor, answerId: number, files: IncomingImage[], buildAudit?: AuditEntryBuilder) {
      const answer = await answers.findOwner(answerId);
      if (!answer) throw notFound('The answer');
      try {
        await items.access(actor, answer.item_id);
      } catch {
        throw notFound('The answer');
      }
      await items.authorize(actor, answer.item_id, 'answer.images', { answerAuthorId: answer.author_id });
      const images = await prepare(files);
      let statusReset = false;
      let answerStatus = 'pending';
      const owner = { itemId: answer.item_id, answerId, actorId: actor.id };
      const attachments = await store(actor, owner, images, buildAudit, async (repos, now, views) => {
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
    },

    /**
     * An attachment's bytes for whoever may see its item; 404 otherwise (same as a missing id). `ifNoneMatch`: the
     * request's header; when it names the attachment's tag, the answer is "not modified" (no bytes read), and only
     * after the access check, so a 304 never tells who may not see it that the attachment exists.
     */
    async openDownload(
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
    },
  };
}

/** If-None-Match (RFC 9110 §13.1.2): `*` or a list of tags, compared weakly. */
function matchesEtag(header: string, etag: string): boolean {
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}

export type AttachmentsService = ReturnType<typeof createAttachmentsService>;
