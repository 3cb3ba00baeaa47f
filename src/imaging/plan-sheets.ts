import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { detectFormat, ImageRejected, loadSharp, readImageHeader } from './images.js';

/**
 * Plan sheets (docs/design.md §19): a drawing as Deep Zoom tiles for the viewer, one downscaled WebP of the whole
 * sheet (`/api/plans/file.php`, thumbnails, reports), and crops of it around a pin. sharp stays behind this
 * folder (STYLE.md habit 5); the rendering process (features/plans) gives it the pixels of a PDF page or the
 * bytes of an image.
 */

/** Deep Zoom tiles: 510 px plus a pixel of overlap on each side, a 512-px WebP for the common case. */
export const TILE_SIZE = 510;
export const TILE_OVERLAP = 1;
/** The whole sheet as one image: its longest side at most this. */
export const SHEET_FILE_SIDE = 2048;
/** The DZI's name in a tile folder: `sheet.dzi` and `sheet_files/<level>/<column>_<row>.webp` beside it. */
export const DZI_NAME = 'sheet';

/** Tiles are looked at zoomed in: a fast encoder, at a quality where a thin line stays a line. */
const TILE_WEBP = { quality: 80, effort: 0 } as const;
/**
 * A drawing's tiles (a rendered page that is mostly blank paper): lossless WebP, at its fastest effort, is both
 * cheaper to encode and smaller than lossy for line work (the benchmark's A1 page: 0.58 s of CPU and 1.2 MB for
 * its pyramid against 0.68 s and 3.2 MB), and its lines stay exact. Scans and photos keep TILE_WEBP: lossless
 * would make them several times larger.
 */
const DRAWING_TILE_WEBP = { lossless: true, effort: 0 } as const;
/** A rendered page is a drawing when at least this share of its pixels is pure white paper. */
const DRAWING_PAPER_SHARE = 0.5;
const SHEET_WEBP = { quality: 82, effort: 2 } as const;

export type PlanImageFormat = 'png' | 'jpeg' | 'webp';

/** A sheet to tile: the RGBA pixels of a rendered PDF page (opaque, on white), or the bytes of an image file. */
export type SheetSource = { raw: Buffer; width: number; height: number } | { bytes: Buffer };

export interface TiledSheet {
  /** The sheet's size as tiled, in pixels. */
  width: number;
  height: number;
  /** Deep Zoom levels: 0 (1 px) up to `levels − 1`, the full size. */
  levels: number;
  tileSize: number;
  overlap: number;
  /** The files written, relative to the folder: `sheet.dzi`, `sheet.webp`, `sheet_files/…`. */
  files: string[];
}

/** How large a sheet is tiled: no side over `maxSide`, no more than `maxPixels`; never enlarged. */
export interface SheetBounds {
  maxSide: number;
  maxPixels: number;
}

/** The factor that brings `width × height` within the bounds (1 when it already is). */
export function fitScale(width: number, height: number, bounds: SheetBounds): number {
  return Math.min(1, bounds.maxSide / Math.max(width, height), Math.sqrt(bounds.maxPixels / (width * height)));
}

/**
 * Reads an image plan's header (readImageHeader): PNG, JPEG or WebP (GIF, SVG and the rest refused), at least
 * `minSide` px each way, at most `maxPixels`. Throws ImageRejected.
 */
export async function inspectPlanImage(
  bytes: Buffer,
  limits: { minSide: number; maxPixels: number },
): Promise<{ format: PlanImageFormat; width: number; height: number }> {
  if (detectFormat(bytes) === 'gif') throw new ImageRejected('unsupported_format', 'reason.image.planFormats');
  const { format, width, height } = await readImageHeader(bytes, limits);
  // Not a GIF: refused above, before its header was read.
  return { format: format as PlanImageFormat, width, height };
}

/** Whether rendered pixels are mostly pure white paper (a drawing, not a scan): a sample of ~1 pixel in 61. */
function mostlyPaper(raw: Buffer): boolean {
  const pixels = new Uint32Array(raw.buffer, raw.byteOffset, Math.floor(raw.length / 4));
  let white = 0;
  let seen = 0;
  for (let i = 0; i < pixels.length; i += 61, seen++) if (pixels[i] === 0xffffffff) white++;
  return white >= seen * DRAWING_PAPER_SHARE;
}

/**
 * Tiles a sheet into `dir`: `sheet.dzi` with `sheet_files/` (Deep Zoom, WebP tiles) and `sheet.webp`, the whole
 * sheet at most SHEET_FILE_SIDE px. An image is oriented (EXIF), flattened on white and brought within
 * `bounds`; rendered pixels come within them already. Throws ImageRejected when an image cannot be decoded.
 */
