import type Sharp from 'sharp';
import { concurrencyLimit } from '../shared/concurrency-limit.js';
import { message, type MessageKey, type MessageValues } from '../i18n/i18n.js';

export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp';

export interface ImageInfo {
  format: ImageFormat;
  /** As displayed, i.e. after the EXIF orientation is applied. */
  width: number;
  height: number;
}

export type ImageProblem = 'not_an_image' | 'unsupported_format' | 'too_small' | 'too_many_pixels' | 'corrupt';

/**
 * The upload's content is refused; `problem` says why. The message (the English of `reason`) is for logs; a plan's
 * uploader reads `reason` (a key of reasons.json and its values) in their language, a photo's its problem's words.
 */
export class ImageRejected extends Error {
  override readonly name = 'ImageRejected';
  readonly reason: { key: MessageKey; values?: MessageValues };

  constructor(
    readonly problem: ImageProblem,
    key: MessageKey,
    values?: MessageValues,
    options?: ErrorOptions,
  ) {
    super(message('en', key, values), options);
    this.reason = { key, ...(values ? { values } : {}) };
  }
}

export interface ConvertedImage {
  data: Buffer;
  width: number;
  height: number;
  size: number;
}

export interface ImageConverter {
  /** Reads the header only, no pixels are decoded. Throws ImageRejected. */
  inspect(bytes: Buffer): Promise<ImageInfo>;
  /** Decodes the first frame, applies the EXIF orientation and encodes WebP without metadata. Throws ImageRejected. */
  toWebp(bytes: Buffer): Promise<ConvertedImage>;
  /**
   * A small JPEG of a stored image (reports: PDFKit embeds JPEG and PNG only), fitting `maxSide` pixels,
   * never enlarged. Throws ImageRejected when the bytes cannot be decoded.
   */
  thumbnail(bytes: Buffer, maxSide: number): Promise<Buffer>;
}

let sharpLoaded: Promise<typeof Sharp> | null = null;

/**
 * sharp and libvips load with the first image, not with the process: a server that is sent no image (and a
 * worker thread that makes no report) does without their ~10 MB (docs/performance.md, "Issue 31: server RSS").
 */
export function loadSharp(): Promise<typeof Sharp> {
  return (sharpLoaded ??= import('sharp').then(({ default: sharp }) => {
    // Uploads are never processed twice, so libvips' operation cache would only hold memory (up to 50 MB).
    sharp.cache(false);
    // Defence in depth behind the signature check: libvips may run no loader but these four, so SVG, TIFF,
    // HEIF, PDF and friends cannot be reached even by bytes that fool detectFormat. If a libvips upgrade renames
    // a loader, every upload of that format fails, and the tests say so.
    sharp.block({ operation: ['VipsForeignLoad'] });
    sharp.unblock({
      operation: ['VipsForeignLoadPngBuffer', 'VipsForeignLoadJpegBuffer', 'VipsForeignLoadNsgifBuffer', 'VipsForeignLoadWebpBuffer'],
    });
    return sharp;
  }));
}

/**
 * Reads an image's header, no pixels decoded: its format (from its bytes, detectFormat) and its size as displayed
 * (the EXIF orientation applied), refused when a side is under `minSide` pixels or it has more than `maxPixels`.
 * The one reading of a header: the converter's uploads (inspect) and plans (plan-sheets.ts). Throws ImageRejected.
 */
export async function readImageHeader(bytes: Buffer, limits: { minSide: number; maxPixels: number }): Promise<ImageInfo> {
  const format = detectFormat(bytes);
  const sharp = await loadSharp();
  let metadata;
  try {
    // Only the header is read here, so sharp's own pixel limit is lifted to report the size as ours.
    metadata = await sharp(bytes, { failOn: 'error', limitInputPixels: false }).metadata();
  } catch (err) {
    throw new ImageRejected('corrupt', 'reason.image.headerUnreadable', { format }, { cause: err });
  }
  const { width, height } = metadata.autoOrient;
  if (metadata.format !== format || !(width > 0 && height > 0)) {
    throw new ImageRejected('corrupt', 'reason.image.headerInconsistent', { format });
  }
  if (width * height > limits.maxPixels) {
    throw new ImageRejected('too_many_pixels', 'reason.image.tooManyPixels', { width, height, max: limits.maxPixels });
  }
  if (width < limits.minSide || height < limits.minSide) {
    throw new ImageRejected('too_small', 'reason.image.tooSmall', { width, height, min: limits.minSide });
  }
  return { format, width, height };
}