export async function tileSheet(source: SheetSource, dir: string, bounds: SheetBounds): Promise<TiledSheet> {
  const sharp = await loadSharp();
  // A rendered page is opaque already: its alpha is dropped, not composed on white (a pass less over ~70 MB).
  const open = () =>
    'raw' in source
      ? sharp(source.raw, { raw: { width: source.width, height: source.height, channels: 4 } }).removeAlpha()
      : sharp(source.bytes, { failOn: 'error', limitInputPixels: false, pages: 1 }).autoOrient().flatten({ background: '#ffffff' });
  let width: number;
  let height: number;
  if ('raw' in source) {
    ({ width, height } = source);
  } else {
    const meta = await sharp(source.bytes, { limitInputPixels: false }).metadata();
    ({ width, height } = meta.autoOrient);
  }
  const scale = fitScale(width, height, bounds);
  const target = { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
  const fitted = () => (scale < 1 ? open().resize({ ...target, fit: 'fill' }) : open());
  const tiles = 'raw' in source && mostlyPaper(source.raw) ? DRAWING_TILE_WEBP : TILE_WEBP;
  const side = SHEET_FILE_SIDE;
  const pyramid = () =>
    fitted()
      .webp(tiles)
      .tile({ size: TILE_SIZE, overlap: TILE_OVERLAP, layout: 'dz', container: 'fs' })
      .toFile(join(dir, `${DZI_NAME}.dz`));
  const whole = () =>
    fitted()
      .resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true })
      .webp(SHEET_WEBP)
      .toFile(join(dir, `${DZI_NAME}.webp`));
  try {
    // One after the other: side by side, the two pipelines' buffers made the rendering process ~25 MB larger
    // (docs/performance.md, "Plans").
    await pyramid();
    await whole();
  } catch (err) {
    throw new ImageRejected('corrupt', 'reason.image.dataUndecodable', undefined, { cause: err });
  }
  // libvips' own notes on the pyramid are not part of the sheet.
  await rm(join(dir, `${DZI_NAME}_files`, 'vips-properties.xml'), { force: true });
  const files = (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) =>
      join(entry.parentPath, entry.name)
        .slice(dir.length + 1)
        .replaceAll('\\', '/'),
    );
  const levels = Math.ceil(Math.log2(Math.max(target.width, target.height))) + 1;
  return { ...target, levels, tileSize: TILE_SIZE, overlap: TILE_OVERLAP, files };
}

/**
 * A square crop of a sheet (its WebP, `sheet.webp`) around a place given as fractions, `side` px at most, as
 * WebP; `pin` is where the place falls in the crop (fractions), for a marker drawn over it (the new-item form).
 */
export async function cropSheet(
  sheet: Buffer,
  place: { x: number; y: number },
  side: number,
): Promise<{ data: Buffer; width: number; height: number; pin: { x: number; y: number } }> {
  const sharp = await loadSharp();
  const { width = 0, height = 0 } = await sharp(sheet).metadata();
  const size = Math.max(1, Math.min(side, width, height));
  const cx = Math.round(place.x * width);
  const cy = Math.round(place.y * height);
  const left = Math.min(Math.max(0, cx - Math.floor(size / 2)), width - size);
  const top = Math.min(Math.max(0, cy - Math.floor(size / 2)), height - size);
  const data = await sharp(sheet).extract({ left, top, width: size, height: size }).webp(SHEET_WEBP).toBuffer();
  return { data, width: size, height: size, pin: { x: (cx - left) / size, y: (cy - top) / size } };
}

/** A printed sheet is a few dozen centimetres of paper: JPEG keeps it small, at a quality where lines stay sharp. */
const PRINT_JPEG = { quality: 85, mozjpeg: false } as const;

/**
 * A sheet (its WebP, `sheet.webp`) as JPEG for the PDF report (PDFKit embeds JPEG and PNG only), with its size in
 * pixels so that pins can be drawn over it. Throws ImageRejected when the bytes cannot be decoded.
 */
export async function sheetForPrint(sheet: Buffer): Promise<{ data: Buffer; width: number; height: number }> {
  const sharp = await loadSharp();
  try {
    const { data, info } = await sharp(sheet, { failOn: 'error' }).flatten({ background: '#ffffff' }).jpeg(PRINT_JPEG).toBuffer({
      resolveWithObject: true,
    });
    return { data, width: info.width, height: info.height };
  } catch (err) {
    throw new ImageRejected('corrupt', 'reason.image.sheetUndecodable', undefined, { cause: err });
  }
}