// sharp.concurrency (libvips threads per image) stays at sharp's default. What needs bounding is how many
// images decode at once: each holds its full bitmap for the WebP encoder (a 50-megapixel photo is ~200 MB),
// and every running conversion occupies one of libuv's 4 threads, which file system calls need as well.
const PARALLEL_CONVERSIONS = 2;

const WEBP_OPTIONS = { quality: 80, effort: 4 } as const;
// Report thumbnails are printed a few centimetres wide: small files matter more than fine detail.
const THUMBNAIL_JPEG = { quality: 70, mozjpeg: false } as const;

export function createImageConverter(options: { maxPixels?: number; minSide?: number } = {}): ImageConverter {
  const maxPixels = options.maxPixels ?? 50_000_000;
  const minSide = options.minSide ?? 16;
  const inSlot = concurrencyLimit(PARALLEL_CONVERSIONS);

  const inspect = (bytes: Buffer) => readImageHeader(bytes, { minSide, maxPixels });

  async function toWebp(bytes: Buffer): Promise<ConvertedImage> {
    const info = await inspect(bytes);
    const sharp = await loadSharp();
    return inSlot(async () => {
      try {
        const { data, info: output } = await sharp(bytes, {
          // 'error' includes truncated data; 'warning' would also refuse photos whose only fault is a harmless
          // quirk, such as stray bytes before a JPEG marker.
          failOn: 'error',
          // Second guard, should the header and the decoder ever disagree.
          limitInputPixels: maxPixels,
          // Animated images keep their first frame.
          pages: 1,
        })
          .autoOrient()
          .webp(WEBP_OPTIONS)
          .toBuffer({ resolveWithObject: true });
        return { data, width: output.width, height: output.height, size: data.length };
      } catch (err) {
        throw new ImageRejected('corrupt', 'reason.image.undecodable', { format: info.format }, { cause: err });
      }
    });
  }

  async function thumbnail(bytes: Buffer, maxSide: number): Promise<Buffer> {
    const info = await inspect(bytes);
    const sharp = await loadSharp();
    return inSlot(async () => {
      try {
        return await sharp(bytes, { failOn: 'error', limitInputPixels: maxPixels, pages: 1 })
          .autoOrient()
          .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true })
          .flatten({ background: '#ffffff' })
          .jpeg(THUMBNAIL_JPEG)
          .toBuffer();
      } catch (err) {
        throw new ImageRejected('corrupt', 'reason.image.undecodable', { format: info.format }, { cause: err });
      }
    });
  }

  return { inspect, toWebp, thumbnail };
}

// Formats that are images, only not ours: they get a more helpful label than "not an image".
const OTHER_IMAGE_SIGNATURES: ReadonlyArray<[number, string]> = [
  [0, 'II*\0'], // TIFF, little-endian
  [0, 'MM\0*'], // TIFF, big-endian
  [0, 'BM'], // BMP
  [0, '\0\0\x01\0'], // ICO
  [0, '8BPS'], // Photoshop
  [4, 'ftypavif'], // AVIF and HEIF/HEIC brands
  [4, 'ftypavis'],
  [4, 'ftypheic'],
  [4, 'ftypheix'],
  [4, 'ftypmif1'],
  [4, 'ftypmsf1'],
  [0, '\xff\x0a'], // JPEG XL codestream
  [4, 'JXL '], // JPEG XL container
  [4, 'jP  '], // JPEG 2000
  [0, '\xff\x4f\xff\x51'], // JPEG 2000 codestream
];

/** The format as the bytes say, whatever the file name or declared type claimed. */
export function detectFormat(bytes: Buffer): ImageFormat {
  const head = bytes.subarray(0, 1024).toString('latin1');
  const at = (offset: number, signature: string) => head.startsWith(signature, offset);
  if (at(0, '\x89PNG\r\n\x1a\n')) return 'png';
  if (at(0, '\xff\xd8\xff')) return 'jpeg';
  if (at(0, 'GIF87a') || at(0, 'GIF89a')) return 'gif';
  if (at(0, 'RIFF') && at(8, 'WEBP')) return 'webp';
  if (OTHER_IMAGE_SIGNATURES.some(([offset, signature]) => at(offset, signature)) || looksLikeSvg(head)) {
    throw new ImageRejected('unsupported_format', 'reason.image.unsupported');
  }
  throw new ImageRejected('not_an_image', 'reason.image.notAnImage');
}

function looksLikeSvg(head: string): boolean {
  return /^(\xef\xbb\xbf)?\s*</.test(head) && /<svg[\s>]/i.test(head);
}
